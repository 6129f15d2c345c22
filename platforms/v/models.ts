/** Platform V's models (spec 2.5): public id → upstream model id, durations, resolutions, capabilities. */
import type { Capability, DurationRule, ModelEntry } from '../../core/catalogue';
import { VIDEO_RATIO_VALUES } from '../request';

/** Platform V restores the brand part of the public id upstream (upstreams.md). */
const upstreamId = (id: string): string => id.replace(/^vendor-/, 'doubao-seedance-').replace('-video-', '-');

function model(id: string, durations: DurationRule, capabilities: Capability[]): ModelEntry {
  return {
    id,
    platform: 'V',
    kind: 'video',
    upstream: { model: upstreamId(id) },
    durations,
    resolutions: ['480p', '720p', '1080p'],
    ratios: VIDEO_RATIO_VALUES,
    capabilities,
  };
}

export const V_MODELS: readonly ModelEntry[] = [
  model('vendor-video-2-0-260128', { min: 4, max: 15 }, [
    'text_to_video', 'image_to_video', 'reference_images', 'reference_video', 'reference_audio', 'sound', 'web_search', 'video_editing',
  ]),
  model('vendor-video-2-0-fast-260128', { min: 4, max: 12 }, ['text_to_video', 'image_to_video', 'sound', 'draft']),
  model('vendor-video-1-5-pro-251215', { min: 2, max: 12 }, ['text_to_video', 'image_to_video', 'first_last_frame']),
  model('vendor-video-1-0-pro-250528', { min: 2, max: 12 }, ['text_to_video', 'image_to_video']),
  model('vendor-video-1-0-pro-fast-251015', { min: 2, max: 12 }, ['text_to_video', 'image_to_video', 'first_last_frame']),
  model('vendor-video-1-0-lite-i2v-250428', { min: 2, max: 12 }, ['image_to_video', 'first_last_frame', 'reference_images']),
  model('vendor-video-1-0-lite-t2v-250428', { min: 2, max: 12 }, ['text_to_video']),
];
