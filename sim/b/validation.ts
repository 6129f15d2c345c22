/**
 * `POST /v2/aigc/text_to_video` and `POST /v2/aigc/image_to_video` bodies (§2.1–2.4):
 *
 *   {"model": "<CODE>", "model<CODE without dots>TaskInput": { …camelCase fields… }}
 *
 * The model must be listed for the endpoint; the matching TaskInput object is required. Unknown fields are
 * ignored, not refused — Baidu's own rule ("对于所有无法识别的项应直接忽略") — so a field sent under a wrong name
 * would silently do nothing on the real platform. Here it does nothing too, visibly: every received field is
 * classified as recognised or ignored (paths recorded on the job), and the job's output (duration, pixel size,
 * sound) is derived from the recognised fields only, with the documented defaults for the rest.
 */
import { inappropriate } from './errors';
import { isHttpUrl, isObject } from '../json';
import {
  ENFORCED,
  TASK_INPUT_FIELDS,
  VIDEO_MODELS,
  AUDIO_DEFAULT,
  taskInputKey,
  videoPixels,
  type FieldRole,
  type FieldSpec,
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

/**
 * `renamed`: field names a test gives a family instead of the table's (`{"kling": {"duration": "durationSeconds"}}`,
 * by the table's name): what a real account would show if a guessed name were wrong (/_sim/b/behaviour fieldNames).
 */
export function validateVideoCreate(
  endpoint: VideoEndpoint,
  body: unknown,
  renamed: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
): VideoCreate {
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
  const get = <T>(role: FieldRole) => byRole.get(role)?.value as T | undefined;
  const pathOf = (role: FieldRole) => `${key}.${byRole.get(role)?.spec.name ?? role}`;

  // Prompt: required for text-to-video; limit per model and endpoint (§2.2/§2.3).
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
  const kling = get<string>('mode');
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
 * Which image mode the fields select (§2.3: the mode is chosen by which fields are present [INF]) and its rules:
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
