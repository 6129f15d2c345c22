/** Platform T's models (spec 2.5 video, 2.6 image): public id → `ModelName`/`ModelVersion`, limits, capabilities. */
import type { Capability, DurationRule, ModelEntry } from '../../core/catalogue';
import { VIDEO_RATIO_VALUES } from '../request';

const IMAGE_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '21:9'] as const;
const VIDEO_RES = ['720P', '1080P'];

function video(id: string, modelName: string, modelVersion: string, durations: DurationRule, resolutions: string[], capabilities: Capability[]): ModelEntry {
  return { id, platform: 'T', kind: 'video', upstream: { modelName, modelVersion }, durations, resolutions, ratios: VIDEO_RATIO_VALUES, capabilities };
}

function image(id: string, modelName: string, modelVersion: string): ModelEntry {
  return {
    id,
    platform: 'T',
    kind: 'image',
    upstream: { modelName, modelVersion },
    ratios: IMAGE_RATIOS,
    qualities: ['standard', 'hd'],
    capabilities: ['text_to_image', 'image_to_image'],
  };
}

export const T_MODELS: readonly ModelEntry[] = [
  video('GV-3.1', 'GV', '3.1', { values: [8] }, VIDEO_RES, ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound']),
  video('GV-3.1-fast', 'GV', '3.1-fast', { values: [8] }, VIDEO_RES, ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound']),
  video('VendorK-2.1', 'Kling', '2.1', { values: [5, 10] }, VIDEO_RES, ['text_to_video', 'image_to_video', 'first_last_frame']),
  video('VendorK-2.5', 'Kling', '2.5', { values: [5, 10] }, VIDEO_RES, ['text_to_video', 'image_to_video', 'first_last_frame']),
  video('VendorQ-q2', 'Vidu', 'q2', { min: 1, max: 10 }, VIDEO_RES, ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images']),
  video('VendorQ-q2-pro', 'Vidu', 'q2-pro', { min: 1, max: 10 }, VIDEO_RES, ['text_to_video', 'image_to_video', 'first_last_frame', 'reference_images']),
  video('VendorH-2.3', 'Hailuo', '2.3', { values: [6, 10] }, ['768P', '1080P'], ['text_to_video', 'image_to_video']),

  image('GEM-2.5', 'GG', '2.5'),
  image('GEM-3.0', 'GG', '3.0'),
  image('VendorY-3.0', 'Hunyuan', '3.0'),
  image('VendorK-2.1', 'Kling', '2.1'),
];
