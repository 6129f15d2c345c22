/** Platform B's models (spec 2.5 video by series, 2.6 image). */
import type { Capability, DurationRule, ModelEntry } from '../../core/catalogue';
import { VIDEO_RATIO_VALUES } from '../request';

const IMAGE_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '21:9'] as const;

/** Platform B video series: the spec says support differs per model; these are the series' envelopes. */
const SERIES: Record<string, { durations: DurationRule; resolutions: string[]; capabilities: Capability[] }> = {
  V: { durations: { min: 1, max: 10 }, resolutions: ['360p', '540p', '720p', '1080P'], capabilities: ['text_to_video', 'image_to_video', 'sound'] },
  P: { durations: { values: [5, 8, 10] }, resolutions: ['360p', '540p', '720p', '1080P'], capabilities: ['text_to_video', 'image_to_video', 'sound'] },
  K: { durations: { values: [5, 10] }, resolutions: ['720p', '1080P'], capabilities: ['text_to_video', 'image_to_video', 'sound'] },
  H: { durations: { values: [6, 10] }, resolutions: ['768P', '1080P'], capabilities: ['text_to_video', 'image_to_video'] },
  VE: { durations: { values: [4, 6, 8] }, resolutions: ['720p', '1080P'], capabilities: ['text_to_video', 'image_to_video', 'sound'] },
};

function series(name: keyof typeof SERIES, ids: string[]): ModelEntry[] {
  const s = SERIES[name]!;
  return ids.map((id) => ({
    id,
    platform: 'B',
    kind: 'video',
    upstream: { model: id },
    durations: s.durations,
    resolutions: s.resolutions,
    ratios: VIDEO_RATIO_VALUES,
    capabilities: s.capabilities,
  }));
}

function image(id: string): ModelEntry {
  return {
    id,
    platform: 'B',
    kind: 'image',
    upstream: { model: id },
    ratios: IMAGE_RATIOS,
    qualities: ['standard', 'hd', '2K'],
    maxImages: 4,
    capabilities: ['text_to_image', 'multiple_images'],
  };
}

export const B_MODELS: readonly ModelEntry[] = [
  ...series('V', ['V20', 'VQ1', 'VQ1C', 'VQ2', 'VQ2T', 'VQ2P', 'VQ2PF', 'VQ3P', 'VQ3T']),
  ...series('P', ['P35', 'P40', 'P45', 'P50', 'P55']),
  ...series('K', ['K16', 'K20', 'K21', 'K21M', 'K25T', 'K26', 'KO1']),
  ...series('H', ['H20', 'H23', 'H23F']),
  ...series('VE', ['VE3.1', 'VE3.1F', 'VE3.1P', 'VE3.1FP']),
  ...['NB', 'NBP', 'NB2', 'I4YG1', 'I4FG1', 'I4G1'].map(image),
];
