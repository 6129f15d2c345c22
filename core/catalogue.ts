/**
 * The model catalogue's shape: what the gateway knows about one model (spec 2.5 video, 2.6 image), and the
 * catalogue assembled from every platform's entries (platforms/index.ts). One entry drives both
 * `GET /v1/models` and request validation, so adding a model is one entry in its platform's folder.
 *
 * No I/O and no platform knowledge: workflows may import this file.
 */
import type { Kind } from './task';

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

/** How the platform names the model; each platform's adapter reads the fields it uses. */
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
  /** The platform's id in the registry (platforms/index.ts). */
  readonly platform: string;
  readonly kind: Kind;
  readonly upstream: UpstreamModelId;
  /** Video only. */
  readonly durations?: DurationRule;
  /** Resolutions in the letter case the platform expects; requests are matched case-insensitively. */
  readonly resolutions?: readonly string[];
  /** Aspect ratios (video `ratio`, image `size` after conversion); empty when the model takes none. */
  readonly ratios: readonly string[];
  /** Image `quality` values accepted by this model. */
  readonly qualities?: readonly string[];
  /** Largest `n` (image models that return several images). */
  readonly maxImages?: number;
  /** Longest prompt the model takes, in characters (below the gateway-wide MAX_PROMPT_LENGTH). */
  readonly maxPromptLength?: number;
  /** Most reference images the model takes in one request. */
  readonly maxReferenceImages?: number;
  readonly capabilities: readonly Capability[];
  /**
   * Where the entry's facts come from, for operators and docs/api.md: e.g. "official docs" or "durations
   * inferred from the vendor's own API". Absent: the spec and the platform's official documentation.
   */
  readonly evidence?: string;
}

/** A catalogue indexed by kind and public id; a model in both tables (`VendorK-2.1`) resolves by endpoint. */
export class Catalogue {
  private readonly byKind: Record<Kind, Map<string, ModelEntry>> = { video: new Map(), image: new Map() };

  constructor(readonly entries: readonly ModelEntry[]) {
    for (const e of entries) {
      if (this.byKind[e.kind].has(e.id)) throw new Error(`catalogue: ${e.kind} model ${e.id} is listed twice`);
      this.byKind[e.kind].set(e.id, e);
    }
  }

  find(kind: Kind, id: string): ModelEntry | undefined {
    return this.byKind[kind].get(id);
  }

  /** Only models whose platform is enabled are available. */
  available(enabled: ReadonlySet<string>): ModelEntry[] {
    return this.entries.filter((e) => enabled.has(e.platform));
  }
}

export function durationAllowed(rule: DurationRule, seconds: number): boolean {
  if (!Number.isInteger(seconds)) return false;
  return 'values' in rule ? rule.values.includes(seconds) : seconds >= rule.min && seconds <= rule.max;
}

export function describeDurations(rule: DurationRule): string {
  return 'values' in rule ? rule.values.map((v) => `${v}`).join(' or ') + ' seconds' : `${rule.min} to ${rule.max} seconds`;
}
