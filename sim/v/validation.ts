/**
 * Validation of a V create (`POST /api/v3/contents/generations/tasks`), strict as Ark: the request's keys are the
 * official SDK's create parameters (volcengine-ark-runtime 5.0.54 `Tasks.create`), content items the SDK's
 * CreateTaskContent*Param types, and values are checked per model (models.ts). Throws VError.
 *
 * Surprising but deliberate: a key whose value is JSON `null` counts as absent. The official SDK sends every
 * create parameter it has, unset ones as null (`Tasks.create` builds the body with all keys, defaults None, and
 * `_base_client._build_request` serialises it as is), so Ark must accept nulls.
 */
import { findVModel, V_MODELS, V_RATIOS, type VMode, type VModel } from './models';
import { invalidParameter, missingParameter, VError } from './errors';
import { isObject } from '../json';

/** The SDK's create parameters (Tasks.create). */
const CREATE_KEYS = new Set([
  'model',
  'content',
  'safety_identifier',
  'callback_url',
  'return_last_frame',
  'service_tier',
  'execution_expires_after',
  'priority',
  'generate_audio',
  'draft',
  'camera_fixed',
  'watermark',
  'seed',
  'resolution',
  'ratio',
  'duration',
  'frames',
  'tools',
  'output_format',
  'omni_reference_task_type',
]);

/** execution_expires_after: "3600 <= x <= 259200" (Volcengine API, as republished); default 172800 (BytePlus example task). */
export const EXPIRES_MIN_S = 3600;
export const EXPIRES_MAX_S = 259200;
export const EXPIRES_DEFAULT_S = 172800;
/** seed: -1 (random) to 2^32 - 1. */
const SEED_MAX = 4294967295;
/** GUESS: safety_identifier length; OpenAI-style end-user ids are capped at 64 characters. */
const SAFETY_IDENTIFIER_MAX = 64;
/** GUESS: the prompt cap; Seedance 2.0 docs allow long prompts, this only stops absurd bodies. */
const TEXT_MAX = 20000;

export interface VCreatePlan {
  model: VModel;
  text?: string;
  mode: VMode;
  /** As requested or defaulted; `adaptive` kept. */
  ratio: string;
  resolution: string;
  /** Effective seconds (auto → 5). */
  duration: number;
  frames?: number;
  seed: number;
  /** undefined on models without audio (the field is then absent from the task). */
  generateAudio?: boolean;
  /** undefined on models without draft. */
  draft?: boolean;
  draftTaskId?: string;
  serviceTier: 'default' | 'flex';
  executionExpiresAfter: number;
  priority: number;
  safetyIdentifier?: string;
  tools?: { type: string }[];
  returnLastFrame: boolean;
  callbackUrl?: string;
  watermark: boolean;
  cameraFixed: boolean;
}

function isUrl(v: unknown, schemes: readonly string[]): boolean {
  if (typeof v !== 'string') return false;
  if (schemes.includes('data:') && /^data:[a-z]+\/[a-z0-9.+-]+;base64,/i.test(v)) return true;
  try {
    return schemes.includes(new URL(v).protocol);
  } catch {
    return false;
  }
}

function bool(body: Record<string, unknown>, key: string): boolean | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw invalidParameter(key, 'must be a boolean');
  return v;
}

function int(body: Record<string, unknown>, key: string, min: number, max: number): number | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidParameter(key, 'must be an integer');
  if (v < min || v > max) throw invalidParameter(key, `must be between ${min} and ${max}`);
  return v;
}

/** A draft task a final render may start from (content item `draft_task`). */
export type DraftLookup = (id: string) => { model: string; succeeded: boolean; draft: boolean } | undefined;

/** The body as an object without its null fields (null = absent, see the file comment), every key a known one. */
function readBody(raw: unknown): Record<string, unknown> {
  if (!isObject(raw)) throw invalidParameter('body', 'the request body must be a JSON object');
  const body = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null));
  for (const k of Object.keys(body)) if (!CREATE_KEYS.has(k)) throw invalidParameter(k, 'this parameter is not supported');
  return body;
}

function modelOf(body: Record<string, unknown>, findModel: (id: string) => VModel | undefined): VModel {
  if (body.model === undefined) throw missingParameter('model');
  if (typeof body.model !== 'string') throw invalidParameter('model', 'must be a string');
  const model = findModel(body.model);
  if (!model) {
    throw new VError(
      404,
      'InvalidEndpointOrModel.NotFound',
      `The model or endpoint ${body.model} does not exist or you do not have access to it. Known models: ${V_MODELS.map((m) => m.id).join(', ')}.`,
      'model',
    );
  }
  return model;
}

/** What the content items hold: the prompt, how many media of each role, the draft a final render starts from. */
interface VContent {
  text?: string;
  first: number;
  last: number;
  refImages: number;
  videos: number;
  audios: number;
  draftTaskId?: string;
}

/** The fields each content item type may carry. */
const ITEM_FIELDS: Readonly<Record<string, readonly string[]>> = {
  text: ['type', 'text'],
  image_url: ['type', 'image_url', 'role'],
  video_url: ['type', 'video_url', 'role'],
  audio_url: ['type', 'audio_url', 'role'],
  draft_task: ['type', 'draft_task'],
};

const IMAGE_URL_SCHEMES = ['http:', 'https:', 'data:', 'asset:'];
const MEDIA_URL_SCHEMES = ['http:', 'https:', 'asset:'];

function readImageItem(item: Record<string, unknown>, p: string, content: VContent): void {
  if (!isObject(item.image_url) || !isUrl(item.image_url.url, IMAGE_URL_SCHEMES))
    throw invalidParameter(`${p}.image_url.url`, 'must be an image URL, a data URL or an asset id');
  // An image without a role is a first frame (Ark reads only `role`).
  const role = item.role ?? 'first_frame';
  if (role === 'first_frame') content.first++;
  else if (role === 'last_frame') content.last++;
  else if (role === 'reference_image') content.refImages++;
  else throw invalidParameter(`${p}.role`, 'must be first_frame, last_frame or reference_image');
}

/** One content item read into `content`, as Ark checks it. */
function readContentItem(item: unknown, i: number, content: VContent): void {
  const p = `content[${i}]`;
  if (!isObject(item)) throw invalidParameter(p, 'must be an object');
  const keys = typeof item.type === 'string' ? ITEM_FIELDS[item.type] : undefined;
  if (!keys) throw invalidParameter(`${p}.type`, 'must be one of text, image_url, video_url, audio_url, draft_task');
  for (const k of Object.keys(item))
    if (!keys.includes(k)) throw invalidParameter(`${p}.${k}`, `not a field of a ${String(item.type)} item`);
  switch (item.type) {
    case 'text':
      if (typeof item.text !== 'string' || item.text.length === 0) throw invalidParameter(`${p}.text`, 'must be a non-empty string');
      if (item.text.length > TEXT_MAX) throw invalidParameter(`${p}.text`, `must be at most ${TEXT_MAX} characters`);
      if (content.text !== undefined) throw invalidParameter('content', 'at most one text item is allowed');
      content.text = item.text;
      break;
    case 'image_url':
      readImageItem(item, p, content);
      break;
    case 'video_url':
      if (!isObject(item.video_url) || !isUrl(item.video_url.url, MEDIA_URL_SCHEMES))
        throw invalidParameter(`${p}.video_url.url`, 'must be a video URL or an asset id');
      if ((item.role ?? 'reference_video') !== 'reference_video') throw invalidParameter(`${p}.role`, 'must be reference_video');
      content.videos++;
      break;
    case 'audio_url':
      if (!isObject(item.audio_url) || !isUrl(item.audio_url.url, MEDIA_URL_SCHEMES))
        throw invalidParameter(`${p}.audio_url.url`, 'must be an audio URL or an asset id');
      if ((item.role ?? 'reference_audio') !== 'reference_audio') throw invalidParameter(`${p}.role`, 'must be reference_audio');
      content.audios++;
      break;
    default: {
      // draft_task: render a final video from a succeeded draft of the same model.
      const id = isObject(item.draft_task) ? item.draft_task.id : undefined;
      if (typeof id !== 'string' || id === '') throw invalidParameter(`${p}.draft_task.id`, 'must be a task id');
      if (content.draftTaskId !== undefined) throw invalidParameter('content', 'at most one draft_task item is allowed');
      content.draftTaskId = id;
    }
  }
}

function readContent(body: Record<string, unknown>): VContent {
  if (body.content === undefined) throw missingParameter('content');
  if (!Array.isArray(body.content) || body.content.length === 0) throw invalidParameter('content', 'must be a non-empty array');
  const content: VContent = { first: 0, last: 0, refImages: 0, videos: 0, audios: 0 };
  body.content.forEach((item: unknown, i: number) => readContentItem(item, i, content));
  return content;
}

/** A final render's draft: a succeeded draft task of the same model, with no other media beside it. */
function checkDraftRender(draftTaskId: string, c: VContent, model: VModel, findDraft: DraftLookup): void {
  if (!model.draft) throw invalidParameter('content', `${model.id} does not render from a draft task`);
  if (c.first + c.last + c.refImages + c.videos + c.audios > 0)
    throw invalidParameter('content', 'a draft_task item cannot be combined with images, videos or audio');
  const draft = findDraft(draftTaskId);
  if (!draft || !draft.draft || draft.model !== model.id)
    throw invalidParameter('content', `${draftTaskId} is not a draft task of ${model.id}`);
  if (!draft.succeeded) throw invalidParameter('content', `the draft task ${draftTaskId} has not succeeded`);
}

/** What the models' modes are called in refusals. */
const MODE_NAMES: Record<VMode, string> = {
  text: 'text-to-video (an image is required)',
  first_frame: 'a first frame',
  first_last_frame: 'first and last frames',
  reference_images: 'reference images',
  reference_media: 'reference images, videos or audio',
};

/** The generation mode the content asks for, checked against what the model accepts. */
function modeOf(c: VContent, model: VModel, findDraft: DraftLookup): VMode {
  const refs = c.refImages + c.videos + c.audios;
  if (c.first + c.last > 0 && refs > 0)
    throw invalidParameter('content', 'first/last frame content cannot be mixed with reference media content');
  if (c.first > 1 || c.last > 1) throw invalidParameter('content', 'at most one first_frame and one last_frame image are allowed');
  if (c.last > 0 && c.first === 0) throw invalidParameter('content', 'a last_frame image requires a first_frame image');
  let mode: VMode;
  if (c.draftTaskId !== undefined) {
    checkDraftRender(c.draftTaskId, c, model, findDraft);
    mode = 'text';
  } else if (c.last > 0) mode = 'first_last_frame';
  else if (c.first > 0) mode = 'first_frame';
  else if (c.videos + c.audios > 0) mode = 'reference_media';
  else if (c.refImages > 0) mode = model.modes.includes('reference_images') ? 'reference_images' : 'reference_media';
  else mode = 'text';
  if (mode === 'text' && c.draftTaskId === undefined && c.text === undefined) throw missingParameter('content.text');
  if (!model.modes.includes(mode)) throw invalidParameter('content', `${model.id} does not support ${MODE_NAMES[mode]}`);
  checkReferenceCounts(c, model);
  return mode;
}

function checkReferenceCounts(c: VContent, model: VModel): void {
  if (c.refImages > model.maxReferenceImages)
    throw invalidParameter('content', `${model.id} accepts at most ${model.maxReferenceImages} reference images`);
  if (c.videos > model.maxReferenceVideos)
    throw invalidParameter('content', `${model.id} accepts at most ${model.maxReferenceVideos} reference videos`);
  if (c.audios > model.maxReferenceAudios)
    throw invalidParameter('content', `${model.id} accepts at most ${model.maxReferenceAudios} reference audios`);
  // docs/platforms/v.md#corrections: "audio alone (without an image or video) is rejected upstream".
  if (c.audios > 0 && c.refImages + c.videos === 0)
    throw invalidParameter('content', 'reference audio requires at least one reference image or video');
}

/** The output's resolution and ratio: a draft renders at 480p; the ratio's default follows the mode. */
function frameOf(
  body: Record<string, unknown>,
  model: VModel,
  mode: VMode,
  draft: boolean | undefined,
): { resolution: string; ratio: string } {
  if (draft === true && !model.draft) throw invalidParameter('draft', `${model.id} does not support draft`);
  if (body.resolution !== undefined && (typeof body.resolution !== 'string' || !model.resolutions.includes(body.resolution))) {
    throw invalidParameter('resolution', `${model.id} accepts ${model.resolutions.join(', ')}`);
  }
  // docs/platforms/v.md#corrections: draft is a 480p preview.
  if (draft === true && body.resolution !== undefined && body.resolution !== '480p')
    throw invalidParameter('resolution', 'a draft renders at 480p only');
  const resolution = (body.resolution as string | undefined) ?? (draft === true ? '480p' : model.defaultResolution);

  if (body.ratio !== undefined && (typeof body.ratio !== 'string' || !(V_RATIOS as readonly string[]).includes(body.ratio))) {
    throw invalidParameter('ratio', `must be one of ${V_RATIOS.join(', ')}`);
  }
  // GUESS: on the 1.0 models `adaptive` follows an input image; with text only there is nothing to adapt to.
  const v1 = model.id.includes('seedance-1-0');
  if (body.ratio === 'adaptive' && v1 && mode === 'text')
    throw invalidParameter('ratio', `${model.id} supports adaptive only with an input image`);
  // Defaults: 16:9 for text-to-video, adaptive when an image drives the video.
  const ratio = (body.ratio as string | undefined) ?? (mode === 'text' ? '16:9' : 'adaptive');
  return { resolution, ratio };
}

/** The video's length: whole seconds (`duration`) or a frame count (`frames`), never both. */
function lengthOf(body: Record<string, unknown>, model: VModel): { duration: number; frames?: number } {
  if (body.duration !== undefined && body.frames !== undefined)
    throw invalidParameter('frames', 'give either duration or frames, not both');
  let duration = 5;
  if (body.duration !== undefined) {
    const d = body.duration;
    const ok =
      typeof d === 'number' &&
      Number.isInteger(d) &&
      ((d >= model.duration.min && d <= model.duration.max) || (model.duration.auto && d === -1));
    if (!ok)
      throw invalidParameter(
        'duration',
        `${model.id} accepts whole seconds from ${model.duration.min} to ${model.duration.max}${model.duration.auto ? ', or -1 (auto)' : ''}`,
      );
    // Auto: the model picks; the simulator reports 5 s.
    duration = d === -1 ? 5 : (d as number);
  }
  if (body.frames === undefined) return { duration };
  // GUESS (Volcengine 1.x docs as recalled): frames in [29, 289], of the form 25 + 4n; not on the 1.5/2.0 models.
  if (!model.frames) throw invalidParameter('frames', `${model.id} takes duration, not frames`);
  const f = body.frames;
  if (typeof f !== 'number' || !Number.isInteger(f) || f < 29 || f > 289 || (f - 25) % 4 !== 0)
    throw invalidParameter('frames', 'must be 25 + 4n, from 29 to 289');
  return { duration: Math.round((f / 24) * 10) / 10, frames: f };
}

/** The tools a request asks for: web search only, on a model that has it. */
function toolsOf(body: Record<string, unknown>, model: VModel): { type: string }[] | undefined {
  if (body.tools === undefined) return undefined;
  if (
    !Array.isArray(body.tools) ||
    body.tools.some((t) => !isObject(t) || Object.keys(t).some((k) => k !== 'type') || t.type !== 'web_search')
  ) {
    throw invalidParameter('tools', 'must be a list of {"type": "web_search"}');
  }
  if (body.tools.length > 0 && !model.webSearch)
    throw invalidParameter('tools', `${model.id} does not support web search (Seedance 2.0 only)`);
  return body.tools as { type: string }[];
}

/** The task's run options: scheduling, safety, callback and tools, in the order Ark checks them. */
function runOptionsOf(body: Record<string, unknown>, model: VModel, mode: VMode) {
  const seed = int(body, 'seed', -1, SEED_MAX);
  const generateAudio = bool(body, 'generate_audio');
  const watermark = bool(body, 'watermark');
  const cameraFixed = bool(body, 'camera_fixed');
  const returnLastFrame = bool(body, 'return_last_frame');
  // GUESS (reseller docs of the Volcengine API): camera_fixed is not supported with reference images.
  if (cameraFixed === true && (mode === 'reference_images' || mode === 'reference_media'))
    throw invalidParameter('camera_fixed', 'not supported with reference images');
  if (body.service_tier !== undefined && body.service_tier !== 'default' && body.service_tier !== 'flex')
    throw invalidParameter('service_tier', 'must be default or flex');
  if (body.service_tier === 'flex' && !model.flex) throw invalidParameter('service_tier', `${model.id} does not support flex`);
  if (body.service_tier === 'flex' && body.draft === true) throw invalidParameter('service_tier', 'flex is not supported with draft');
  const executionExpiresAfter = int(body, 'execution_expires_after', EXPIRES_MIN_S, EXPIRES_MAX_S) ?? EXPIRES_DEFAULT_S;
  // The SDK has `priority` without documenting its range: any integer is accepted (GUESS).
  const priority = int(body, 'priority', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) ?? 0;
  if (
    body.safety_identifier !== undefined &&
    (typeof body.safety_identifier !== 'string' || body.safety_identifier.length > SAFETY_IDENTIFIER_MAX)
  ) {
    throw invalidParameter('safety_identifier', `must be a string of at most ${SAFETY_IDENTIFIER_MAX} characters`);
  }
  if (body.callback_url !== undefined && !isUrl(body.callback_url, ['http:', 'https:']))
    throw invalidParameter('callback_url', 'must be an http(s) URL');
  const tools = toolsOf(body, model);
  // The SDK has these two for other generation kinds; none of the simulated Seedance models documents them.
  for (const k of ['output_format', 'omni_reference_task_type'])
    if (body[k] !== undefined) throw invalidParameter(k, `not supported by ${model.id}`);
  return { seed, generateAudio, watermark, cameraFixed, returnLastFrame, executionExpiresAfter, priority, tools };
}

export function validateVCreate(
  raw: unknown,
  findDraft: DraftLookup,
  randomSeed: () => number,
  findModel: (id: string) => VModel | undefined = findVModel,
): VCreatePlan {
  const body = readBody(raw);
  const model = modelOf(body, findModel);
  const content = readContent(body);
  const mode = modeOf(content, model, findDraft);
  const draft = bool(body, 'draft');
  const { resolution, ratio } = frameOf(body, model, mode, draft);
  const { duration, frames } = lengthOf(body, model);
  const o = runOptionsOf(body, model, mode);
  const { text, draftTaskId } = content;
  return {
    model,
    text,
    mode,
    ratio,
    resolution,
    duration,
    ...(frames !== undefined ? { frames } : {}),
    seed: o.seed === undefined || o.seed === -1 ? randomSeed() : o.seed,
    // docs/platforms/v.md#corrections: generate_audio defaults to true upstream (2.0); Volcengine documents the same
    // default for 1.5-pro (GUESS for 1.5-pro). Models without audio ignore the field.
    ...(model.audio ? { generateAudio: o.generateAudio ?? true } : {}),
    ...(model.draft ? { draft: draft ?? false } : {}),
    ...(draftTaskId !== undefined ? { draftTaskId } : {}),
    serviceTier: (body.service_tier as 'default' | 'flex' | undefined) ?? 'default',
    executionExpiresAfter: o.executionExpiresAfter,
    priority: o.priority,
    ...(body.safety_identifier !== undefined ? { safetyIdentifier: body.safety_identifier as string } : {}),
    ...(o.tools !== undefined ? { tools: o.tools } : {}),
    returnLastFrame: o.returnLastFrame ?? false,
    ...(body.callback_url !== undefined ? { callbackUrl: body.callback_url as string } : {}),
    watermark: o.watermark ?? false,
    cameraFixed: o.cameraFixed ?? false,
  };
}
