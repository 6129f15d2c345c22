/**
 * Platform T's AIGC models and their limits, as the simulator knows them. Written from the doc comments of the
 * official SDK (tencentcloud-sdk-nodejs-vod 4.1.287, tencentcloud-sdk-nodejs-vod/tencentcloud/services/vod/v20180717/vod_models.d.ts — "SDK" below) and docs/platforms/t.md
 * "Corrections"; every entry says where its figures come from, and anything not from those sources is marked
 * GUESS with the reason. Values are matched exactly, letter case included (the SDK writes Kling video `720P` but
 * Kling image `1k`, Vidu image `1080p`, PixVerse `540p`…).
 *
 * Where the SDK documents a limit per ModelName only, every version of that name gets it. Where it is silent
 * (e.g. Hunyuan/Mingmou video durations), the value is accepted as sent: the simulator refuses only what a
 * source says the platform refuses.
 */

export type DurationRule = { set: readonly number[] } | { min: number; max: number; integer: boolean };

export interface TVideoModel {
  name: string;
  version: string;
  /** undefined: no documented limit, any number accepted. */
  durations?: DurationRule;
  /** undefined: no documented list, any string accepted. */
  resolutions?: readonly string[];
  /** null: the model takes no AspectRatio at all; undefined: no documented list. */
  aspectRatios?: readonly string[] | null;
  /** AudioGeneration `Enabled` accepted. */
  audio: boolean;
  /** How a last frame (LastFrameUrl / FileInfos Usage LastFrame) is accepted. */
  lastFrame: 'no' | 'yes' | 'only-1080P';
  /** Text-only requests (no input image) accepted. */
  textToVideo: boolean;
  /** Reference images (Usage Reference): 0 = refused, undefined = accepted, no documented maximum. */
  maxReferenceImages?: number;
  /** FileInfos of Category Video accepted ("视频编辑：Vidu、Kling可输入视频进行编辑"). */
  videoInput: boolean;
  /** A model-specific rule on the output config; returns the refusal reason. */
  extraRule?: (oc: { Duration?: number; Resolution?: string }) => string | undefined;
  source: string;
}

export interface TImageModel {
  name: string;
  version: string;
  /** null: the field is not supported ("暂不支持本字段"). */
  resolutions: readonly string[] | null;
  aspectRatios: readonly string[] | null;
  /** Maximum FileInfos (reference images); undefined: none documented. */
  maxFileInfos?: number;
  /** OutputImageCount range; undefined: the field has no effect on this model ("其他模型不生效"). */
  maxOutputImages?: number;
  source: string;
}

const SDK = 'SDK 4.1.287 AigcVideoOutputConfig/CreateAigcVideoTaskRequest/AigcVideoTaskInput comments';
const SDK_IMG = 'SDK 4.1.287 AigcImageOutputConfig/CreateAigcImageTaskRequest comments';

// ---------------------------------------------------------------- video

const KLING_RATIOS = ['16:9', '9:16', '1:1'];
const VIDU_RATIOS = ['16:9', '9:16', '1:1'];
/** "其中仅版本q2支持4:3、3:4". */
const VIDU_Q2_RATIOS = ['16:9', '9:16', '4:3', '3:4', '1:1'];

function kling(version: string): TVideoModel {
  const long = version === '3.0' || version === '3.0-Omni';
  return {
    name: 'Kling',
    version,
    // SDK 4.1.287 says "Kling 3-15" for the whole name; the earlier SDK/doc text (still in the other SDKs) is
    // per version: "Kling 5、10；Kling 并且 ModelVersion 为 3.0 或 3.0-Omni，可选值为 3-15". The stricter,
    // version-specific reading is kept (docs/platforms/t.md: the stricter limit is the safe one).
    durations: long ? { min: 3, max: 15, integer: true } : { set: [5, 10] },
    resolutions: ['720P', '1080P'],
    aspectRatios: KLING_RATIOS,
    // SDK: "是否生成音频。支持的模型包括 GV、OS、Vidu、Jimeng、Kling" (per name).
    audio: true,
    // AigcVideoTaskInput.LastFrameUrl: "当 ModelName 为 Kling 、ModelVersion 为 2.1 并且指定输出分辨率 Resolution 为 1080P 时，才能指定该参数".
    lastFrame: version === '2.1' ? 'only-1080P' : 'no',
    textToVideo: true,
    videoInput: true,
    source: `${SDK}; durations per version from the earlier SDK text (see above)`,
  };
}

function hailuo(version: string): TVideoModel {
  return {
    name: 'Hailuo',
    version,
    durations: { set: [6, 10] },
    resolutions: ['768P', '1080P'],
    // "当 ModelName 是 Hailuo，则暂不支持" (AspectRatio).
    aspectRatios: null,
    audio: false,
    lastFrame: 'no',
    // GUESS (vendor docs, not the SDK): MiniMax's Hailuo 2.3-Fast is image-to-video only.
    textToVideo: version !== '2.3-fast',
    // GUESS: MiniMax's subject reference is a separate model (S2V-01); Hailuo itself takes a first frame only.
    maxReferenceImages: 0,
    videoInput: false,
    // GUESS (vendor docs, not the SDK): MiniMax Hailuo renders 1080P at 6 s only.
    extraRule: (oc) =>
      version !== 'H3' && oc.Resolution === '1080P' && oc.Duration !== undefined && oc.Duration !== 6
        ? 'Hailuo renders 1080P at 6 seconds only'
        : undefined,
    source: `${SDK}; 1080P=6 s and 2.3-fast image-only from MiniMax's docs (GUESS)`,
  };
}

function vidu(version: string): TVideoModel {
  return {
    name: 'Vidu',
    version,
    // "当 ModelName 是 Vidu，可指定1-10" — whole seconds (GUESS: integer).
    durations: { min: 1, max: 10, integer: true },
    resolutions: ['720P', '1080P'],
    aspectRatios: version === 'q2' ? VIDU_Q2_RATIOS : VIDU_RATIOS,
    audio: true,
    // "当 ModelName 为 Vidu、ModelVersion 为 q2-pro、q2-turbo 时，才能指定该参数".
    lastFrame: version === 'q2-pro' || version === 'q2-turbo' ? 'yes' : 'no',
    textToVideo: true,
    videoInput: true,
    source: SDK,
  };
}

function gv(version: string): TVideoModel {
  return {
    name: 'GV',
    version,
    durations: { set: [8] },
    resolutions: ['720P', '1080P'],
    // docs/platforms/t.md#corrections: "GV AspectRatio only 16:9 and 9:16".
    aspectRatios: ['16:9', '9:16'],
    audio: true,
    // "当 ModelName 为 GV 时，如果指定该参数，则需同时指定 FileInfos 作为待生成视频的首帧".
    lastFrame: 'yes',
    textToVideo: true,
    videoInput: false,
    source: SDK,
  };
}

function os(version: string): TVideoModel {
  return {
    name: 'OS',
    version,
    durations: { set: [4, 8, 12] },
    resolutions: ['720P'],
    aspectRatios: ['16:9', '9:16'],
    audio: true,
    lastFrame: 'no',
    textToVideo: true,
    // GUESS: the OS model takes one input image, as a first frame only.
    maxReferenceImages: 0,
    videoInput: false,
    source: SDK,
  };
}

function pixverse(version: string): TVideoModel {
  return {
    name: 'PixVerse',
    version,
    durations: { min: 1, max: 15, integer: true },
    resolutions: ['540p', '720p', '1080p', '2k', '4k'],
    aspectRatios: ['16:9', '4:3', '1:1', '3:4', '9:16', '2:3', '3:2', '21:9'],
    // Not in the SDK's AudioGeneration list (GV, OS, Vidu, Jimeng, Kling).
    audio: false,
    lastFrame: 'no',
    textToVideo: true,
    videoInput: false,
    source: SDK,
  };
}

/** Hunyuan and Mingmou video: the SDK names the versions and documents no output limits. */
function undocumented(name: string, version: string): TVideoModel {
  return {
    name,
    version,
    audio: false,
    lastFrame: 'no',
    textToVideo: true,
    videoInput: false,
    source: `${SDK} (versions only; no limits documented)`,
  };
}

/** The SDK's ModelName/ModelVersion list for CreateAigcVideoTask. The spec's models are GV 3.1/3.1-fast, Kling 2.1/2.5, Vidu q2/q2-pro, Hailuo 2.3. */
export const T_VIDEO_MODELS: readonly TVideoModel[] = [
  ...['02', '2.3', '2.3-fast', 'H3'].map(hailuo),
  ...['1.6', '2.0', '2.1', '2.5', '2.6', 'O1', '3.0', '3.0-Omni'].map(kling),
  ...['q2', 'q2-pro', 'q2-turbo', 'q3', 'q3-pro', 'q3-turbo'].map(vidu),
  ...['3.1', '3.1-fast'].map(gv),
  os('2.0'),
  undocumented('Hunyuan', '1.5'),
  undocumented('Mingmou', '1.0'),
  ...['v5.6', 'v6', 'c1'].map(pixverse),
];

// ---------------------------------------------------------------- image

const GG_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];
const KLING_IMAGE_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '3:2', '2:3', '21:9'];

/** The SDK's ModelName/ModelVersion list for CreateAigcImageTask, with its per-model Resolution/AspectRatio/FileInfos/OutputImageCount comments. */
export const T_IMAGE_MODELS: readonly TImageModel[] = [
  { name: 'GG', version: '2.5', resolutions: ['1K', '2K', '4K'], aspectRatios: GG_RATIOS, maxFileInfos: 3, source: SDK_IMG },
  { name: 'GG', version: '3.0', resolutions: ['1K', '2K', '4K'], aspectRatios: GG_RATIOS, maxFileInfos: 14, source: SDK_IMG },
  {
    name: 'GG',
    version: '3.1',
    resolutions: ['720P', '1K', '2K', '4K'],
    aspectRatios: ['1:1', '1:4', '1:8', '2:3', '3:2', '3:4', '4:1', '4:3', '4:5', '5:4', '8:1', '9:16', '16:9', '21:9'],
    maxFileInfos: 14,
    source: SDK_IMG,
  },
  // "Hunyuan 3.0：暂不支持本字段，可通过ExtInfo字段设置分辨率" (Resolution) and "Hunyuan 3.0：不支持" (AspectRatio).
  { name: 'Hunyuan', version: '3.0', resolutions: null, aspectRatios: null, maxFileInfos: 3, source: SDK_IMG },
  // Kling image resolutions are lower-case in the SDK: "Kling 2.1：1k、2k，默认1k".
  {
    name: 'Kling',
    version: '2.1',
    resolutions: ['1k', '2k'],
    aspectRatios: KLING_IMAGE_RATIOS,
    maxFileInfos: 4,
    maxOutputImages: 9,
    source: SDK_IMG,
  },
  {
    name: 'Kling',
    version: '3.0',
    resolutions: ['1k', '2k'],
    aspectRatios: KLING_IMAGE_RATIOS,
    maxFileInfos: 1,
    maxOutputImages: 9,
    source: SDK_IMG,
  },
  {
    name: 'Kling',
    version: '3.0-Omni',
    resolutions: ['1k', '2k', '4k'],
    aspectRatios: [...KLING_IMAGE_RATIOS, 'auto'],
    maxFileInfos: 10,
    maxOutputImages: 9,
    source: SDK_IMG,
  },
  {
    name: 'Kling',
    version: 'O1',
    resolutions: ['1k', '2k', '4k'],
    aspectRatios: [...KLING_IMAGE_RATIOS, 'auto'],
    maxFileInfos: 10,
    maxOutputImages: 9,
    source: SDK_IMG,
  },
  {
    name: 'Vidu',
    version: 'q2',
    resolutions: ['1080p', '2K', '4K'],
    aspectRatios: ['16:9', '9:16', '1:1', '3:4', '4:3', '21:9', '2:3', '3:2'],
    maxFileInfos: 7,
    source: SDK_IMG,
  },
  ...['image2_low', 'image2_medium', 'image2_high'].map((version): TImageModel => ({
    name: 'OG',
    version,
    resolutions: ['1K', '2K', '4K'],
    aspectRatios: ['1:1', '3:2', '2:3', '3:4', '4:3', '16:9', '9:16', '21:9', '9:21'],
    maxOutputImages: 8,
    source: `${SDK_IMG} (no FileInfos maximum documented)`,
  })),
];

export function findVideoModel(name: string, version: string): TVideoModel | undefined {
  return T_VIDEO_MODELS.find((m) => m.name === name && m.version === version);
}

export function findImageModel(name: string, version: string): TImageModel | undefined {
  return T_IMAGE_MODELS.find((m) => m.name === name && m.version === version);
}

export function describeDurations(rule: DurationRule): string {
  return 'set' in rule ? rule.set.join(', ') : `${rule.min} to ${rule.max}${rule.integer ? ' (whole seconds)' : ''}`;
}

export function durationAllowed(rule: DurationRule, value: number): boolean {
  if ('set' in rule) return rule.set.includes(value);
  return value >= rule.min && value <= rule.max && (!rule.integer || Number.isInteger(value));
}

/** The default output duration per name (SDK: "默认为 5 / 6 / 8"), used for the task's usage figure. */
export function defaultDuration(model: TVideoModel): number {
  if (model.name === 'Hailuo') return 6;
  if (model.name === 'GV' || model.name === 'OS') return 8;
  return 5;
}
