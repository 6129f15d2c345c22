/**
 * Platform T's models (spec 2.5 video, 2.6 image): public id → `ModelName`/`ModelVersion`, and what each accepts.
 * The limits are the official SDK's (vod_models.d.ts doc comments, quoted below) and upstreams.md "Corrections";
 * where the spec and the SDK differ, the stricter limit is kept. The simulator (sim/t/models.ts) holds its own
 * table written from the same sources, so a disagreement fails a test.
 */
import type { Capability, DurationRule, ModelEntry } from '../../core/catalogue';

/** AigcVideoTaskInput: "Prompt … 最大支持1000字符" (also NegativePrompt). */
export const T_VIDEO_PROMPT_MAX = 1000;

const VIDEO_RES = ['720P', '1080P'];

/**
 * Limits the catalogue's shape cannot say, by public id; rules.ts applies them.
 * - `lastFrameOnlyAt`: AigcVideoTaskInput.LastFrameUrl "当 ModelName 为 Kling 、ModelVersion 为 2.1 并且指定输出分辨率
 *   Resolution 为 1080P 时，才能指定该参数".
 * - `durationsAt`: durations allowed at one resolution.
 */
export interface TVideoLimits {
  lastFrameOnlyAt?: string;
  durationsAt?: { resolution: string; durations: readonly number[] };
}

export const T_VIDEO_LIMITS: Readonly<Record<string, TVideoLimits>> = {
  'VendorK-2.1': { lastFrameOnlyAt: '1080P' },
  // Not in T's SDK: MiniMax's own Hailuo docs render 1080P at 6 s only (the simulator enforces the same).
  'VendorH-2.3': { durationsAt: { resolution: '1080P', durations: [6] } },
};

/**
 * Image `quality` → OutputConfig.Resolution, per public id, in the model's own spelling (AigcImageOutputConfig:
 * "GG 2.5：1K、2K、4K … Kling 2.1：1k、2k … Hunyuan 3.0：暂不支持本字段"). `undefined`: the quality is the model's
 * default and nothing is sent. A quality missing here is refused (Kling 2.1 has no 4K, so `hd` is a 400).
 */
export const T_IMAGE_QUALITY: Readonly<Record<string, Readonly<Record<string, string | undefined>>>> = {
  'GEM-2.5': { standard: '1K', hd: '4K' },
  'GEM-3.0': { standard: '1K', hd: '4K' },
  // Hunyuan 3.0 takes no Resolution; its default output is about 1K, which is what `standard` means (spec 2.2).
  'VendorY-3.0': { standard: undefined },
  'VendorK-2.1': { standard: '1k', '2K': '2k' },
};

function video(
  id: string,
  modelName: string,
  modelVersion: string,
  durations: DurationRule,
  resolutions: readonly string[],
  ratios: readonly string[],
  capabilities: Capability[],
  evidence?: string,
): ModelEntry {
  return {
    id,
    platform: 'T',
    kind: 'video',
    upstream: { modelName, modelVersion },
    durations,
    resolutions,
    ratios,
    maxPromptLength: T_VIDEO_PROMPT_MAX,
    capabilities,
    ...(evidence ? { evidence } : {}),
  };
}

function image(
  id: string,
  modelName: string,
  modelVersion: string,
  limits: { resolutions: readonly string[]; ratios: readonly string[]; maxReferenceImages: number; maxImages?: number },
): ModelEntry {
  return {
    id,
    platform: 'T',
    kind: 'image',
    upstream: { modelName, modelVersion },
    resolutions: limits.resolutions,
    ratios: limits.ratios,
    qualities: Object.keys(T_IMAGE_QUALITY[id] ?? {}),
    maxReferenceImages: limits.maxReferenceImages,
    ...(limits.maxImages ? { maxImages: limits.maxImages } : {}),
    capabilities: ['text_to_image', 'image_to_image', ...(limits.maxImages ? (['multiple_images'] as const) : [])],
  };
}

/** AigcVideoOutputConfig.AspectRatio: "GV … 16:9、9:16"; "Kling，当文生视频时 … 16:9、9:16、1:1"; "Vidu … 其中仅版本q2支持4:3、3:4"; "Hailuo，则暂不支持". */
const GV_RATIOS = ['16:9', '9:16'];
const KLING_RATIOS = ['16:9', '9:16', '1:1'];
const VIDU_Q2_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'];
const VIDU_RATIOS = ['16:9', '9:16', '1:1'];

/** AigcImageOutputConfig.AspectRatio per model. */
const GG_IMAGE_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];
const KLING_IMAGE_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '3:2', '2:3', '21:9'];

/**
 * Sound: AigcVideoOutputConfig.AudioGeneration "支持的模型包括 GV、OS、Vidu、Jimeng、Kling" (not Hailuo).
 * Last frame: LastFrameUrl "只支持模型 GV 、Kling、Vidu … Kling 2.1 … 1080P … Vidu q2-pro、q2-turbo" — so not Kling 2.5
 * and not Vidu q2.
 */
export const T_MODELS: readonly ModelEntry[] = [
  video('GV-3.1', 'GV', '3.1', { values: [8] }, VIDEO_RES, GV_RATIOS, ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound']),
  video('GV-3.1-fast', 'GV', '3.1-fast', { values: [8] }, VIDEO_RES, GV_RATIOS, ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound']),
  video('VendorK-2.1', 'Kling', '2.1', { values: [5, 10] }, VIDEO_RES, KLING_RATIOS, ['text_to_video', 'image_to_video', 'first_last_frame', 'sound'], 'official; a last frame only at 1080P'),
  video('VendorK-2.5', 'Kling', '2.5', { values: [5, 10] }, VIDEO_RES, KLING_RATIOS, ['text_to_video', 'image_to_video', 'sound']),
  video('VendorQ-q2', 'Vidu', 'q2', { min: 1, max: 10 }, VIDEO_RES, VIDU_Q2_RATIOS, ['text_to_video', 'image_to_video', 'reference_images', 'sound']),
  video('VendorQ-q2-pro', 'Vidu', 'q2-pro', { min: 1, max: 10 }, VIDEO_RES, VIDU_RATIOS, ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound']),
  video('VendorH-2.3', 'Hailuo', '2.3', { values: [6, 10] }, ['768P', '1080P'], [], ['text_to_video', 'image_to_video'], 'official; 1080P at 6 s only from MiniMax\'s docs'),

  // FileInfos: "GG 2.5： 3张；GG 3.0：14张；Kling 2.1：4张；Hunyuan 3.0：3张". OutputImageCount: "Kling：可选值 1-9" (n is
  // capped at 4 gateway-wide, platforms/request.ts).
  image('GEM-2.5', 'GG', '2.5', { resolutions: ['1K', '2K', '4K'], ratios: GG_IMAGE_RATIOS, maxReferenceImages: 3 }),
  image('GEM-3.0', 'GG', '3.0', { resolutions: ['1K', '2K', '4K'], ratios: GG_IMAGE_RATIOS, maxReferenceImages: 14 }),
  // "Hunyuan 3.0：暂不支持本字段" (Resolution) and "Hunyuan 3.0：不支持" (AspectRatio).
  image('VendorY-3.0', 'Hunyuan', '3.0', { resolutions: [], ratios: [], maxReferenceImages: 3 }),
  image('VendorK-2.1', 'Kling', '2.1', { resolutions: ['1k', '2k'], ratios: KLING_IMAGE_RATIOS, maxReferenceImages: 4, maxImages: 4 }),
];
