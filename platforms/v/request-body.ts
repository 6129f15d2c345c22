/**
 * docs/api.md "Video requests" → the body of Ark's create (docs/platforms/v.md#calls, with the Corrections), typed with the
 * SDK's create parameters (wire-types.ts). Pure, for golden tests.
 */
import { createHash } from 'node:crypto';
import type { ModelRecord } from '../../core/catalogue';
import type { ArkContentItem, ArkCreateTaskRequest } from './wire-types';
import type { VVideoRequest } from './rules';
import { V_FLEX_DEADLINE_DEFAULT_S } from './request-fields';

/**
 * execution_expires_after: "3600 <= x <= 259200" seconds (Volcengine's create API, as the simulator records it;
 * the default is 172800). A job still queued or running after it is `expired` and stops costing.
 */
export const V_EXPIRES_MIN_S = 3_600;
export const V_EXPIRES_MAX_S = 259_200;

/**
 * The seed a submit sends, derived from its dedup key: Ark has no idempotency key and its task object does not
 * echo the request's content (wire-types.ts ArkTask), but it does echo `seed`. A seed drawn from the dedup key is as
 * random as any (the key holds the run's UUID), and it is the same on every attempt of one submit and different
 * for every other submit — the marker lost-answer.ts finds a lost job by. Ark's seed range is [-1, 2^32 - 1];
 * this is 0 … 2^32 - 1. (The gateway offers no `seed` field on V; if it ever does, the marker must move.)
 */
export function markerSeed(dedupKey: string): number {
  return createHash('sha256').update(`mediagate-v-seed:${dedupKey}`).digest().readUInt32BE(0);
}

/** What is left of the task's deadline, in whole seconds, within the platform's bounds. */
export function expiresAfterSeconds(deadlineAt: number, now: number): number {
  const left = Math.floor((deadlineAt - now) / 1000);
  return Math.min(V_EXPIRES_MAX_S, Math.max(V_EXPIRES_MIN_S, left));
}

function contentOf(req: VVideoRequest): ArkContentItem[] {
  const content: ArkContentItem[] = [];
  if (req.prompt) content.push({ type: 'text', text: req.prompt });
  if (req.image_url) content.push({ type: 'image_url', image_url: { url: req.image_url }, role: req.image_role ?? 'first_frame' });
  if (req.last_frame_url) content.push({ type: 'image_url', image_url: { url: req.last_frame_url }, role: 'last_frame' });
  for (const i of req.images ?? []) content.push({ type: 'image_url', image_url: { url: i.url }, role: i.role });
  if (req.video_url) content.push({ type: 'video_url', video_url: { url: req.video_url }, role: 'reference_video' });
  for (const v of req.videos ?? []) content.push({ type: 'video_url', video_url: { url: v.url }, role: 'reference_video' });
  if (req.audio_url) content.push({ type: 'audio_url', audio_url: { url: req.audio_url }, role: 'reference_audio' });
  for (const a of req.audios ?? []) content.push({ type: 'audio_url', audio_url: { url: a.url }, role: 'reference_audio' });
  return content;
}

export interface VCreateOptions {
  /** The submit's dedup key (stable across its retries): the seed marker. */
  dedupKey: string;
  /** When the task's deadline passes (ms since the epoch), and the clock. */
  deadlineAt: number;
  now: number;
}

export function toVCreateBody(entry: ModelRecord, req: VVideoRequest, opts: VCreateOptions): ArkCreateTaskRequest {
  const body: ArkCreateTaskRequest = { model: entry.upstream.model ?? entry.id, content: contentOf(req) };
  if (req.ratio !== undefined) body.ratio = req.ratio;
  if (req.duration !== undefined) body.duration = req.duration;
  if (req.resolution !== undefined) body.resolution = req.resolution.toLowerCase();
  // The platform's default is true on these models (their records' defaults.sound), the spec's is false: say it
  // every time.
  if (entry.defaults?.sound === true) body.generate_audio = req.generate_audio === true;
  else if (req.generate_audio !== undefined) body.generate_audio = req.generate_audio;
  if (req.watermark !== undefined) body.watermark = req.watermark;
  if (req.return_last_frame !== undefined) body.return_last_frame = req.return_last_frame;
  if (req.service_tier === 'draft') body.draft = true;
  if (req.web_search === true) body.tools = [{ type: 'web_search' }];
  body.seed = markerSeed(opts.dedupKey);
  if (req.service_tier === 'flex') {
    // The offline tier runs the job within the window the request chose (validated to V's range, its default filled
    // in by rules.ts); the task's own deadline was set from it (activities/submit.ts), so it never ends first.
    body.service_tier = 'flex';
    body.execution_expires_after = req.deadline_seconds ?? V_FLEX_DEADLINE_DEFAULT_S;
  } else {
    body.execution_expires_after = expiresAfterSeconds(opts.deadlineAt, opts.now);
  }
  return body;
}
