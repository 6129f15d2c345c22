/**
 * Platform B's wire shapes as the gateway sends and reads them (docs/platforms/b.md). B publishes no
 * type definitions for its AIGC calls (`@baiducloud/sdk` has no VOD AIGC client), so these are written from the
 * doc pages; the task answer is read defensively (replies.ts) because its enum is not fully documented.
 */
import type { VideoEndpoint } from './model-spec';

export type BCreateEndpoint = VideoEndpoint | 'image';

/** One create call: `POST /v2/aigc/{endpoint}` with a JSON body (docs/platforms/b.md#creating-jobs). */
export interface BCreate {
  endpoint: BCreateEndpoint;
  /** The v2 path (AK/SK); the adapter may send text-to-video to its v3 twin with an API key instead. */
  path: `/v2/aigc/${BCreateEndpoint}`;
  body: Record<string, unknown>;
}

/** An error answer's body (docs/platforms/b.md#errors, [OFF] VOD 1m057yiso); every field is read as unknown until checked. */
export interface BErrorBody {
  requestId?: unknown;
  code?: unknown;
  message?: unknown;
}
