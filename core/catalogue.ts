/**
 * The model catalogue's shape: what the gateway knows about one model (docs/api.md "Models") as one record
 * with named fields, the same type for every platform, and the catalogue assembled from every platform's records
 * (platforms/index.ts). One record drives `GET /v1/models`, request validation and the wire, so adding a model is
 * one record in its platform's models.ts; an operator's models file (platforms/models-file.ts) overrides any field.
 *
 * No I/O and no platform knowledge: workflows may import this file.
 */
import type { Kind } from './task';

/** What a model can do; request validation checks the request against this list. */
export const CAPABILITIES = [
  'text_to_video',
  'image_to_video',
  'first_last_frame',
  'reference_images',
  'reference_video',
  'reference_audio',
  'sound',
  'draft',
  /** Platform V's offline tier (`service_tier: "flex"`): a job run within a deadline at a lower price. */
  'flex',
  'web_search',
  'video_editing',
  'text_to_image',
  'image_to_image',
  'multiple_images',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

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

/** What the upstream does when a request leaves a choice open, where that differs from the spec's default. */
export interface ModelDefaults {
  /**
   * The upstream makes sound unless told not to. The spec's default is no sound, so an adapter sends its sound
   * switch explicitly to such a model (platform V: `generate_audio`), or every video would be billed with audio.
   */
  readonly sound?: boolean;
}

/**
 * A fact the gateway relies on that no public source confirms: it stays data, is listed in
 * docs/api.md's "unconfirmed with a real account" table, is checked by the conformance run
 * (scripts/conformance.ts) where a real account can settle it, and names the setting or models-file entry that
 * changes it without a code change. Model facts sit on their record; facts about a platform's protocol
 * (settings rather than model data) on its PlatformDefinition.
 */
export interface UnconfirmedFact {
  /** Stable id, e.g. `t.kling-2.1-sound`: the conformance run's assumption of the same id checks it. */
  readonly id: string;
  /** What the gateway assumes, as a sentence. */
  readonly fact: string;
  /** Why no source settles it. */
  readonly why: string;
  /** What to change when a real account disagrees: a setting or a models-file entry. */
  readonly override: string;
}

/**
 * One model as the gateway knows it. The common fields are what validation, `GET /v1/models` and the docs read;
 * `extras` holds what only the model's platform reads (its rules and wire mapping), typed by that platform.
 */
export interface ModelRecord<Extras = unknown> {
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
  /** Upstream defaults the adapter must counter (absent: the upstream defaults match the spec's). */
  readonly defaults?: ModelDefaults;
  /**
   * Where the record's facts come from, for operators and docs/api.md: e.g. "official docs" or "durations
   * inferred from the vendor's own API". Absent: the spec and the platform's official documentation.
   */
  readonly evidence?: string;
  /** Facts of this record no public source confirms (docs/api.md "Unconfirmed with a real account"). */
  readonly unconfirmed?: readonly UnconfirmedFact[];
  /** What only the platform reads (e.g. T's quality → Resolution map, B's TaskInput field names). */
  readonly extras?: Extras;
}

/** A catalogue indexed by kind and public id; a model in both tables (`VendorK-2.1`) resolves by endpoint. */
export class Catalogue {
  private readonly byKind: Record<Kind, Map<string, ModelRecord>> = { video: new Map(), image: new Map() };

  constructor(readonly entries: readonly ModelRecord[]) {
    for (const e of entries) {
      if (this.byKind[e.kind].has(e.id)) throw new Error(`catalogue: ${e.kind} model ${e.id} is listed twice`);
      this.byKind[e.kind].set(e.id, e);
    }
  }

  find(kind: Kind, id: string): ModelRecord | undefined {
    return this.byKind[kind].get(id);
  }

  /** Only models whose platform is enabled are available. */
  available(enabled: ReadonlySet<string>): ModelRecord[] {
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
