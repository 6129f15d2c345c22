/**
 * Platform T's models (docs/api.md "Models"): public id → `ModelName`/`ModelVersion`, and what each accepts.
 * The limits are the official SDK's (the doc comments of its types, platforms/t/wire-types.ts, quoted below) and docs/platforms/t.md#corrections;
 * where the spec and the SDK differ, the stricter limit is kept. The simulator (sim/t/models.ts) holds its own
 * table written from the same sources, so a disagreement fails a test.
 */
import { z } from 'zod';
import type { Capability, ModelRecord, UnconfirmedFact } from '../../core/catalogue';
import { mergeExtras, ModelsFileError, type ModelsFileSpec } from '../models-file';

/** AigcVideoTaskInput: "Prompt … 最大支持1000字符" (also NegativePrompt). */
export const T_VIDEO_PROMPT_MAX = 1000;

/**
 * What only T's rules and wire mapping read about a model.
 * - `lastFrameOnlyAt` (video): AigcVideoTaskInput.LastFrameUrl "当 ModelName 为 Kling 、ModelVersion 为 2.1 并且指定输出
 *   分辨率 Resolution 为 1080P 时，才能指定该参数".
 * - `durationsAt` (video): durations allowed at one resolution.
 * - `imageQuality` (image): `quality` → OutputConfig.Resolution in the model's own spelling (AigcImageOutputConfig:
 *   "GG 2.5：1K、2K、4K … Kling 2.1：1k、2k … Hunyuan 3.0：暂不支持本字段"); null: the quality is the model's default
 *   and nothing is sent. A quality missing here is refused (Kling 2.1 has no 4K, so `hd` is a 400); the record's
 *   `qualities` are this map's keys.
 */
export interface TExtras {
  readonly lastFrameOnlyAt?: string;
  readonly durationsAt?: { readonly resolution: string; readonly durations: readonly number[] };
  readonly imageQuality?: Readonly<Record<string, string | null>>;
}

export type TModelRecord = ModelRecord<TExtras>;

/** CreateAigcVideoTask's list of ModelName and ModelVersion values: where a T video model's name and version are official. */
const T_VIDEO_MODEL_LIST = 'T: CreateAigcVideoTask ModelName/ModelVersion, https://cloud.tencent.com/document/api/266/126239';

/** The evidence that T offers a video model: its ModelName and ModelVersion, as the official list names them [OFF]. */
export function tListedVideoModel(name: string, version: string): string {
  return `ModelName ${name}, ModelVersion ${version} [OFF] (${T_VIDEO_MODEL_LIST})`;
}

/** The T extras of a record (a T record without extras has none of T's special limits). */
export function tExtrasOf(record: ModelRecord): TExtras {
  return (record.extras ?? {}) as TExtras;
}

const VIDEO_RES = ['720P', '1080P'];

/** AigcVideoOutputConfig.AspectRatio: "GV … 16:9、9:16"; "Kling，当文生视频时 … 16:9、9:16、1:1"; "Vidu … 其中仅版本q2支持4:3、3:4"; "Hailuo，则暂不支持". */
const GV_RATIOS = ['16:9', '9:16'];
const KLING_RATIOS = ['16:9', '9:16', '1:1'];
const VIDU_Q2_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'];
const VIDU_RATIOS = ['16:9', '9:16', '1:1'];

/** AigcImageOutputConfig.AspectRatio per model. */
const GG_IMAGE_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];
const KLING_IMAGE_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '3:2', '2:3', '21:9'];

const GG_QUALITY = { standard: '1K', hd: '4K' };
// "Kling 2.1：1k、2k" (no 4K, so `hd` is refused); Hunyuan 3.0 takes no Resolution: `standard` is its default output.
const KLING_IMAGE_QUALITY = { standard: '1k', '2K': '2k' };
const HUNYUAN_QUALITY = { standard: null };
const KLING_21_CAPABILITIES: readonly Capability[] = ['text_to_video', 'image_to_video', 'first_last_frame', 'sound'];
const KLING_25_CAPABILITIES: readonly Capability[] = ['text_to_video', 'image_to_video', 'sound'];

/** Kling's sound by version: AudioGeneration names "Kling" without a version (docs/platforms/t.md, facts no source confirms). */
/** Kling's sound is unconfirmed per version: its override is the record's capabilities without `sound`. */
function klingSound(version: string, capabilities: readonly Capability[]): UnconfirmedFact {
  const withoutSound = capabilities.filter((c) => c !== 'sound');
  return {
    id: `t.kling-${version}-sound`,
    fact: `VendorK-${version} (Kling ${version}) makes sound: \`generate_audio: true\` is sent as AudioGeneration=Enabled`,
    why: 'AigcVideoOutputConfig.AudioGeneration lists "Kling" without naming a version',
    override: `PLATFORM_T_MODELS_FILE {"models": {"video:VendorK-${version}": {"capabilities": ${JSON.stringify(withoutSound)}}}} (generate_audio: true then refused with 400)`,
  };
}

/**
 * Sound: AigcVideoOutputConfig.AudioGeneration "支持的模型包括 GV、OS、Vidu、Jimeng、Kling" (not Hailuo).
 * Last frame: LastFrameUrl "只支持模型 GV 、Kling、Vidu … Kling 2.1 … 1080P … Vidu q2-pro、q2-turbo" — so not Kling 2.5
 * and not Vidu q2. Images: FileInfos "GG 2.5： 3张；GG 3.0：14张；Kling 2.1：4张；Hunyuan 3.0：3张"; OutputImageCount
 * "Kling：可选值 1-9" (n is capped at 4 gateway-wide, platforms/request.ts).
 */
export const T_MODELS: readonly TModelRecord[] = [
  {
    id: 'GV-3.1',
    platform: 'T',
    kind: 'video',
    upstream: { modelName: 'GV', modelVersion: '3.1' },
    durations: { values: [8] },
    resolutions: VIDEO_RES,
    ratios: GV_RATIOS,
    maxPromptLength: T_VIDEO_PROMPT_MAX,
    capabilities: ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound'],
  },
  {
    id: 'GV-3.1-fast',
    platform: 'T',
    kind: 'video',
    upstream: { modelName: 'GV', modelVersion: '3.1-fast' },
    durations: { values: [8] },
    resolutions: VIDEO_RES,
    ratios: GV_RATIOS,
    maxPromptLength: T_VIDEO_PROMPT_MAX,
    capabilities: ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound'],
  },
  {
    id: 'VendorK-2.1',
    platform: 'T',
    kind: 'video',
    upstream: { modelName: 'Kling', modelVersion: '2.1' },
    durations: { values: [5, 10] },
    resolutions: VIDEO_RES,
    ratios: KLING_RATIOS,
    maxPromptLength: T_VIDEO_PROMPT_MAX,
    capabilities: KLING_21_CAPABILITIES,
    evidence: 'official; a last frame only at 1080P',
    unconfirmed: [klingSound('2.1', KLING_21_CAPABILITIES)],
    extras: { lastFrameOnlyAt: '1080P' },
  },
  {
    id: 'VendorK-2.5',
    platform: 'T',
    kind: 'video',
    upstream: { modelName: 'Kling', modelVersion: '2.5' },
    durations: { values: [5, 10] },
    resolutions: VIDEO_RES,
    ratios: KLING_RATIOS,
    maxPromptLength: T_VIDEO_PROMPT_MAX,
    capabilities: KLING_25_CAPABILITIES,
    unconfirmed: [klingSound('2.5', KLING_25_CAPABILITIES)],
  },
  {
    id: 'VendorQ-q2',
    platform: 'T',
    kind: 'video',
    upstream: { modelName: 'Vidu', modelVersion: 'q2' },
    durations: { min: 1, max: 10 },
    resolutions: VIDEO_RES,
    ratios: VIDU_Q2_RATIOS,
    maxPromptLength: T_VIDEO_PROMPT_MAX,
    capabilities: ['text_to_video', 'image_to_video', 'reference_images', 'sound'],
  },
  {
    id: 'VendorQ-q2-pro',
    platform: 'T',
    kind: 'video',
    upstream: { modelName: 'Vidu', modelVersion: 'q2-pro' },
    durations: { min: 1, max: 10 },
    resolutions: VIDEO_RES,
    ratios: VIDU_RATIOS,
    maxPromptLength: T_VIDEO_PROMPT_MAX,
    capabilities: ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound'],
  },
  {
    id: 'VendorH-2.3',
    platform: 'T',
    kind: 'video',
    upstream: { modelName: 'Hailuo', modelVersion: '2.3' },
    durations: { values: [6, 10] },
    resolutions: ['768P', '1080P'],
    ratios: [],
    maxPromptLength: T_VIDEO_PROMPT_MAX,
    capabilities: ['text_to_video', 'image_to_video'],
    evidence: "official; 1080P at 6 s only from MiniMax's docs",
    // Not in T's SDK: MiniMax's own Hailuo docs render 1080P at 6 s only (the simulator enforces the same).
    extras: { durationsAt: { resolution: '1080P', durations: [6] } },
  },

  {
    id: 'GEM-2.5',
    platform: 'T',
    kind: 'image',
    upstream: { modelName: 'GG', modelVersion: '2.5' },
    resolutions: ['1K', '2K', '4K'],
    ratios: GG_IMAGE_RATIOS,
    qualities: Object.keys(GG_QUALITY),
    maxReferenceImages: 3,
    capabilities: ['text_to_image', 'image_to_image'],
    extras: { imageQuality: GG_QUALITY },
  },
  {
    id: 'GEM-3.0',
    platform: 'T',
    kind: 'image',
    upstream: { modelName: 'GG', modelVersion: '3.0' },
    resolutions: ['1K', '2K', '4K'],
    ratios: GG_IMAGE_RATIOS,
    qualities: Object.keys(GG_QUALITY),
    maxReferenceImages: 14,
    capabilities: ['text_to_image', 'image_to_image'],
    extras: { imageQuality: GG_QUALITY },
  },
  {
    id: 'VendorY-3.0',
    platform: 'T',
    kind: 'image',
    upstream: { modelName: 'Hunyuan', modelVersion: '3.0' },
    // "Hunyuan 3.0：暂不支持本字段" (Resolution) and "Hunyuan 3.0：不支持" (AspectRatio).
    resolutions: [],
    ratios: [],
    qualities: Object.keys(HUNYUAN_QUALITY),
    maxReferenceImages: 3,
    capabilities: ['text_to_image', 'image_to_image'],
    // Hunyuan 3.0 takes no Resolution; its default output is about 1K, which is what `standard` means (docs/api.md "Image requests").
    extras: { imageQuality: HUNYUAN_QUALITY },
  },
  {
    id: 'VendorK-2.1',
    platform: 'T',
    kind: 'image',
    upstream: { modelName: 'Kling', modelVersion: '2.1' },
    resolutions: ['1k', '2k'],
    ratios: KLING_IMAGE_RATIOS,
    qualities: Object.keys(KLING_IMAGE_QUALITY),
    maxImages: 4,
    maxReferenceImages: 4,
    capabilities: ['text_to_image', 'image_to_image', 'multiple_images'],
    extras: { imageQuality: KLING_IMAGE_QUALITY },
  },
];

const tExtrasOverride = z.strictObject({
  lastFrameOnlyAt: z.string().min(1).max(16).nullable().optional(),
  durationsAt: z
    .strictObject({ resolution: z.string().min(1).max(16), durations: z.array(z.number().int().positive()).min(1) })
    .nullable()
    .optional(),
  imageQuality: z.record(z.string().min(1).max(16), z.string().min(1).max(16).nullable()).optional(),
});

/** `ModelName` / `ModelVersion` as T spells them ("Kling", "3.1-fast"). */
const tUpstreamName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
  message: 'must be a T model name or version of letters, digits, dots, dashes and underscores',
});

/**
 * PLATFORM_T_MODELS_FILE (platforms/models-file.ts): `upstream` is `{modelName, modelVersion}`; `extras` may set
 * or clear (null) `lastFrameOnlyAt` and `durationsAt`, and set `imageQuality`, which also makes the record's
 * `qualities` its keys.
 */
export const T_MODELS_FILE: ModelsFileSpec<TExtras, z.infer<typeof tExtrasOverride>> = {
  variable: 'PLATFORM_T_MODELS_FILE',
  platformName: 'platform T',
  upstream: z.strictObject({ modelName: tUpstreamName, modelVersion: tUpstreamName }),
  extras: tExtrasOverride,
  applyExtras: (record, extras) => {
    const wrongKind =
      record.kind === 'video'
        ? (['imageQuality'] as const).find((k) => k in extras)
        : (['lastFrameOnlyAt', 'durationsAt'] as const).find((k) => k in extras);
    if (wrongKind)
      throw new ModelsFileError(
        wrongKind,
        `${record.id} is ${record.kind === 'video' ? 'a video' : 'an image'} model, which has no ${wrongKind}`,
      );
    const merged = mergeExtras(record, extras);
    return extras.imageQuality ? { ...merged, qualities: Object.keys(extras.imageQuality) } : merged;
  },
};
