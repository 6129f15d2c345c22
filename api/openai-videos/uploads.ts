/**
 * A client's uploaded reference image (POST /v1/videos `input_reference` as a file): checked to be an image by
 * its bytes (never by the type the client declared), kept in the result store under a name derived from its
 * content, and handed to the platform as a link it can fetch (ResultLinks.inputLink: a signed gateway link, or
 * an S3 presigned one). The same image uploaded twice is one object, and an idempotent retry sends the same link.
 * Retention deletes it with the results (RESULT_RETENTION_DAYS).
 *
 * GET /v1/videos/inputs/:name serves it to the holder of the link, with no API key (a platform has none).
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import Router from '@koa/router';
import { ApiError } from '../api-error';
import type { AppContext, AppDeps, AppState } from '../context';
import { sendStoredObject } from '../http/stored-object';
import { MEDIA_EXTENSIONS, type ResultStore } from '../../results/result-store';
import { sniffMediaType } from '../../results/media-type';
import type { ResultLinks } from '../../results/result-links';
import type { UploadedFile } from './multipart';

/** What the platforms take as a reference image (docs/platforms/v.md, docs/platforms/t.md and docs/platforms/b.md: V and T take JPEG, PNG, WebP; B JPEG and PNG). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

const INPUTS_PREFIX = 'inputs';
const INPUT_NAME = /^[0-9a-f]{64}\.(png|jpg|webp)$/;

/** The stored image's key, or a 415 naming `input_reference` when the bytes are not an image the platforms take. */
export function inputKeyOf(file: UploadedFile): { key: string; contentType: string; sha256: string } {
  const sniffed = sniffMediaType(file.bytes.subarray(0, 16));
  if (!sniffed || !IMAGE_TYPES.has(sniffed)) {
    throw new ApiError(
      415,
      'invalid_request_error',
      `input_reference must be a PNG, JPEG or WebP image${sniffed ? ` (the upload is ${sniffed})` : ' (the upload is not an image)'}`,
      {
        param: 'input_reference',
        code: 'unsupported_media_type',
      },
    );
  }
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  return { key: `${INPUTS_PREFIX}/${sha256}.${MEDIA_EXTENSIONS[sniffed]}`, contentType: sniffed, sha256 };
}

/** An uploaded image, checked and named, with the link a platform fetches it from; `keep` stores it. */
export interface PreparedUpload {
  link: string;
  sha256: string;
  keep(): Promise<void>;
}

/**
 * The upload checked (415 when it is not an image the platforms take) and its link made, before anything is kept:
 * the image is stored only by `keep`, which the start path calls once the task is accepted (tasks/start.ts
 * `prepare`), so a refused request leaves nothing in the store.
 */
export async function prepareUpload(store: ResultStore, links: ResultLinks, file: UploadedFile, origin: string): Promise<PreparedUpload> {
  const { key, contentType, sha256 } = inputKeyOf(file);
  return {
    link: await links.inputLink(key, origin),
    sha256,
    // Written again even when kept already: retention deletes by the time an object was last written, and this
    // upload's job needs it from now on.
    keep: async () => {
      await store.put(key, Readable.from([file.bytes]), { contentType });
    },
  };
}

/** GET (and HEAD) /v1/videos/inputs/:name?token=…: mounted before authentication, like results' content. */
export function videoInputRoutes(deps: Pick<AppDeps, 'results'>): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/v1/videos/inputs/:name', async (ctx: AppContext) => {
    const name = String(ctx.params?.name ?? '');
    const token = ctx.query.token;
    if (!INPUT_NAME.test(name)) throw new ApiError(404, 'not_found_error', `No input named '${name}'`, { code: 'input_not_found' });
    if (typeof token !== 'string')
      throw new ApiError(403, 'permission_error', 'An input link needs its token', { code: 'link_invalid', param: 'token' });
    const key = `${INPUTS_PREFIX}/${name}`;
    const check = deps.results.links.verifyInput(token, key);
    if (!check.ok) {
      throw check.why === 'expired'
        ? new ApiError(403, 'permission_error', 'This input link has expired', { code: 'link_expired', param: 'token' })
        : new ApiError(403, 'permission_error', 'This input link is not valid', { code: 'link_invalid', param: 'token' });
    }
    await sendStoredObject(ctx, deps.results.store, { key, filename: name.replace(/\.[a-z]+$/, '') });
  });
  return router;
}
