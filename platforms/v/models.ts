/**
 * Platform V's models (docs/api.md "Models"), corrected against the Volcengine/BytePlus docs (docs/platforms/v.md#corrections):
 * public id → upstream model id, durations, resolutions, capabilities. The upstream ids are Volcengine Ark's;
 * they are deployment data, not a rule: BytePlus names the same models differently (`seedance-1-5-pro-251215`,
 * `dreamina-seedance-2-0-260128`), so PLATFORM_V_MODELS_FILE overrides them (V_MODELS_FILE below, platforms/models-file.ts).
 */
import { z } from 'zod';
import type { Capability, ModelRecord, UnconfirmedFact } from '../../core/catalogue';
import type { ModelsFileSpec } from '../models-file';
import { MAX_REFERENCE_ITEMS, VIDEO_RATIO_VALUES } from '../request';

/** Ark: 480p, 720p, 1080p, lower case. */
const RESOLUTIONS = ['480p', '720p', '1080p'];

/**
 * 2.0 takes reference videos and audios besides images (docs/platforms/v.md#corrections: "3 reference videos and 3
 * reference audios"): the default; a record's extras (from the models file) may say otherwise, up to the
 * gateway-wide MAX_REFERENCE_ITEMS the request schema allows (unconfirmed counts stay data an operator changes).
 */
export const V_MAX_REFERENCE_VIDEOS = 3;
export const V_MAX_REFERENCE_AUDIOS = 3;

/** What only V's rules read about a model: reference video and audio counts, where a models file set them. */
export interface VExtras {
  readonly maxReferenceVideos?: number;
  readonly maxReferenceAudios?: number;
}

/** The most reference videos and audios `record` takes. */
export function vReferenceLimits(record: ModelRecord): { videos: number; audios: number } {
  const extras = (record.extras ?? {}) as VExtras;
  return { videos: extras.maxReferenceVideos ?? V_MAX_REFERENCE_VIDEOS, audios: extras.maxReferenceAudios ?? V_MAX_REFERENCE_AUDIOS };
}

/** 2.0's first+last frame mode: no source lists it for 2.0 (docs/platforms/v.md lists the modes, not per 2.0 model). */
function noFirstLastFrame(id: string, capabilities: readonly Capability[]): UnconfirmedFact {
  return {
    id: `v.${id.replace(/^vendor-video-|-\d{6}$/g, '')}-first-last-frame`,
    fact: `${id} takes no first+last frame (\`last_frame_url\` is refused with 400)`,
    why: 'no source lists first/last frame for the 2.0 models; the gateway keeps the stricter reading',
    override: `PLATFORM_V_MODELS_FILE {"models": {"${id}": {"capabilities": ${JSON.stringify([...capabilities, 'first_last_frame'])}}}}`,
  };
}

/** What the 2.0 models take; their "unconfirmed" marks name the same lists plus first_last_frame as their override. */
const V20_CAPABILITIES: readonly Capability[] = [
  'text_to_video',
  'image_to_video',
  'reference_images',
  'reference_video',
  'reference_audio',
  'sound',
  'web_search',
  'video_editing',
];
const V20_FAST_CAPABILITIES: readonly Capability[] = ['text_to_video', 'image_to_video', 'sound'];

/**
 * `defaults.sound`: the upstream default for `generate_audio` is true (docs/platforms/v.md#corrections: "defaults to true
 * upstream on 2.0 models"; Volcengine documents the same default for 1.5-pro), while the spec's default is false:
 * the adapter sends `generate_audio` explicitly to them, false unless the client asked for sound, or every video
 * would be billed with audio. 1.5-pro makes sound upstream but the spec offers sound on 2.0 only, so it always
 * gets false.
 */
export const V_MODELS: readonly ModelRecord[] = [
  {
    id: 'vendor-video-2-0-260128',
    platform: 'V',
    kind: 'video',
    upstream: { model: 'doubao-seedance-2-0-260128' },
    durations: { min: 4, max: 15 },
    resolutions: RESOLUTIONS,
    ratios: VIDEO_RATIO_VALUES,
    maxReferenceImages: 9,
    capabilities: V20_CAPABILITIES,
    defaults: { sound: true },
    evidence: 'official; 9 images, 3 videos, 3 audios from docs/platforms/v.md#corrections',
    unconfirmed: [
      noFirstLastFrame('vendor-video-2-0-260128', V20_CAPABILITIES),
      {
        id: 'v.2-0-references',
        fact: 'vendor-video-2-0-260128 takes up to 9 reference images, 3 reference videos and 3 reference audios',
        why: 'docs/platforms/v.md#corrections (third-party reports); no official page lists the counts',
        override:
          'PLATFORM_V_MODELS_FILE {"models": {"vendor-video-2-0-260128": {"maxReferenceImages": <n>, "extras": {"maxReferenceVideos": <n>, "maxReferenceAudios": <n>}}}} (0 to 10; or drop "reference_video" / "reference_audio" from its "capabilities")',
      },
    ],
  },
  // The spec lists 1080p-capable resolutions and draft mode for 2.0-fast; no source confirms either (docs/platforms/v.md
  // Corrections: "no 1080p reported by several sources … treat 2.0-fast draft as unverified"), so both are refused.
  {
    id: 'vendor-video-2-0-fast-260128',
    platform: 'V',
    kind: 'video',
    upstream: { model: 'doubao-seedance-2-0-fast-260128' },
    durations: { min: 4, max: 12 },
    resolutions: ['480p', '720p'],
    ratios: VIDEO_RATIO_VALUES,
    capabilities: V20_FAST_CAPABILITIES,
    defaults: { sound: true },
    evidence: 'spec; no 1080p and no draft: unconfirmed upstream',
    unconfirmed: [noFirstLastFrame('vendor-video-2-0-fast-260128', V20_FAST_CAPABILITIES)],
  },
  // Draft (a 480p preview) is documented for 1.5-pro; durations 4–12 s, not the spec's 2–12.
  {
    id: 'vendor-video-1-5-pro-251215',
    platform: 'V',
    kind: 'video',
    upstream: { model: 'doubao-seedance-1-5-pro-251215' },
    durations: { min: 4, max: 12 },
    resolutions: RESOLUTIONS,
    ratios: VIDEO_RATIO_VALUES,
    capabilities: ['text_to_video', 'image_to_video', 'first_last_frame', 'draft', 'flex'],
    defaults: { sound: true },
    evidence: 'official; 4–12 s and draft from docs/platforms/v.md#corrections',
  },
  {
    id: 'vendor-video-1-0-pro-250528',
    platform: 'V',
    kind: 'video',
    upstream: { model: 'doubao-seedance-1-0-pro-250528' },
    durations: { min: 2, max: 12 },
    resolutions: RESOLUTIONS,
    ratios: VIDEO_RATIO_VALUES,
    capabilities: ['text_to_video', 'image_to_video', 'flex'],
  },
  // "text-to-video and first frame only (no first/last frame)".
  {
    id: 'vendor-video-1-0-pro-fast-251015',
    platform: 'V',
    kind: 'video',
    upstream: { model: 'doubao-seedance-1-0-pro-fast-251015' },
    durations: { min: 2, max: 12 },
    resolutions: RESOLUTIONS,
    ratios: VIDEO_RATIO_VALUES,
    capabilities: ['text_to_video', 'image_to_video', 'flex'],
    evidence: 'official; no first/last frame from docs/platforms/v.md#corrections',
  },
  {
    id: 'vendor-video-1-0-lite-i2v-250428',
    platform: 'V',
    kind: 'video',
    upstream: { model: 'doubao-seedance-1-0-lite-i2v-250428' },
    durations: { min: 2, max: 12 },
    resolutions: RESOLUTIONS,
    ratios: VIDEO_RATIO_VALUES,
    maxReferenceImages: 4,
    capabilities: ['image_to_video', 'first_last_frame', 'reference_images', 'flex'],
  },
  {
    id: 'vendor-video-1-0-lite-t2v-250428',
    platform: 'V',
    kind: 'video',
    upstream: { model: 'doubao-seedance-1-0-lite-t2v-250428' },
    durations: { min: 2, max: 12 },
    resolutions: RESOLUTIONS,
    ratios: VIDEO_RATIO_VALUES,
    capabilities: ['text_to_video', 'flex'],
  },
];

/** An Ark model or endpoint id (`doubao-seedance-…`, `dreamina-…`, `ep-2025…`). */
const arkModelId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be a model or endpoint id of letters, digits, dots, dashes and underscores');

/**
 * PLATFORM_V_MODELS_FILE (platforms/models-file.ts): `upstream` is `{model}`, an Ark model or endpoint id;
 * `extras` may set (or clear, null) `maxReferenceVideos` and `maxReferenceAudios` (VExtras). The
 * file's first form, `{ "<public id>": "<upstream id>" | null }` (every key a model id, no "models" key), is still
 * read: it means `{ "models": { "<public id>": { "upstream": { "model": "<upstream id>" } } | null } }`.
 */
export const V_MODELS_FILE: ModelsFileSpec = {
  variable: 'PLATFORM_V_MODELS_FILE',
  platformName: 'platform V',
  upstream: z.strictObject({ model: arkModelId }),
  extras: z.strictObject({
    maxReferenceVideos: z.number().int().min(0).max(MAX_REFERENCE_ITEMS).nullable().optional(),
    maxReferenceAudios: z.number().int().min(0).max(MAX_REFERENCE_ITEMS).nullable().optional(),
  }),
  olderForm: (json) => {
    if (typeof json !== 'object' || json === null || Array.isArray(json) || 'models' in json) return undefined;
    return {
      models: Object.fromEntries(Object.entries(json).map(([id, v]) => [id, typeof v === 'string' ? { upstream: { model: v } } : v])),
    };
  },
};
