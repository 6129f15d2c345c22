/**
 * Platform V's models (spec 2.5), corrected against the Volcengine/BytePlus docs (upstreams.md "Corrections"):
 * public id → upstream model id, durations, resolutions, capabilities. The upstream ids are Volcengine Ark's;
 * they are deployment data, not a rule: BytePlus names the same models differently (`seedance-1-5-pro-251215`,
 * `dreamina-seedance-2-0-260128`), so PLATFORM_V_MODELS_FILE overrides them (models-file.ts).
 */
import type { Capability, DurationRule, ModelEntry } from '../../core/catalogue';
import { VIDEO_RATIO_VALUES } from '../request';

/** Ark: 480p, 720p, 1080p, lower case. */
const RESOLUTIONS = ['480p', '720p', '1080p'];

/** 2.0 takes reference videos and audios besides images (upstreams.md Corrections: "3 reference videos and 3 reference audios"). */
export const V_MAX_REFERENCE_VIDEOS = 3;
export const V_MAX_REFERENCE_AUDIOS = 3;

function model(
  id: string,
  upstream: string,
  durations: DurationRule,
  capabilities: Capability[],
  extra: { resolutions?: readonly string[]; maxReferenceImages?: number; evidence?: string } = {},
): ModelEntry {
  return {
    id,
    platform: 'V',
    kind: 'video',
    upstream: { model: upstream },
    durations,
    resolutions: extra.resolutions ?? RESOLUTIONS,
    ratios: VIDEO_RATIO_VALUES,
    capabilities,
    ...(extra.maxReferenceImages !== undefined ? { maxReferenceImages: extra.maxReferenceImages } : {}),
    ...(extra.evidence ? { evidence: extra.evidence } : {}),
  };
}

export const V_MODELS: readonly ModelEntry[] = [
  model(
    'vendor-video-2-0-260128',
    'doubao-seedance-2-0-260128',
    { min: 4, max: 15 },
    ['text_to_video', 'image_to_video', 'reference_images', 'reference_video', 'reference_audio', 'sound', 'web_search', 'video_editing'],
    { maxReferenceImages: 9, evidence: 'official; 9 images, 3 videos, 3 audios from upstreams.md Corrections' },
  ),
  // The spec lists 1080p-capable resolutions and draft mode for 2.0-fast; no source confirms either (upstreams.md
  // Corrections: "no 1080p reported by several sources … treat 2.0-fast draft as unverified"), so both are refused.
  model('vendor-video-2-0-fast-260128', 'doubao-seedance-2-0-fast-260128', { min: 4, max: 12 }, ['text_to_video', 'image_to_video', 'sound'], {
    resolutions: ['480p', '720p'],
    evidence: 'spec; no 1080p and no draft: unconfirmed upstream',
  }),
  // Draft (a 480p preview) is documented for 1.5-pro; durations 4–12 s, not the spec's 2–12.
  model('vendor-video-1-5-pro-251215', 'doubao-seedance-1-5-pro-251215', { min: 4, max: 12 }, ['text_to_video', 'image_to_video', 'first_last_frame', 'draft'], {
    evidence: 'official; 4–12 s and draft from upstreams.md Corrections',
  }),
  model('vendor-video-1-0-pro-250528', 'doubao-seedance-1-0-pro-250528', { min: 2, max: 12 }, ['text_to_video', 'image_to_video']),
  // "text-to-video and first frame only (no first/last frame)".
  model('vendor-video-1-0-pro-fast-251015', 'doubao-seedance-1-0-pro-fast-251015', { min: 2, max: 12 }, ['text_to_video', 'image_to_video'], {
    evidence: 'official; no first/last frame from upstreams.md Corrections',
  }),
  model('vendor-video-1-0-lite-i2v-250428', 'doubao-seedance-1-0-lite-i2v-250428', { min: 2, max: 12 }, ['image_to_video', 'first_last_frame', 'reference_images'], {
    maxReferenceImages: 4,
  }),
  model('vendor-video-1-0-lite-t2v-250428', 'doubao-seedance-1-0-lite-t2v-250428', { min: 2, max: 12 }, ['text_to_video']),
];

/**
 * Models whose upstream default for `generate_audio` is true (upstreams.md Corrections: "defaults to true upstream
 * on 2.0 models"; Volcengine documents the same default for 1.5-pro), while the spec's default is false: the
 * adapter sends `generate_audio` explicitly to them, false unless the client asked for sound, or every video
 * would be billed with audio. 1.5-pro makes sound upstream but the spec offers sound on 2.0 only, so it always
 * gets false.
 */
export const V_AUDIO_DEFAULT_ON: ReadonlySet<string> = new Set(['vendor-video-2-0-260128', 'vendor-video-2-0-fast-260128', 'vendor-video-1-5-pro-251215']);
