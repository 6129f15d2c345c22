/**
 * What B knows about its models, as data, each fact tagged with its evidence from the platform page
 * (docs/platforms/b.md):
 *
 *   OFF          official VOD doc text          OFF-frag   fragment of an official page (version unknown)
 *   OFF-Qianfan  official Qianfan doc for the same vendor model — a vendor range, NOT confirmed for VOD
 *   3P           third-party code that calls VOD INF        inference               GUESS   no evidence
 *
 * A value list is enforced (→ 400 InappropriateJSON) only when its evidence is OFF, OFF-frag, OFF-Qianfan or 3P;
 * GUESS lists are recorded here but not enforced, so the simulator does not refuse what the platform might take.
 * Defaults are what a job's output follows when the field is absent (or was sent under a name B does not know).
 */

export type Evidence = 'OFF' | 'OFF-frag' | 'OFF-Qianfan' | '3P' | 'INF' | 'GUESS';
export type VideoEndpoint = 'text_to_video' | 'image_to_video';
export type VideoFamily = 'vidu' | 'veo' | 'kling' | 'pixverse' | 'hailuo';

/** Evidence strong enough to refuse a request over. */
export const ENFORCED: ReadonlySet<Evidence> = new Set(['OFF', 'OFF-frag', 'OFF-Qianfan', '3P']);

// ------------------------------------------------------------------------------------------------ video models

export interface ValueRule<T> {
  /** Accepted values; undefined = any value of the right type. */
  allowed?: readonly T[];
  /** Inclusive range, for durations given as a range. */
  range?: readonly [number, number];
  default: T;
  evidence: Evidence;
}

export interface VideoModel {
  code: string;
  family: VideoFamily;
  /** Endpoints that list the model, with the prompt limit that endpoint's doc gives. */
  endpoints: Partial<Record<VideoEndpoint, { promptMax: number; evidence: Evidence; note?: string }>>;
  duration: ValueRule<number>;
  resolution: ValueRule<string> & { caseInsensitive?: boolean };
  aspectRatio: ValueRule<string>;
}

/**
 * Prompt limits (docs/platforms/b.md#text-to-video, #image-to-video). Text-to-video has two official versions that disagree for VQ1 and VQ2
 * (2026-02-03: 1500 / 2000; undated theme fragment: 5000 / 5000) — the stricter figure is used. VQ3P/VQ3T appear
 * only in the fragment (5000). Veo's 2000 is from the image-to-video page and applied to text-to-video too [INF].
 */
const T2V = (promptMax: number, evidence: Evidence = 'OFF', note?: string) => ({ promptMax, evidence, note });
const I2V = T2V;

// Vidu (V20, VQ*). Durations/resolutions/aspect ratios: Qianfan's ranges for the same Vidu models [OFF-Qianfan],
// not confirmed for VOD; defaults are the vendor's (5 s, 720p) where known, else [GUESS].
const VIDU_AR = ['16:9', '9:16', '1:1'] as const;
const VIDU_AR_Q23 = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;
const viduQ2 = (code: string, endpoints: VideoModel['endpoints']): VideoModel => ({
  code,
  family: 'vidu',
  endpoints,
  duration: { range: [1, 10], default: 5, evidence: 'OFF-Qianfan' },
  resolution: { allowed: ['540p', '720p', '1080p'], default: '720p', evidence: 'OFF-Qianfan', caseInsensitive: true },
  aspectRatio: { allowed: VIDU_AR_Q23, default: '16:9', evidence: 'OFF-Qianfan' },
});
const viduQ3 = (code: string): VideoModel => ({
  code,
  family: 'vidu',
  endpoints: {
    text_to_video: T2V(5000, 'OFF-frag'),
    image_to_video: I2V(5000, 'INF', 'not in the I2V prompt table; the T2V fragment figure'),
  },
  duration: { range: [1, 16], default: 5, evidence: 'OFF-Qianfan' },
  resolution: { allowed: ['540p', '720p', '1080p'], default: '720p', evidence: 'OFF-Qianfan', caseInsensitive: true },
  aspectRatio: { allowed: VIDU_AR_Q23, default: '16:9', evidence: 'OFF-Qianfan' },
});
const viduQ1 = (code: string, endpoints: VideoModel['endpoints']): VideoModel => ({
  code,
  family: 'vidu',
  endpoints,
  duration: { allowed: [5], default: 5, evidence: 'OFF-Qianfan' },
  resolution: { allowed: ['1080p'], default: '1080p', evidence: 'OFF-Qianfan', caseInsensitive: true },
  aspectRatio: { allowed: VIDU_AR, default: '16:9', evidence: 'OFF-Qianfan' },
});

// Veo (VE3.1*): every value from a production gateway with JSON-equality tests [3P ids 61368595862, 61501476469].
const veo = (code: string): VideoModel => ({
  code,
  family: 'veo',
  endpoints: { text_to_video: T2V(2000, 'INF', 'I2V page figure'), image_to_video: I2V(2000) },
  duration: { allowed: [4, 6, 8], default: 8, evidence: '3P' },
  resolution: { allowed: ['720p', '1080p', '4k'], default: '720p', evidence: '3P' },
  aspectRatio: { allowed: ['16:9', '9:16'], default: '16:9', evidence: '3P' },
});

// Kling (K*): duration 5|10 [OFF-Qianfan]; resolution follows `mode` (std 720p, pro 1080p — vendor [GUESS]);
// aspect ratios are the page's guess (not enforced).
const kling = (code: string, endpoints: VideoModel['endpoints']): VideoModel => ({
  code,
  family: 'kling',
  endpoints,
  duration: { allowed: [5, 10], default: 5, evidence: 'OFF-Qianfan' },
  resolution: { default: '720p', evidence: 'GUESS' },
  aspectRatio: { allowed: ['16:9', '9:16', '1:1'], default: '16:9', evidence: 'GUESS' },
});

// PixVerse (P*): nothing known about values [GUESS]: vendor-like defaults, nothing enforced.
const pixverse = (code: string): VideoModel => ({
  code,
  family: 'pixverse',
  endpoints: { text_to_video: T2V(2048), image_to_video: I2V(2048) },
  duration: { default: 5, evidence: 'GUESS' },
  resolution: { allowed: ['360p', '540p', '720p', '1080p'], default: '540p', evidence: 'GUESS', caseInsensitive: true },
  aspectRatio: { default: '16:9', evidence: 'GUESS' },
});

// Hailuo (H*): duration 6|10, resolution 768P|1080P are the page's guesses (not enforced).
const hailuo = (code: string, endpoints: VideoModel['endpoints']): VideoModel => ({
  code,
  family: 'hailuo',
  endpoints,
  duration: { allowed: [6, 10], default: 6, evidence: 'GUESS' },
  resolution: { allowed: ['768P', '1080P'], default: '768P', evidence: 'GUESS', caseInsensitive: true },
  aspectRatio: { default: '16:9', evidence: 'GUESS' },
});

/**
 * Which endpoint lists which model (docs/platforms/b.md#text-to-video, #image-to-video, [OFF]+[OFF-frag]). T2V: VQ1 VQ2 VQ3P VQ3T P35–P55 K16 K20 K21M
 * K25T K26 H20 H23 VE3.1*. I2V: V20 VQ1 VQ1C VQ2 VQ2T VQ2P VQ2PF VQ3P VQ3T P35–P55 K16 K20 K21 K21M K25T K26 KO1
 * H23 H23F VE3.1*. So V20, VQ1C, VQ2T, VQ2P, VQ2PF, K21, KO1, H23F are image-to-video only, H20 text-to-video only.
 */
export const VIDEO_MODELS: ReadonlyMap<string, VideoModel> = new Map(
  [
    {
      ...viduQ1('V20', { image_to_video: I2V(1500) }),
      duration: { allowed: [4], default: 4, evidence: 'OFF-Qianfan' as const },
      resolution: { allowed: ['360p', '720p'], default: '360p', evidence: 'OFF-Qianfan' as const, caseInsensitive: true },
    },
    viduQ1('VQ1', { text_to_video: T2V(1500, 'OFF', '2026-02-03 doc; a fragment says 5000'), image_to_video: I2V(1500) }),
    viduQ1('VQ1C', { image_to_video: I2V(1500) }),
    viduQ2('VQ2', { text_to_video: T2V(2000, 'OFF', '2026-02-03 doc; a fragment says 5000'), image_to_video: I2V(2000) }),
    viduQ2('VQ2T', { image_to_video: I2V(1500) }),
    viduQ2('VQ2P', { image_to_video: I2V(1500) }),
    viduQ2('VQ2PF', { image_to_video: I2V(1500, 'INF', 'not in the prompt table; VQ2P figure') }),
    viduQ3('VQ3P'),
    viduQ3('VQ3T'),
    ...['P35', 'P40', 'P45', 'P50', 'P55'].map(pixverse),
    ...['K16', 'K20', 'K21M', 'K25T', 'K26'].map((c) => kling(c, { text_to_video: T2V(2500), image_to_video: I2V(2500) })),
    kling('K21', { image_to_video: I2V(2500) }),
    kling('KO1', { image_to_video: I2V(2500) }),
    hailuo('H20', { text_to_video: T2V(2000) }),
    hailuo('H23', { text_to_video: T2V(2000), image_to_video: I2V(2000) }),
    hailuo('H23F', { image_to_video: I2V(2000) }),
    ...['VE3.1', 'VE3.1F', 'VE3.1P', 'VE3.1FP'].map(veo),
  ].map((m) => [m.code, m]),
);

/**
 * The TaskInput object's key: `model{CODE}TaskInput` [OFF], the dot dropped for Veo (`VE3.1` → `modelVE31TaskInput`
 * [3P]; VE3.1P/VE3.1FP by analogy [INF]).
 */
export function taskInputKey(code: string): string {
  return `model${code.replace(/\./g, '')}TaskInput`;
}

// ------------------------------------------------------------------------------------------------ TaskInput fields

/** What a field means to the simulator: validation and the job's output follow the role. */
export type FieldRole =
  | 'prompt'
  | 'negativePrompt'
  | 'duration'
  | 'resolution'
  | 'aspectRatio'
  | 'audio'
  | 'mode'
  | 'firstFrame'
  | 'lastFrame'
  | 'headtail'
  | 'references'
  | 'seed'
  | 'n'
  | 'cfgScale'
  | 'movementAmplitude'
  | 'personGeneration'
  | 'promptOptimizer'
  | 'motionMode';

/**
 * The JSON type a field must have: `image` = `{imageUrl}`, `images` = one `{imageUrl}` or an array of them,
 * `headtail` = `{headImage:{imageUrl}, tailImage:{imageUrl}}`, `onOff` = boolean or "on"/"off".
 */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'onOff' | 'image' | 'images' | 'headtail';

export interface FieldSpec {
  name: string;
  role: FieldRole;
  type: FieldType;
  evidence: Evidence;
  /** Static value constraints (model-dependent ones — duration, resolution, aspect — live on the model). */
  enum?: readonly string[];
  min?: number;
  max?: number;
  /** Only these models know the field; for the others it is ignored like any unknown field. */
  models?: readonly string[];
  note?: string;
}

const f = (name: string, role: FieldRole, type: FieldType, evidence: Evidence, extra: Partial<FieldSpec> = {}): FieldSpec => ({
  name,
  role,
  type,
  evidence,
  ...extra,
});

/** Vidu's documented fields: prompt/duration/resolution/movementAmplitude/headtailImages [OFF], image/aspectRatio [3P]. */
const VIDU_COMMON = [
  f('prompt', 'prompt', 'string', 'OFF'),
  f('duration', 'duration', 'integer', 'OFF'),
  f('resolution', 'resolution', 'string', 'OFF', { note: 'official examples "720p"; a 3P client sends "720P": both accepted [INF]' }),
  f('movementAmplitude', 'movementAmplitude', 'string', 'OFF', {
    enum: ['auto', 'small', 'medium', 'large'],
    note: 'values: vendor (Qianfan)',
  }),
  f('aspectRatio', 'aspectRatio', 'string', '3P'),
];

/** Veo's fields, all from one production gateway with JSON-equality tests [3P]. */
const VEO_COMMON = [
  f('prompt', 'prompt', 'string', '3P'),
  f('negativePrompt', 'negativePrompt', 'string', '3P'),
  f('durationSeconds', 'duration', 'integer', '3P'),
  f('aspectRatio', 'aspectRatio', 'string', '3P'),
  f('resolution', 'resolution', 'string', '3P'),
  f('n', 'n', 'integer', '3P', { min: 1, max: 1 }),
  f('generateAudio', 'audio', 'boolean', '3P', { note: 'default when absent: false [GUESS]' }),
  f('personGeneration', 'personGeneration', 'string', '3P', { enum: ['allow_adult', 'disallow'] }),
  f('seed', 'seed', 'integer', '3P', { min: 0, max: 2 ** 32 - 1 }),
];

/** Kling's VOD field names are unknown: the page's guesses (camelCase of the vendor's parameters) [GUESS]. */
const KLING_COMMON = [
  f('prompt', 'prompt', 'string', 'GUESS'),
  f('negativePrompt', 'negativePrompt', 'string', 'GUESS'),
  f('duration', 'duration', 'integer', 'GUESS', { note: 'values 5|10 [OFF-Qianfan]' }),
  f('mode', 'mode', 'string', 'GUESS', { enum: ['std', 'pro'], note: 'values [OFF-Qianfan]; std → 720p, pro → 1080p' }),
  f('cfgScale', 'cfgScale', 'number', 'GUESS', { min: 0, max: 1, note: 'range [OFF-Qianfan]' }),
  // The page offers two candidate names for K2.6's audio switch ("sound/generateAudio"); both are recognised.
  f('sound', 'audio', 'onOff', 'GUESS', { models: ['K26'], note: 'audio only K2.6+ [OFF-Qianfan]' }),
  f('generateAudio', 'audio', 'boolean', 'GUESS', { models: ['K26'], note: 'alternative name for the same switch' }),
];

/** PixVerse: the page's guesses; "quality/resolution" are two candidate names for one setting [GUESS]. */
const PIXVERSE_COMMON = [
  f('prompt', 'prompt', 'string', 'GUESS'),
  f('negativePrompt', 'negativePrompt', 'string', 'GUESS'),
  f('duration', 'duration', 'integer', 'GUESS'),
  f('quality', 'resolution', 'string', 'GUESS'),
  f('resolution', 'resolution', 'string', 'GUESS', { note: 'alternative name for quality' }),
  f('seed', 'seed', 'integer', 'GUESS'),
  f('motionMode', 'motionMode', 'string', 'GUESS'),
];

/** Hailuo: the page's guesses [GUESS]. */
const HAILUO_COMMON = [
  f('prompt', 'prompt', 'string', 'GUESS'),
  f('duration', 'duration', 'integer', 'GUESS'),
  f('resolution', 'resolution', 'string', 'GUESS'),
  f('promptOptimizer', 'promptOptimizer', 'boolean', 'GUESS'),
];

/**
 * The fields each `TextToVideo{CODE}TaskInput` / `ImageToVideo{CODE}TaskInput` type knows, per family. Anything
 * else in the TaskInput is ignored, as B ignores every item it does not recognise [OFF 1m057yiso], and recorded
 * on the job as ignored. Image fields exist only on the image-to-video types.
 */
export const TASK_INPUT_FIELDS: Readonly<Record<VideoFamily, Readonly<Record<VideoEndpoint, readonly FieldSpec[]>>>> = {
  vidu: {
    text_to_video: VIDU_COMMON,
    image_to_video: [
      ...VIDU_COMMON,
      f('image', 'firstFrame', 'image', '3P', { note: 'single-image mode' }),
      f('headtailImages', 'headtail', 'headtail', 'OFF', { note: 'first+last frame mode (V15 event example)' }),
    ],
  },
  veo: {
    text_to_video: VEO_COMMON,
    image_to_video: [
      ...VEO_COMMON,
      f('image', 'firstFrame', 'image', '3P'),
      f('lastFrame', 'lastFrame', 'image', '3P', { note: 'requires image' }),
      f('referenceImages', 'references', 'images', '3P', {
        note: 'an object in the 3P code, maybe an array: both accepted; not with image/lastFrame',
      }),
    ],
  },
  kling: {
    text_to_video: [...KLING_COMMON, f('aspectRatio', 'aspectRatio', 'string', 'GUESS')],
    image_to_video: [
      ...KLING_COMMON,
      f('image', 'firstFrame', 'image', 'GUESS', { note: 'VOD house style ({imageUrl}, as Vidu and Veo)' }),
      // "tail/last image" on the page: the vendor's image_tail camelCased, or VOD's Veo name.
      f('imageTail', 'lastFrame', 'image', 'GUESS'),
      f('lastFrame', 'lastFrame', 'image', 'GUESS', { note: 'alternative name for imageTail' }),
    ],
  },
  pixverse: {
    text_to_video: [...PIXVERSE_COMMON, f('aspectRatio', 'aspectRatio', 'string', 'GUESS')],
    image_to_video: [...PIXVERSE_COMMON, f('image', 'firstFrame', 'image', 'GUESS', { note: 'VOD house style' })],
  },
  hailuo: {
    text_to_video: HAILUO_COMMON,
    image_to_video: [
      ...HAILUO_COMMON,
      // The page guesses firstFrame/lastFrame; `image` is VOD's house style for a first frame. Either is taken.
      f('firstFrame', 'firstFrame', 'image', 'GUESS'),
      f('image', 'firstFrame', 'image', 'GUESS', { note: 'alternative name for firstFrame' }),
      f('lastFrame', 'lastFrame', 'image', 'GUESS'),
    ],
  },
};

/**
 * Whether a video has sound when no recognised `audio`-role field says so: no. For Veo's generateAudio the default
 * is not documented [GUESS]; "off" makes a misnamed switch visible (the video comes back silent).
 */
export const AUDIO_DEFAULT = false;

// ------------------------------------------------------------------------------------------------ image models

export interface ImageModel {
  code: string;
  /** Input (reference) images accepted; 0 = no image-to-image. */
  maxInputImages: number;
  maxN: number;
  qualities: readonly string[];
  tools: boolean;
  evidence: Evidence;
  note?: string;
}

/** docs/platforms/b.md#images model table [OFF]; NB2 and I4G1 are in the spec and a newer doc version, their limits by family [INF]. */
export const IMAGE_MODELS: ReadonlyMap<string, ImageModel> = new Map(
  [
    { code: 'NB', maxInputImages: 3, maxN: 1, qualities: ['1K'], tools: false, evidence: 'OFF' as Evidence },
    { code: 'NBP', maxInputImages: 14, maxN: 1, qualities: ['1K', '2K', '4K'], tools: true, evidence: 'OFF' as Evidence },
    { code: 'NB2', maxInputImages: 3, maxN: 1, qualities: ['1K'], tools: false, evidence: 'INF' as Evidence, note: 'limits as NB' },
    { code: 'I4YG1', maxInputImages: 0, maxN: 4, qualities: ['1K'], tools: false, evidence: 'OFF' as Evidence },
    { code: 'I4FG1', maxInputImages: 0, maxN: 4, qualities: ['1K'], tools: false, evidence: 'OFF' as Evidence },
    { code: 'I4G1', maxInputImages: 0, maxN: 4, qualities: ['1K'], tools: false, evidence: 'INF' as Evidence, note: 'limits as I4YG1' },
  ].map((m) => [m.code, m]),
);

/** `size` is an aspect ratio from this list [OFF]; default when absent 1:1 [GUESS]. */
export const IMAGE_SIZES = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;
export const IMAGE_DEFAULT_SIZE = '1:1';
export const IMAGE_QUALITIES = ['1K', '2K', '4K'] as const;
export const IMAGE_DEFAULT_QUALITY = '1K';

/** The top-level fields of the image request [OFF Zmj5q4qb3]; anything else is ignored and recorded. */
export const IMAGE_FIELDS: readonly { name: string; evidence: Evidence }[] = [
  { name: 'model', evidence: 'OFF' },
  { name: 'messages', evidence: 'OFF' },
  { name: 'n', evidence: 'OFF' },
  { name: 'size', evidence: 'OFF' },
  { name: 'quality', evidence: 'OFF' },
  { name: 'response_modalities', evidence: 'OFF' },
  { name: 'tools', evidence: 'OFF' },
];

/**
 * Message content items: `{type:"text",text}` and `{type:"image_url",image_item:{image_url}}` (two independent
 * 3P clients agree), `{type:"image_base64",image_item:{image_base64}}` (one 3P client) [3P].
 */
export const IMAGE_CONTENT_TYPES = ['text', 'image_url', 'image_base64'] as const;

// ------------------------------------------------------------------------------------------------ output geometry

/** Pixel size of a video from its resolution label (short side) and aspect ratio. */
export function videoPixels(resolution: string, aspectRatio: string): { width: number; height: number } {
  const label = resolution.toLowerCase();
  const short = label === '4k' ? 2160 : label === '2k' ? 1440 : Number(/^(\d+)p$/.exec(label)?.[1] ?? 720);
  const [w, h] = parseRatio(aspectRatio) ?? [16, 9];
  const even = (x: number) => Math.round(x / 2) * 2;
  return w >= h ? { width: even((short * w) / h), height: short } : { width: short, height: even((short * h) / w) };
}

/** Pixel size of an image: about base² pixels (1K 1024, 2K 2048, 4K 4096) in the given ratio, multiples of 8. */
export function imagePixels(quality: string, size: string): { width: number; height: number } {
  const base = quality === '4K' ? 4096 : quality === '2K' ? 2048 : 1024;
  const [w, h] = parseRatio(size) ?? [1, 1];
  const r = Math.sqrt(w / h);
  const mult8 = (x: number) => Math.round(x / 8) * 8;
  return { width: mult8(base * r), height: mult8(base / r) };
}

export function parseRatio(value: string): [number, number] | undefined {
  const m = /^(\d+):(\d+)$/.exec(value);
  if (!m) return undefined;
  const w = Number(m[1]);
  const h = Number(m[2]);
  return w > 0 && h > 0 ? [w, h] : undefined;
}
