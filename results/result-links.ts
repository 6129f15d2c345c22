/**
 * What a client sees of a task's outputs. The workflow records each output as a ResultItem (core/task.ts): the
 * platform's link, and — when the gateway kept a copy — the key it is stored under. On every read of the task
 * (GET /v1/generations/:id, the task list, a sync answer) the API renders each stored item into a fresh link that
 * lives RESULT_URL_TTL:
 *
 * - `gateway` links: `<base>/v1/generations/<id>/content?index=N&token=…` (the last frame: `?which=last_frame`),
 *   signed with RESULT_URL_SECRET (results/signed-url.ts) so they work in a browser tag without a header; `<base>`
 *   is PUBLIC_BASE_URL, or the origin the request came in on, which every reader passes in (`origin`: undefined
 *   outside a request, then the link is relative);
 * - `presigned` links: S3 presigned GETs straight from the bucket.
 *
 * An item the copy could not keep is shown with the platform's link and `stored: false`; an item recorded before
 * results were kept (no `stored` field) with the platform's link alone. Internal fields (key, sha256…) never leave.
 */
import type { GenerationResult, ResultItem } from '../core/task';
import { MEDIA_EXTENSIONS, type ResultStore } from './result-store';
import { signContentToken, signInputToken, verifyContentToken, verifyInputToken, type OutputSelector, type TokenCheck } from './signed-url';

/** One entry of `data` as the client gets it (docs/api.md "Generation results": `url`), plus `stored: false` when only the platform's link exists. */
export interface PublicResultItem {
  url: string;
  stored?: false;
}

export interface RenderedResult {
  data: PublicResultItem[];
  /** The platform's raw extras with `video_url` / `last_frame_url` pointing at the kept copies. */
  extras: Record<string, unknown>;
}

/** The client's view of items when no links are rendered: platform links only, never the internal fields. */
export function publicItems(items: ResultItem[]): PublicResultItem[] {
  return items.map((i) => (i.stored === false ? { url: i.url, stored: false } : { url: i.url }));
}

export interface ResultLinksOptions {
  mode: 'gateway' | 'presigned';
  ttlSeconds: number;
  secret: string | Buffer;
  publicBaseUrl?: string;
  store: ResultStore;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
}

export class ResultLinks {
  constructor(private readonly opts: ResultLinksOptions) {
    if (opts.mode === 'presigned' && !opts.store.presignGet) throw new Error('presigned links need a store that presigns (S3)');
  }

  get mode(): 'gateway' | 'presigned' {
    return this.opts.mode;
  }

  /** Checks a gateway link's token (GET /v1/generations/:id/content). */
  verify(token: string, taskId: string, selector: OutputSelector): TokenCheck {
    return verifyContentToken(this.opts.secret, token, taskId, selector, Math.floor(this.now() / 1000));
  }

  /** Checks an input link's token (GET /v1/videos/inputs/:name). */
  verifyInput(token: string, key: string): TokenCheck {
    return verifyInputToken(this.opts.secret, token, key, Math.floor(this.now() / 1000));
  }

  /**
   * A link a platform fetches a client's uploaded input from (POST /v1/videos `input_reference`): an S3
   * presigned GET, or the gateway's `/v1/videos/inputs/<name>?token=…`, valid RESULT_URL_TTL like result links.
   */
  async inputLink(key: string, origin: string | undefined): Promise<string> {
    const name = key.slice(key.lastIndexOf('/') + 1);
    if (this.opts.mode === 'presigned') return this.opts.store.presignGet!(key, { expiresInSeconds: this.opts.ttlSeconds, filename: name });
    const expiresAt = Math.floor(this.now() / 1000) + this.opts.ttlSeconds;
    return `${this.baseUrl(origin)}/v1/videos/inputs/${encodeURIComponent(name)}?token=${signInputToken(this.opts.secret, key, expiresAt)}`;
  }

  /** Where the gateway's links point: PUBLIC_BASE_URL, or the origin of the request being answered. */
  baseUrl(origin: string | undefined): string {
    return this.opts.publicBaseUrl ?? origin ?? '';
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** Fresh links for every stored output of `result`; called on every read of the task. */
  async render(taskId: string, result: GenerationResult, origin: string | undefined): Promise<RenderedResult> {
    const data = await Promise.all(result.data.map((item, index) => this.link(taskId, item, { index }, origin)));
    const extras: Record<string, unknown> = { ...(result.extras ?? {}) };
    if (typeof extras.video_url === 'string') {
      const i = result.data.findIndex((d) => d.url === extras.video_url);
      if (i >= 0) extras.video_url = data[i]!.url;
    }
    if (result.lastFrame) extras.last_frame_url = (await this.link(taskId, result.lastFrame, { lastFrame: true }, origin)).url;
    return { data, extras };
  }

  private async link(taskId: string, item: ResultItem, selector: OutputSelector, origin: string | undefined): Promise<PublicResultItem> {
    if (item.stored === false) return { url: item.url, stored: false };
    if (item.stored !== true || !item.key) return { url: item.url };
    const expiresAt = Math.floor(this.now() / 1000) + this.opts.ttlSeconds;
    if (this.opts.mode === 'presigned') {
      const ext = MEDIA_EXTENSIONS[item.contentType ?? ''] ?? 'bin';
      const filename = `${taskId}-${'lastFrame' in selector ? 'last-frame' : selector.index}.${ext}`;
      return { url: await this.opts.store.presignGet!(item.key, { expiresInSeconds: this.opts.ttlSeconds, filename }) };
    }
    const base = this.baseUrl(origin);
    const which = 'lastFrame' in selector ? 'which=last_frame' : `index=${selector.index}`;
    const token = signContentToken(this.opts.secret, taskId, selector, expiresAt);
    return { url: `${base}/v1/generations/${encodeURIComponent(taskId)}/content?${which}&token=${token}` };
  }
}
