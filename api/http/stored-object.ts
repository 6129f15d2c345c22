/**
 * Answering with a stored object (a task's output, a derived image, an uploaded input): HTTP ranges, entity tags
 * and the headers that keep a browser treating it as media. Every door that serves stored bytes uses it:
 * GET /v1/generations/:id/content (api/routes/content.ts) and the Videos API's content and input routes
 * (api/openai-videos/).
 */
import { MEDIA_EXTENSIONS, type ByteRange, type ResultStore, type StoredObjectInfo } from '../../results/result-store';
import { ApiError } from '../api-error';
import type { AppContext } from '../context';
import { storedContentGone } from '../deleted-results';

/**
 * The single byte range a `Range` header asks for within `size` bytes; undefined when the header is absent, not a
 * bytes range, several ranges, or malformed (RFC 9110: such a header is ignored and the whole body served);
 * `unsatisfiable` when it starts past the end.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  if (start >= size) return 'unsatisfiable';
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return end < start ? undefined : { start, end };
}

/** Does an If-None-Match (or If-Range) value name this entity tag? Weak comparison, as RFC 9110 asks for If-None-Match. */
export function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => bare(t) === bare(etag));
}

/** One stored object to answer with, and what the task record already knows of it (saves a HEAD). */
export interface StoredObjectToSend {
  key: string;
  contentType?: string;
  sha256?: string;
  bytes?: number;
  /** The download name without its extension (the media type gives that). */
  filename: string;
}

/**
 * Answers GET or HEAD with a stored object: its media type, ETag (the sha256), HTTP ranges (206/416, If-Range),
 * If-None-Match (304); 410 `content_expired` when the store no longer has it.
 */
export async function sendStoredObject(ctx: AppContext, store: ResultStore, obj: StoredObjectToSend): Promise<void> {
  const { key } = obj;
  const respond = (info: StoredObjectInfo | undefined, status: number) => {
    const etag = `"${obj.sha256 ?? info?.sha256 ?? info?.etag ?? ''}"`;
    const ext = MEDIA_EXTENSIONS[obj.contentType ?? info?.contentType ?? ''] ?? 'bin';
    ctx.status = status;
    ctx.set('ETag', etag);
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('Content-Type', obj.contentType ?? info?.contentType ?? 'application/octet-stream');
    ctx.set('Content-Disposition', `inline; filename="${obj.filename}.${ext}"`);
    // Private: links carry a capability; the bytes never change under one key, so an hour of caching is safe.
    ctx.set('Cache-Control', 'private, max-age=3600');
    // Served from the gateway's own origin: never let a browser treat it as anything but the media it is.
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    if (info) ctx.set('Last-Modified', info.lastModified.toUTCString());
    return etag;
  };

  if (ctx.method === 'HEAD') {
    const info = await store.head(key);
    if (!info) throw await storedContentGone(store, key);
    respond(info, 200);
    ctx.set('Content-Length', String(info.bytes));
    return;
  }

  const ifNoneMatch = ctx.get('If-None-Match');
  if (ifNoneMatch && obj.sha256 && etagMatches(ifNoneMatch, `"${obj.sha256}"`)) {
    respond(undefined, 304);
    return;
  }
  let size = obj.bytes;
  if (size === undefined) {
    const info = await store.head(key);
    if (!info) throw await storedContentGone(store, key);
    size = info.bytes;
  }
  const ifRange = ctx.get('If-Range');
  let range = parseRange(ctx.get('Range'), size);
  if (range && ifRange && obj.sha256 && !etagMatches(ifRange, `"${obj.sha256}"`)) range = undefined; // changed: send it whole
  if (range === 'unsatisfiable') {
    throw new ApiError(416, 'invalid_request_error', `The range is outside the ${size} bytes of this result`, {
      code: 'range_not_satisfiable',
      param: 'Range',
      headers: { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' },
    });
  }
  const got = await store.get(key, range);
  if (!got) throw await storedContentGone(store, key);
  const total = got.info.bytes;
  respond(got.info, range ? 206 : 200);
  // The body first: Koa drops a Content-Length set before a stream body replaces another body.
  ctx.body = got.body;
  if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${total}`);
  ctx.set('Content-Length', String(range ? range.end - range.start + 1 : total));
}
