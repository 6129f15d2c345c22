/**
 * The shape of what the gateway knows about platform B's models, each fact tagged with how sure it is. Public
 * sources leave much of B's per-model protocol uncertain (docs/platforms/b.md#fields), so these
 * facts are data: the defaults (models.ts) and an operator's corrections (PLATFORM_B_MODELS_FILE,
 * models-file.ts) share this shape, and the catalogue entries, the request rules and the wire mapping all read it.
 */
import type { DurationRule } from '../../core/catalogue';

/**
 * How sure a fact is (the shared page's tags): OFF official VOD doc text; OFF-frag a fragment of an official page;
 * OFF-Qianfan official Qianfan doc for the same vendor model (a vendor range, not confirmed for VOD); 3P third-party
 * code that calls VOD; INF inference; GUESS no evidence; OPERATOR set by the operator's models file.
 */
export const EVIDENCE = ['OFF', 'OFF-frag', 'OFF-Qianfan', '3P', 'INF', 'GUESS', 'OPERATOR'] as const;
export type Evidence = (typeof EVIDENCE)[number];

export interface Tagged<T> {
  readonly value: T;
  readonly evidence: Evidence;
  readonly note?: string;
}

export const VIDEO_ENDPOINTS = ['text_to_video', 'image_to_video'] as const;
export type VideoEndpoint = (typeof VIDEO_ENDPOINTS)[number];

export const FAMILIES = ['vidu', 'pixverse', 'kling', 'hailuo', 'veo'] as const;
export type Family = (typeof FAMILIES)[number];

/**
 * What a TaskInput field carries, whatever its name for a family. Values are written as: `prompt`,
 * `negativePrompt` strings; `duration` an integer; `resolution`, `aspectRatio` strings (through `values` if
 * given); `audio`, `bgm` booleans (or `values["true"|"false"]`); `firstFrame`, `lastFrame` `{imageUrl}`;
 * `firstLastFrames` `{headImage: {imageUrl}, tailImage: {imageUrl}}` (Vidu's first+last mode, instead of a first
 * frame); `referenceImages` a list of `{imageUrl}` (one image as a bare object when `single`); `seed` an unsigned
 * 32-bit integer the gateway derives from the submit's dedup key (no request field sets it), so the job a lost
 * answer created is recognised exactly by its echoed request (lost-answer.ts).
 */
export const ROLES = [
  'prompt',
  'negativePrompt',
  'duration',
  'resolution',
  'aspectRatio',
  'audio',
  'bgm',
  'firstFrame',
  'lastFrame',
  'firstLastFrames',
  'referenceImages',
  'seed',
] as const;
export type Role = (typeof ROLES)[number];

export type Scalar = string | number | boolean;

export interface FieldSpec {
  /** The key inside `model{CODE}TaskInput`. */
  readonly name: string;
  readonly evidence: Evidence;
  /** Only these endpoints' TaskInput types have the field (default: both). */
  readonly endpoints?: readonly VideoEndpoint[];
  /** The platform's value for each of ours (e.g. Kling's `mode` from a resolution); absent: sent as is. */
  readonly values?: Readonly<Record<string, Scalar>>;
  /** `referenceImages` only: one image is sent as an object, not a one-item list. */
  readonly single?: boolean;
  readonly note?: string;
}

/** A field sent with every create (as an official or 3P example does), whatever the request says. */
export interface ConstantSpec {
  readonly value: Scalar;
  readonly evidence: Evidence;
  readonly endpoints?: readonly VideoEndpoint[];
  readonly note?: string;
}

export interface FamilySpec {
  readonly label: string;
  readonly fields: Readonly<Partial<Record<Role, FieldSpec>>>;
  readonly constants: Readonly<Record<string, ConstantSpec>>;
  /** Input image file types the family accepts (lower-case extensions); absent: not documented. */
  readonly imageFormats?: Tagged<readonly string[]>;
}

export interface VideoModelSpec {
  readonly code: string;
  readonly family: Family;
  /** The endpoints that list the model, each with the longest prompt its doc allows (characters). */
  readonly endpoints: Readonly<Partial<Record<VideoEndpoint, Tagged<number>>>>;
  readonly durations: Tagged<DurationRule>;
  /** In the platform's letter case; requests are matched case-insensitively. */
  readonly resolutions: Tagged<readonly string[]>;
  /** Aspect ratios the model takes (a subset of the spec's video ratios); empty: none. */
  readonly aspectRatios: Tagged<readonly string[]>;
  readonly maxReferenceImages?: Tagged<number>;
  /** This model's own fields, over the family's (null: the model lacks the family's field). */
  readonly fields?: Readonly<Partial<Record<Role, FieldSpec | null>>>;
}

export const IMAGE_QUALITIES = ['1K', '2K', '4K'] as const;
export type ImageQuality = (typeof IMAGE_QUALITIES)[number];

export interface ImageModelSpec {
  readonly code: string;
  /** Largest `n`. */
  readonly maxImages: Tagged<number>;
  readonly qualities: Tagged<readonly ImageQuality[]>;
  /** Input images for image-to-image; 0: text-to-image only. */
  readonly maxReferenceImages: Tagged<number>;
  /** `size` values: aspect ratios. */
  readonly sizes: Tagged<readonly string[]>;
}

export interface BModelsData {
  readonly families: Readonly<Record<Family, FamilySpec>>;
  readonly video: readonly VideoModelSpec[];
  readonly image: readonly ImageModelSpec[];
  /** The image request's message format (content items). */
  readonly imageMessage: Tagged<string>;
}

/** A video model with its family's fields and constants merged in: what the rules and the wire mapping read. */
export interface BVideoModel {
  readonly kind: 'video';
  readonly code: string;
  readonly family: Family;
  readonly familyLabel: string;
  readonly endpoints: Readonly<Partial<Record<VideoEndpoint, Tagged<number>>>>;
  readonly durations: Tagged<DurationRule>;
  readonly resolutions: Tagged<readonly string[]>;
  readonly aspectRatios: Tagged<readonly string[]>;
  readonly maxReferenceImages?: Tagged<number>;
  readonly fields: Readonly<Partial<Record<Role, FieldSpec>>>;
  readonly constants: Readonly<Record<string, ConstantSpec>>;
  readonly imageFormats?: Tagged<readonly string[]>;
}

export interface BImageModel extends ImageModelSpec {
  readonly kind: 'image';
  readonly imageMessage: Tagged<string>;
}

export type BModel = BVideoModel | BImageModel;

/** The TaskInput object's key: `model{CODE}TaskInput` [OFF], the dot dropped (`VE3.1` → `modelVE31TaskInput` [3P]). */
export function taskInputKey(code: string): string {
  return `model${code.replace(/\./g, '')}TaskInput`;
}

/** The model's field for `role` on `endpoint`, if its TaskInput type has one. */
export function fieldFor(model: BVideoModel, role: Role, endpoint: VideoEndpoint): FieldSpec | undefined {
  const spec = model.fields[role];
  return spec && (!spec.endpoints || spec.endpoints.includes(endpoint)) ? spec : undefined;
}
