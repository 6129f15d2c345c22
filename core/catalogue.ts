/**
 * The model catalogue: every model of spec 2.5 (video) and 2.6 (image) as data.
 *
 * One entry drives both `GET /v1/models` and request validation, so adding a model is one entry here.
 * Upstream identifiers are defaults: platforms rename models (T renamed its image family GEM → GG in 2026),
 * so `MODEL_CATALOGUE_OVERRIDES` (see core/config.ts) may replace them without a code change.
 *
 * No I/O: workflows may import this file.
 */
import type { Kind, Platform } from './platforms';

/** What a model can do; request validation checks the request against this list. */
export type Capability =
  | 'text_to_video'
  | 'image_to_video'
  | 'first_last_frame'
  | 'reference_images'
  | 'reference_video'
  | 'reference_audio'
  | 'sound'
  | 'draft'
  | 'web_search'
  | 'video_editing'
  | 'text_to_image'
  | 'image_to_image'
  | 'multiple_images';

/** Allowed durations in seconds: an inclusive integer range or a list of discrete values. */
export type DurationRule = { readonly min: number; readonly max: number } | { readonly values: readonly number[] };

export interface UpstreamModelId {
  /** Platforms V and B: the model identifier sent upstream. */
  readonly model?: string;
  /** Platform T: `ModelName` and `ModelVersion`. */
  readonly modelName?: string;
  readonly modelVersion?: string;
}

export interface ModelEntry {
  /** Public id, exactly as the spec names it. */
  readonly id: string;
  readonly platform: Platform;
  readonly kind: Kind;
  readonly upstream: UpstreamModelId;
  /** Video only. */
  readonly durations?: DurationRule;
  /** Resolutions in the letter case the platform expects; requests are matched case-insensitively. */
  readonly resolutions?: readonly string[];
  /** Aspect ratios (video `ratio`, image `size` after conversion). */
  readonly ratios: readonly string[];
  /** Image `quality` values accepted by this model (`standard`, `hd`, and `2K` on platform B). */
  readonly qualities?: readonly string[];
  /** Largest `n` (image models that return several images). */
  readonly maxImages?: number;
  readonly capabilities: readonly Capability[];
}

export const VIDEO_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;
const IMAGE_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '21:9'] as const;

/** Platform V restores the brand part of the public id upstream (upstreams.md). */
const vModel = (id: string): string => id.replace(/^vendor-/, 'doubao-seedance-').replace('-video-', '-');

function platformV(id: string, durations: DurationRule, capabilities: Capability[]): ModelEntry {
  return {
    id,
    platform: 'V',
    kind: 'video',
    upstream: { model: vModel(id) },
    durations,
    resolutions: ['480p', '720p', '1080p'],
    ratios: VIDEO_RATIOS,
    capabilities,
  };
}

function platformTVideo(
  id: string,
  modelName: string,
  modelVersion: string,
  durations: DurationRule,
  resolutions: string[],
  capabilities: Capability[],
): ModelEntry {
  return {
    id,
    platform: 'T',
    kind: 'video',
    upstream: { modelName, modelVersion },
    durations,
    resolutions,
    ratios: VIDEO_RATIOS,
    capabilities,
  };
}

function platformTImage(id: string, modelName: string, modelVersion: string): ModelEntry {
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

/** Platform B video series: the spec says support differs per model; these are the series' envelopes. */
const B_SERIES: Record<string, { durations: DurationRule; resolutions: string[]; capabilities: Capability[] }> = {
  V: {
    durations: { min: 1, max: 10 },
    resolutions: ['360p', '540p', '720p', '1080P'],
    capabilities: ['text_to_video', 'image_to_video', 'sound'],
  },
  P: {
    durations: { values: [5, 8, 10] },
    resolutions: ['360p', '540p', '720p', '1080P'],
    capabilities: ['text_to_video', 'image_to_video', 'sound'],
  },
  K: {
    durations: { values: [5, 10] },
    resolutions: ['720p', '1080P'],
    capabilities: ['text_to_video', 'image_to_video', 'sound'],
  },
  H: {
    durations: { values: [6, 10] },
    resolutions: ['768P', '1080P'],
    capabilities: ['text_to_video', 'image_to_video'],
  },
  VE: {
    durations: { values: [4, 6, 8] },
    resolutions: ['720p', '1080P'],
    capabilities: ['text_to_video', 'image_to_video', 'sound'],
  },
};

function platformBVideo(series: keyof typeof B_SERIES, ids: string[]): ModelEntry[] {
  const s = B_SERIES[series]!;
  return ids.map((id) => ({
    id,
    platform: 'B' as const,
    kind: 'video' as const,
    upstream: { model: id },
    durations: s.durations,
    resolutions: s.resolutions,
    ratios: VIDEO_RATIOS,
    capabilities: s.capabilities,
  }));
}

function platformBImage(id: string): ModelEntry {
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

const T_VIDEO_RES = ['720P', '1080P'];

export const DEFAULT_CATALOGUE: readonly ModelEntry[] = [
  // Platform T video (spec 2.5)
  platformTVideo('GV-3.1', 'GV', '3.1', { values: [8] }, T_VIDEO_RES, [
    'text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound',
  ]),
  platformTVideo('GV-3.1-fast', 'GV', '3.1-fast', { values: [8] }, T_VIDEO_RES, [
    'text_to_video', 'image_to_video', 'first_last_frame', 'reference_images', 'sound',
  ]),
  platformTVideo('VendorK-2.1', 'Kling', '2.1', { values: [5, 10] }, T_VIDEO_RES, [
    'text_to_video', 'image_to_video', 'first_last_frame',
  ]),
  platformTVideo('VendorK-2.5', 'Kling', '2.5', { values: [5, 10] }, T_VIDEO_RES, [
    'text_to_video', 'image_to_video', 'first_last_frame',
  ]),
  platformTVideo('VendorQ-q2', 'Vidu', 'q2', { min: 1, max: 10 }, T_VIDEO_RES, [
    'text_to_video', 'image_to_video', 'first_last_frame', 'reference_images',
  ]),
  platformTVideo('VendorQ-q2-pro', 'Vidu', 'q2-pro', { min: 1, max: 10 }, T_VIDEO_RES, [
    'text_to_video', 'image_to_video', 'first_last_frame', 'reference_images',
  ]),
  platformTVideo('VendorH-2.3', 'Hailuo', '2.3', { values: [6, 10] }, ['768P', '1080P'], [
    'text_to_video', 'image_to_video',
  ]),

  // Platform B video (spec 2.5, by series)
  ...platformBVideo('V', ['V20', 'VQ1', 'VQ1C', 'VQ2', 'VQ2T', 'VQ2P', 'VQ2PF', 'VQ3P', 'VQ3T']),
  ...platformBVideo('P', ['P35', 'P40', 'P45', 'P50', 'P55']),
  ...platformBVideo('K', ['K16', 'K20', 'K21', 'K21M', 'K25T', 'K26', 'KO1']),
  ...platformBVideo('H', ['H20', 'H23', 'H23F']),
  ...platformBVideo('VE', ['VE3.1', 'VE3.1F', 'VE3.1P', 'VE3.1FP']),

  // Platform V video (spec 2.5)
  platformV('vendor-video-2-0-260128', { min: 4, max: 15 }, [
    'text_to_video', 'image_to_video', 'reference_images', 'reference_video', 'reference_audio', 'sound',
    'web_search', 'video_editing',
  ]),
  platformV('vendor-video-2-0-fast-260128', { min: 4, max: 12 }, [
    'text_to_video', 'image_to_video', 'sound', 'draft',
  ]),
  platformV('vendor-video-1-5-pro-251215', { min: 2, max: 12 }, [
    'text_to_video', 'image_to_video', 'first_last_frame',
  ]),
  platformV('vendor-video-1-0-pro-250528', { min: 2, max: 12 }, ['text_to_video', 'image_to_video']),
  platformV('vendor-video-1-0-pro-fast-251015', { min: 2, max: 12 }, [
    'text_to_video', 'image_to_video', 'first_last_frame',
  ]),
  platformV('vendor-video-1-0-lite-i2v-250428', { min: 2, max: 12 }, [
    'image_to_video', 'first_last_frame', 'reference_images',
  ]),
  platformV('vendor-video-1-0-lite-t2v-250428', { min: 2, max: 12 }, ['text_to_video']),

  // Platform T image (spec 2.6)
  platformTImage('GEM-2.5', 'GG', '2.5'),
  platformTImage('GEM-3.0', 'GG', '3.0'),
  platformTImage('VendorY-3.0', 'Hunyuan', '3.0'),
  platformTImage('VendorK-2.1', 'Kling', '2.1'),

  // Platform B image (spec 2.6)
  ...['NB', 'NBP', 'NB2', 'I4YG1', 'I4FG1', 'I4G1'].map(platformBImage),
];

/** A catalogue indexed by kind and public id; a model in both tables (`VendorK-2.1`) resolves by endpoint. */
export class Catalogue {
  private readonly byKind: Record<Kind, Map<string, ModelEntry>> = { video: new Map(), image: new Map() };

  constructor(readonly entries: readonly ModelEntry[]) {
    for (const e of entries) this.byKind[e.kind].set(e.id, e);
  }

  find(kind: Kind, id: string): ModelEntry | undefined {
    return this.byKind[kind].get(id);
  }

  /** Only models whose platform is enabled (configured or simulated) are available. */
  available(enabled: ReadonlySet<Platform>): ModelEntry[] {
    return this.entries.filter((e) => enabled.has(e.platform));
  }

  withUpstreamOverrides(overrides: Record<string, UpstreamModelId>): Catalogue {
    return new Catalogue(
      this.entries.map((e) => {
        const o = overrides[`${e.kind}:${e.id}`] ?? overrides[e.id];
        return o ? { ...e, upstream: { ...e.upstream, ...o } } : e;
      }),
    );
  }
}

export function durationAllowed(rule: DurationRule, seconds: number): boolean {
  if (!Number.isInteger(seconds)) return false;
  return 'values' in rule ? rule.values.includes(seconds) : seconds >= rule.min && seconds <= rule.max;
}

export function describeDurations(rule: DurationRule): string {
  return 'values' in rule ? rule.values.map((v) => `${v}`).join(' or ') + ' seconds' : `${rule.min} to ${rule.max} seconds`;
}

export const defaultCatalogue = new Catalogue(DEFAULT_CATALOGUE);
