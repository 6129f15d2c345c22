/**
 * Spec requests → B create calls (pure, for golden tests). Video (docs/platforms/b.md#creating-jobs):
 *
 *   POST /v2/aigc/text_to_video | /v2/aigc/image_to_video
 *   {"model": "<CODE>", "model<CODE without dots>TaskInput": {…the family's camelCase fields…}}
 *
 * with the field names, value translations and constants of the model data (models.ts, as corrected by
 * PLATFORM_B_MODELS_FILE). Image (docs/platforms/b.md#images): POST /v2/aigc/image with one user message (the prompt, then one item per
 * reference image), `n`, `size` (an aspect ratio) and `quality` (1K/2K/4K). Requests arrive validated
 * (rules.ts); a field the model data lacks here means the API and the worker read different models files, and
 * fails the task as an invalid request rather than being dropped.
 */
import { createHash } from 'node:crypto';
import type { ModelRecord } from '../../core/catalogue';
import type { GenerationRequest } from '../../core/task';
import { final } from '../upstream-error';
import { fieldFor, taskInputKey, type BImageModel, type BVideoModel, type ImageQuality, type Role } from './model-spec';
import { bModelOf } from './models';
import type { BImageRequest } from './rules';
import type { BCreate } from './wire-types';
import { readVideoInputs, type BVideoRequest } from './video-inputs';

/** docs/api.md "Image requests"'s `standard` is 1K and `hd` 4K; B's own values pass as they are. */
export const IMAGE_QUALITY: Readonly<Record<string, ImageQuality>> = { standard: '1K', hd: '4K', '1K': '1K', '2K': '2K', '4K': '4K' };

const imageObject = (url: string) => ({ imageUrl: url });

/** What identifies one submit (SubmitContext.dedupKey): the same on each of its attempts, new for every other. */
export interface SubmitMarker {
  dedupKey: string;
}

/** The seed a submit sends where the model has a seed field: its dedup key's hash, an unsigned 32-bit integer. */
export function markerSeed(dedupKey: string): number {
  return createHash('sha256').update(`mediagate-b-seed:${dedupKey}`).digest().readUInt32BE(0);
}

export function toBVideoCreate(m: BVideoModel, req: BVideoRequest, marker?: SubmitMarker): BCreate {
  const { endpoint, first, last, references } = readVideoInputs(req);
  const input: Record<string, unknown> = {};
  const put = (role: Role, value: unknown, param: string, translate = true): void => {
    const spec = fieldFor(m, role, endpoint);
    if (!spec)
      throw final(
        'invalid_request',
        `Platform B: ${m.code} has no TaskInput field for ${param} (do the API and the worker read the same PLATFORM_B_MODELS_FILE?)`,
      );
    input[spec.name] = translate && spec.values && String(value) in spec.values ? spec.values[String(value)] : value;
  };
  /** "true"/"false" switches: a boolean unless the field translates them; "false" without a field is the default. */
  const putSwitch = (role: Role, value: 'true' | 'false' | undefined, param: string): void => {
    if (value === undefined || (value === 'false' && !fieldFor(m, role, endpoint))) return;
    const values = fieldFor(m, role, endpoint)?.values;
    put(role, values ? value : value === 'true', param);
  };

  for (const [name, c] of Object.entries(m.constants)) if (!c.endpoints || c.endpoints.includes(endpoint)) input[name] = c.value;
  if (req.prompt !== undefined && req.prompt !== '') put('prompt', req.prompt, 'prompt');
  if (req.negative_prompt !== undefined) put('negativePrompt', req.negative_prompt, 'negative_prompt');
  if (req.duration !== undefined) put('duration', req.duration, 'duration');
  if (req.resolution !== undefined) put('resolution', req.resolution, 'resolution');
  if (req.ratio !== undefined) put('aspectRatio', req.ratio, 'ratio');
  putSwitch('audio', req.audio, 'audio');
  putSwitch('bgm', req.bgm, 'bgm');

  const headtail = first && last ? fieldFor(m, 'firstLastFrames', endpoint) : undefined;
  if (headtail) {
    input[headtail.name] = { headImage: imageObject(first!.url), tailImage: imageObject(last!.url) };
  } else {
    if (first) put('firstFrame', imageObject(first.url), first.param, false);
    if (last) put('lastFrame', imageObject(last.url), last.param, false);
  }
  if (references.length > 0) {
    const spec = fieldFor(m, 'referenceImages', endpoint);
    const items = references.map((r) => imageObject(r.url));
    put('referenceImages', spec?.single && items.length === 1 ? items[0] : items, 'images', false);
  }
  // Any seed gives a random-looking video, as an absent one does; this one also names the submit (lost-answer.ts).
  const seed = fieldFor(m, 'seed', endpoint);
  if (seed && marker) input[seed.name] = markerSeed(marker.dedupKey);
  return { endpoint, path: `/v2/aigc/${endpoint}`, body: { model: m.code, [taskInputKey(m.code)]: input } };
}

export function toBImageCreate(m: BImageModel, req: BImageRequest): BCreate {
  const content: Record<string, unknown>[] = [{ type: 'text', text: req.prompt }];
  for (const image of req.images ?? []) content.push({ type: 'image_url', image_item: { image_url: image.url } });
  const body: Record<string, unknown> = { model: m.code, messages: [{ role: 'user', content }] };
  if (req.n !== undefined) body.n = req.n;
  // Validation turned `size` into the aspect ratio B takes (the size table of docs/api.md "Image requests").
  if (req.ratio !== undefined) body.size = req.ratio;
  if (req.quality !== undefined) body.quality = IMAGE_QUALITY[req.quality];
  return { endpoint: 'image', path: '/v2/aigc/image', body };
}

/** The create call for a validated request on a B catalogue entry, as the submit identified by `marker` sends it. */
export function toBCreate(entry: ModelRecord, request: GenerationRequest, marker?: SubmitMarker): BCreate {
  const m = bModelOf(entry);
  if (m.kind !== request.kind) throw final('invalid_request', `${entry.id} is a platform B ${m.kind} model, not ${request.kind}`);
  return m.kind === 'video' ? toBVideoCreate(m, request as BVideoRequest, marker) : toBImageCreate(m, request as BImageRequest);
}
