/**
 * `POST /v2/aigc/text_to_video` and `POST /v2/aigc/image_to_video` bodies (docs/platforms/b.md#creating-jobs):
 *
 *   {"model": "<CODE>", "model<CODE without dots>TaskInput": { …camelCase fields… }}
 *
 * The model must be listed for the endpoint; the matching TaskInput object is required. Unknown fields are
 * ignored, not refused — Baidu's own rule ("对于所有无法识别的项应直接忽略") — so a field sent under a wrong name
 * would silently do nothing on the real platform. Here it does nothing too, visibly: every received field is
 * classified as recognised or ignored (paths recorded on the job), and the job's output (duration, pixel size,
 * sound) is derived from the recognised fields only, with the documented defaults for the rest.
 *
 * `POST /v2/aigc/image` (docs/platforms/b.md#images, "大模型生图", OpenAI-compatible) [OFF Zmj5q4qb3]:
 *
 *   {"model":"NBP","messages":[{"role":"user","content":[{"type":"text","text":"…"},
 *      {"type":"image_url","image_item":{"image_url":"https://…"}}]}],"n":1,"size":"16:9","quality":"2K"}
 *
 * Exactly one message; `n` 1–4 (NB/NBP only 1); `size` a ratio from the list; `quality` 1K/2K/4K (2K/4K only
 * NBP); reference images ≤ 3 on NB, ≤ 14 on NBP, none on I4* (no image-to-image); `response_modalities` must
 * contain "IMAGE"; `tools` NBP only. Unknown fields are ignored and recorded, as for videos; the output (count,
 * pixel size) follows the recognised fields only.
 */
import { inappropriate } from './errors';
import { isHttpUrl, isObject } from '../json';
import {
  AUDIO_DEFAULT,
  ENFORCED,
  IMAGE_CONTENT_TYPES,
  IMAGE_DEFAULT_QUALITY,
  IMAGE_DEFAULT_SIZE,
  IMAGE_FIELDS,
  IMAGE_MODELS,
  IMAGE_QUALITIES,
  IMAGE_SIZES,
  imagePixels,
  TASK_INPUT_FIELDS,
  taskInputKey,
  VIDEO_MODELS,
  videoPixels,
  type FieldRole,
  type FieldSpec,
  type ImageModel,
  type ValueRule,
  type VideoEndpoint,
  type VideoModel,
} from './models';

export interface FieldReport {
  /** Dotted paths of the fields B acted on, e.g. `modelVE31TaskInput.durationSeconds`. */
  recognised: string[];
  /** Dotted paths of the fields B ignored (unknown names, other models' TaskInputs, unknown nested keys). */
  ignored: string[];
}

export interface VideoOutput {
  mediaType: 'video';
  durationInSecond: number;
  resolution: string;
  aspectRatio: string;
  widthInPixel: number;
  heightInPixel: number;
  audio: boolean;
}

export interface VideoCreate {
  model: VideoModel;
  prompt: string;
  /** text | first-frame | first-last | reference */
  mode: string;
  fields: FieldReport;
  output: VideoOutput;
  /**
   * The settings the request left out, under their TaskInput names, with the model's defaults: what B would show
   * in its echo if it echoed the request with its defaults filled in (/_sim/b/echo "defaults").
   */
  defaults: Record<string, unknown>;
}

/** The label B puts in `videoGenerateTaskInput.type`: "图生视频" [OFF callback], "文生视频" [INF]. */
export const VIDEO_INPUT_TYPE: Record<VideoEndpoint, { label: string; requestKey: string }> = {
  text_to_video: { label: '文生视频', requestKey: 'textToVideoRequest' },
  image_to_video: { label: '图生视频', requestKey: 'imageToVideoRequest' },
};

/** Prompt length as characters (code points): a Chinese character counts one [GUESS: the docs say 字符]. */
export const promptLength = (s: string) => [...s].length;

/** The prompt a create carries, for directives and prompt-keyed faults, before any validation. */
export function videoPromptOf(body: unknown): string {
  if (!isObject(body) || typeof body.model !== 'string') return '';
  const input = body[taskInputKey(body.model)];
  return isObject(input) && typeof input.prompt === 'string' ? input.prompt : '';
}

/** Checks an `{imageUrl}` object; unknown keys inside are ignored and reported. */
function checkImage(value: unknown, path: string, fields: FieldReport): string {
  if (!isObject(value)) throw inappropriate(`${path} must be an object {"imageUrl": "..."}`);
  for (const k of Object.keys(value)) if (k !== 'imageUrl') fields.ignored.push(`${path}.${k}`);
  if (value.imageUrl === undefined) throw inappropriate(`${path}.imageUrl is required`);
  // "需要确保公网可访问" [OFF]: the simulator checks the form (http/https), not reachability.
  if (!isHttpUrl(value.imageUrl)) throw inappropriate(`${path}.imageUrl must be an http(s) URL`);
  return value.imageUrl;
}

interface Parsed {
  spec: FieldSpec;
  value: unknown;
}

/** Validates one recognised field's JSON type and static constraints; returns the value to act on. */
function checkField(spec: FieldSpec, value: unknown, path: string, fields: FieldReport): unknown {
  switch (spec.type) {
    case 'string':
      if (typeof value !== 'string') throw inappropriate(`${path} must be a string`);
      if (spec.enum && !spec.enum.includes(value)) throw inappropriate(`${path} must be one of ${spec.enum.join(', ')}`);
      return value;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value) || (spec.type === 'integer' && !Number.isInteger(value))) {
        throw inappropriate(`${path} must be ${spec.type === 'integer' ? 'an integer' : 'a number'}`);
      }
      if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) {
        throw inappropriate(`${path} must be between ${spec.min} and ${spec.max}`);
      }
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw inappropriate(`${path} must be a boolean`);
      return value;
    case 'onOff':
      if (typeof value === 'boolean') return value;
      if (value === 'on' || value === 'off') return value === 'on';
      throw inappropriate(`${path} must be "on", "off" or a boolean`);
    case 'image':
      return checkImage(value, path, fields);
    case 'images': {
      const list = Array.isArray(value) ? value : [value];
      if (list.length === 0) throw inappropriate(`${path} must not be empty`);
      return list.map((item, i) => checkImage(item, Array.isArray(value) ? `${path}[${i}]` : path, fields));
    }
    case 'headtail': {
      if (!isObject(value)) throw inappropriate(`${path} must be an object {"headImage": {...}, "tailImage": {...}}`);
      for (const k of Object.keys(value)) if (k !== 'headImage' && k !== 'tailImage') fields.ignored.push(`${path}.${k}`);
      if (value.headImage === undefined || value.tailImage === undefined) throw inappropriate(`${path} needs both headImage and tailImage`);
      return [checkImage(value.headImage, `${path}.headImage`, fields), checkImage(value.tailImage, `${path}.tailImage`, fields)];
    }
  }
}

/** Model-dependent value rules (duration, resolution, aspect ratio), enforced when their evidence allows. */
function checkRule<T extends string | number>(
  rule: ValueRule<T> & { caseInsensitive?: boolean },
  value: T,
  path: string,
  code: string,
): void {
  if (!ENFORCED.has(rule.evidence)) return;
  if (rule.range && typeof value === 'number' && (value < rule.range[0] || value > rule.range[1])) {
    throw inappropriate(`${path} must be between ${rule.range[0]} and ${rule.range[1]} for ${code}`);
  }
  if (rule.allowed) {
    const norm = (v: T) => (rule.caseInsensitive && typeof v === 'string' ? v.toLowerCase() : v);
    if (!rule.allowed.some((a) => norm(a) === norm(value)))
      throw inappropriate(`${path} must be one of ${rule.allowed.join(', ')} for ${code}`);
  }
}

/** The body's model and its TaskInput, each field classified against the family's table for this endpoint. */
function readTaskInput(endpoint: VideoEndpoint, body: unknown, renamed: Readonly<Record<string, Readonly<Record<string, string>>>>) {
  if (!isObject(body)) throw inappropriate('The request body must be a JSON object');
  if (body.model === undefined) throw inappropriate('model is required');
  if (typeof body.model !== 'string') throw inappropriate('model must be a string');
  const model = VIDEO_MODELS.get(body.model);
  const limits = model?.endpoints[endpoint];
  if (!model || !limits) throw inappropriate(`model ${body.model} is not supported by ${endpoint}`);

  const key = taskInputKey(model.code);
  const fields: FieldReport = { recognised: ['model'], ignored: [] };
  for (const k of Object.keys(body)) if (k !== 'model' && k !== key) fields.ignored.push(k);
  const input = body[key];
  if (input === undefined) throw inappropriate(`${key} is required for model ${model.code}`);
  if (!isObject(input)) throw inappropriate(`${key} must be an object`);
  fields.recognised.push(key);

  // Classify the TaskInput's fields against the family's table for this endpoint.
  const renames = renamed[model.family] ?? {};
  const specs = TASK_INPUT_FIELDS[model.family][endpoint]
    .filter((s) => !s.models || s.models.includes(model.code))
    .map((s) => (renames[s.name] ? { ...s, name: renames[s.name]! } : s));
  const byRole = new Map<FieldRole, Parsed>();
  for (const [name, value] of Object.entries(input)) {
    const path = `${key}.${name}`;
    const spec = specs.find((s) => s.name === name);
    if (!spec) {
      fields.ignored.push(path);
      continue;
    }
    // JSON null reads as absent (Baidu's typed objects), recorded as ignored.
    if (value === null) {
      fields.ignored.push(path);
      continue;
    }
    const parsed = checkField(spec, value, path, fields);
    const other = byRole.get(spec.role);
    if (other) throw inappropriate(`${path} and ${key}.${other.spec.name} set the same thing; send one of them`);
    byRole.set(spec.role, { spec, value: parsed });
    fields.recognised.push(path);
  }
  return { model, limits, key, fields, specs, byRole };
}

/** The output's resolution, ratio and size, and the defaults taken for settings absent (or misnamed) from the TaskInput. */
function outputDefaults(
  model: VideoModel,
  specs: readonly FieldSpec[],
  byRole: Map<FieldRole, Parsed>,
  given: { resolution?: string; aspectRatio?: string; kling?: string },
) {
  const { resolution, aspectRatio, kling } = given;
  const res = resolution ?? (kling ? (kling === 'pro' ? '1080p' : '720p') : model.resolution.default);
  const ar = aspectRatio ?? model.aspectRatio.default;
  const px = videoPixels(res, ar);
  const defaults: Record<string, unknown> = {};
  const nameFor = (role: FieldRole) => specs.find((s) => s.role === role)?.name;
  for (const [role, value] of [
    ['duration', model.duration.default],
    ['resolution', res],
    ['aspectRatio', ar],
  ] as const) {
    const name = nameFor(role);
    if (name && !byRole.has(role)) defaults[name] = value;
  }
  return { res, ar, px, defaults };
}

/**
 * `renamed`: field names a test gives a family instead of the table's (`{"kling": {"duration": "durationSeconds"}}`,
 * by the table's name): what a real account would show if a guessed name were wrong (/_sim/b/behaviour fieldNames).
 */
export function validateVideoCreate(
  endpoint: VideoEndpoint,
  body: unknown,
  renamed: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
): VideoCreate {
  const { model, limits, key, fields, specs, byRole } = readTaskInput(endpoint, body, renamed);
  const get = <T>(role: FieldRole) => byRole.get(role)?.value as T | undefined;
  const pathOf = (role: FieldRole) => `${key}.${byRole.get(role)?.spec.name ?? role}`;

  // Prompt: required for text-to-video; limit per model and endpoint (docs/platforms/b.md#text-to-video, #image-to-video).
  const prompt = get<string>('prompt') ?? '';
  if (endpoint === 'text_to_video' && prompt.trim() === '') throw inappropriate(`${key}.prompt is required`);
  if (promptLength(prompt) > limits.promptMax)
    throw inappropriate(`${key}.prompt must be at most ${limits.promptMax} characters for ${model.code}`);

  const duration = get<number>('duration');
  if (duration !== undefined) {
    if (duration <= 0) throw inappropriate(`${pathOf('duration')} must be positive`);
    checkRule(model.duration, duration, pathOf('duration'), model.code);
  }
  const resolution = get<string>('resolution');
  if (resolution !== undefined) checkRule(model.resolution, resolution, pathOf('resolution'), model.code);
  const aspectRatio = get<string>('aspectRatio');
  if (aspectRatio !== undefined) checkRule(model.aspectRatio, aspectRatio, pathOf('aspectRatio'), model.code);

  const mode = imageMode(model, endpoint, byRole, key);

  // The output follows what was recognised; absent (or misnamed) settings take the model's defaults.
  const { res, ar, px, defaults } = outputDefaults(model, specs, byRole, { resolution, aspectRatio, kling: get<string>('mode') });
  return {
    model,
    prompt,
    mode,
    fields,
    defaults,
    output: {
      mediaType: 'video',
      durationInSecond: duration ?? model.duration.default,
      resolution: res,
      aspectRatio: ar,
      widthInPixel: px.width,
      heightInPixel: px.height,
      audio: get<boolean>('audio') ?? AUDIO_DEFAULT,
    },
  };
}

/**
 * Which image mode the fields select (docs/platforms/b.md#image-to-video: the mode is chosen by which fields are present [INF]) and its rules:
 * image-to-video needs a first frame (Vidu: or head+tail images; Veo: or reference images); a last frame needs a
 * first frame; Veo's reference images combine with neither [3P].
 */
function imageMode(model: VideoModel, endpoint: VideoEndpoint, byRole: Map<FieldRole, Parsed>, key: string): string {
  if (endpoint === 'text_to_video') return 'text';
  const first = byRole.has('firstFrame');
  const last = byRole.has('lastFrame');
  const headtail = byRole.has('headtail');
  const refs = byRole.has('references');
  const name = (role: FieldRole) => `${key}.${byRole.get(role)?.spec.name ?? role}`;
  if (refs && (first || last)) throw inappropriate(`${name('references')} cannot be combined with a first or last frame`);
  if (headtail && first) throw inappropriate(`${name('headtail')} cannot be combined with ${name('firstFrame')}`);
  if (last && !first) throw inappropriate(`${name('lastFrame')} requires ${key}.${firstFrameName(model)}`);
  if (refs) return 'reference';
  if (headtail) return 'first-last';
  if (!first) {
    const alternatives = [
      firstFrameName(model),
      ...(model.family === 'vidu' ? ['headtailImages'] : []),
      ...(model.family === 'veo' ? ['referenceImages'] : []),
    ];
    throw inappropriate(`${key} needs an image: ${alternatives.join(' or ')}`);
  }
  return last ? 'first-last' : 'first-frame';
}

function firstFrameName(model: VideoModel): string {
  return TASK_INPUT_FIELDS[model.family].image_to_video.find((s) => s.role === 'firstFrame')?.name ?? 'image';
}

// ---------------------------------------------------------------- image creates (POST /v2/aigc/image)

export interface ImageOutput {
  mediaType: 'image';
  n: number;
  size: string;
  quality: string;
  widthInPixel: number;
  heightInPixel: number;
}

export interface ImageCreate {
  model: ImageModel;
  prompt: string;
  referenceImages: number;
  fields: FieldReport;
  output: ImageOutput;
}

/**
 * `videoGenerateTaskInput` of an image task: not documented. [GUESS] "文生图" / "图生图" (with reference images)
 * and the request under `imageGenerateRequest`, by analogy with 文生视频/textToVideoRequest.
 */
export function imageInputType(referenceImages: number): { label: string; requestKey: string } {
  return { label: referenceImages > 0 ? '图生图' : '文生图', requestKey: 'imageGenerateRequest' };
}

/** The prompt of an image create (its text items), for directives, before any validation. */
export function imagePromptOf(body: unknown): string {
  if (!isObject(body) || !Array.isArray(body.messages)) return '';
  const content = isObject(body.messages[0]) ? body.messages[0].content : undefined;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((c): c is Record<string, unknown> => isObject(c) && c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n');
}

/** The image create's output options (n, size, quality) and its response modalities and tools, against the model. */
function imageOptions(body: Record<string, unknown>, model: ImageModel): { n: number; size: string; quality: string } {
  const has = (k: string) => body[k] !== undefined && body[k] !== null;
  let n = 1;
  if (has('n')) {
    if (typeof body.n !== 'number' || !Number.isInteger(body.n)) throw inappropriate('n must be an integer');
    if (body.n < 1 || body.n > 4) throw inappropriate('n must be between 1 and 4');
    if (body.n > model.maxN) throw inappropriate(`n must be 1 for model ${model.code}`);
    n = body.n;
  }
  let size: string = IMAGE_DEFAULT_SIZE;
  if (has('size')) {
    if (typeof body.size !== 'string' || !(IMAGE_SIZES as readonly string[]).includes(body.size)) {
      throw inappropriate(`size must be one of ${IMAGE_SIZES.join(', ')}`);
    }
    size = body.size;
  }
  let quality: string = IMAGE_DEFAULT_QUALITY;
  if (has('quality')) {
    if (typeof body.quality !== 'string' || !(IMAGE_QUALITIES as readonly string[]).includes(body.quality)) {
      throw inappropriate(`quality must be one of ${IMAGE_QUALITIES.join(', ')}`);
    }
    if (!model.qualities.includes(body.quality))
      throw inappropriate(`quality ${body.quality} is not supported by model ${model.code} (${model.qualities.join(', ')})`);
    quality = body.quality;
  }
  if (has('response_modalities')) {
    const rm = body.response_modalities;
    if (!Array.isArray(rm) || !rm.every((x) => typeof x === 'string'))
      throw inappropriate('response_modalities must be an array of strings');
    if (!rm.includes('IMAGE')) throw inappropriate('response_modalities must contain "IMAGE"');
  }
  if (has('tools')) {
    if (!Array.isArray(body.tools)) throw inappropriate('tools must be an array');
    if (body.tools.length > 0 && !model.tools) throw inappropriate(`tools are supported only by model NBP, not ${model.code}`);
  }
  return { n, size, quality };
}

export function validateImageCreate(body: unknown): ImageCreate {
  if (!isObject(body)) throw inappropriate('The request body must be a JSON object');
  const fields: FieldReport = { recognised: [], ignored: [] };
  const known = new Set(IMAGE_FIELDS.map((f) => f.name));
  for (const [k, v] of Object.entries(body)) {
    if (known.has(k) && v !== null) fields.recognised.push(k);
    else fields.ignored.push(k);
  }
  const has = (k: string) => body[k] !== undefined && body[k] !== null;

  if (!has('model')) throw inappropriate('model is required');
  if (typeof body.model !== 'string') throw inappropriate('model must be a string');
  const model = IMAGE_MODELS.get(body.model);
  if (!model) throw inappropriate(`model ${body.model} is not supported by image`);

  const { prompt, references } = readMessages(body.messages, fields);
  if (references > 0 && model.maxInputImages === 0)
    throw inappropriate(`model ${model.code} does not support image-to-image (reference images)`);
  if (references > model.maxInputImages) throw inappropriate(`model ${model.code} accepts at most ${model.maxInputImages} input images`);

  const { n, size, quality } = imageOptions(body, model);

  const px = imagePixels(quality, size);
  return {
    model,
    prompt,
    referenceImages: references,
    fields,
    output: { mediaType: 'image', n, size, quality, widthInPixel: px.width, heightInPixel: px.height },
  };
}

/** Exactly one message: its text items make the prompt, its image items are the reference images. */
function readMessages(messages: unknown, fields: FieldReport): { prompt: string; references: number } {
  if (messages === undefined || messages === null) throw inappropriate('messages is required');
  if (!Array.isArray(messages)) throw inappropriate('messages must be an array');
  if (messages.length !== 1) throw inappropriate('messages must contain exactly one message');
  const message = messages[0];
  if (!isObject(message)) throw inappropriate('messages[0] must be an object');
  for (const k of Object.keys(message)) if (k !== 'role' && k !== 'content') fields.ignored.push(`messages[0].${k}`);
  // OpenAI-compatible: the one message is the user's [INF].
  if (message.role !== 'user') throw inappropriate('messages[0].role must be "user"');
  const content = message.content;
  // OpenAI-compatible APIs also take a plain string as the content [INF].
  if (typeof content === 'string') {
    if (content.trim() === '') throw inappropriate('messages[0].content must contain a text item');
    return { prompt: content, references: 0 };
  }
  if (!Array.isArray(content) || content.length === 0) throw inappropriate('messages[0].content must be a non-empty array');
  const texts: string[] = [];
  let references = 0;
  content.forEach((item, i) => {
    const path = `messages[0].content[${i}]`;
    if (!isObject(item)) throw inappropriate(`${path} must be an object`);
    if (typeof item.type !== 'string' || !(IMAGE_CONTENT_TYPES as readonly string[]).includes(item.type)) {
      throw inappropriate(`${path}.type must be one of ${IMAGE_CONTENT_TYPES.join(', ')}`);
    }
    if (item.type === 'text') {
      for (const k of Object.keys(item)) if (k !== 'type' && k !== 'text') fields.ignored.push(`${path}.${k}`);
      if (typeof item.text !== 'string') throw inappropriate(`${path}.text must be a string`);
      texts.push(item.text);
      return;
    }
    for (const k of Object.keys(item)) if (k !== 'type' && k !== 'image_item') fields.ignored.push(`${path}.${k}`);
    const imageItem = item.image_item;
    if (!isObject(imageItem)) throw inappropriate(`${path}.image_item must be an object`);
    const want = item.type === 'image_url' ? 'image_url' : 'image_base64';
    for (const k of Object.keys(imageItem)) if (k !== want) fields.ignored.push(`${path}.image_item.${k}`);
    if (want === 'image_url' && !isHttpUrl(imageItem.image_url)) throw inappropriate(`${path}.image_item.image_url must be an http(s) URL`);
    if (want === 'image_base64' && (typeof imageItem.image_base64 !== 'string' || !/^[A-Za-z0-9+/=\s]+$/.test(imageItem.image_base64))) {
      throw inappropriate(`${path}.image_item.image_base64 must be base64 data`);
    }
    references++;
  });
  const prompt = texts.join('\n');
  if (prompt.trim() === '') throw inappropriate('messages[0].content must contain a non-empty text item');
  return { prompt, references };
}
