/**
 * The operator's models file, one mechanism for every platform: `PLATFORM_<X>_MODELS_FILE` names a JSON file
 * that overrides the platform's model records (core/catalogue.ts) without a code change, e.g. BytePlus's upstream
 * ids on V, a duration a vendor added on T, a TaskInput field name checked against a real account on B. The API
 * (which validates and lists) and the worker (which sends) both read it at start, so they follow the same records;
 * anything wrong in it is a start-up ConfigError naming the variable and the entry.
 *
 *   {
 *     "models": {
 *       "GV-3.1": { "durations": [4, 8], "evidence": "vendor release notes 2026-11" },
 *       "video:VendorK-2.1": { "extras": { "lastFrameOnlyAt": null } },
 *       "VendorH-2.3": null
 *     },
 *     "platform": { … }
 *   }
 *
 * Each key is a public model id (`video:<id>` / `image:<id>` for one kind of an id offered for both); null
 * withdraws the model from this deployment. An entry sets any common field — `upstream`, `durations` (a list, or
 * `{min, max}`), `resolutions`, `ratios`, `qualities`, `maxImages`, `maxPromptLength`, `maxReferenceImages`,
 * `capabilities`, `defaults` (`{"sound": true}`), `evidence` — replacing the record's value wholesale; `extras`
 * goes to the platform's own schema (e.g. T's quality → Resolution map). A platform whose facts interlock
 * (B: capabilities follow from TaskInput fields) rebuilds its records from the parsed file itself, and may take
 * a file-wide `platform` part and limit which common fields it takes. A platform may also keep reading an older
 * form of its file (V's `{ "<id>": "<upstream id>" | null }`, B's `{ families, models }`), rewritten into this one.
 * `sizes` is not set by the file: it follows from `ratios` (the size table of docs/api.md "Image requests").
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CAPABILITIES, type DurationRule, type ModelRecord, type UpstreamModelId } from '../core/catalogue';
import { configError, optionalString, parseEnv } from '../core/config';
import type { Kind } from '../core/task';

/** A mistake in a models file, at `path` inside it (e.g. `models.GV-3.1.durations`). */
export class ModelsFileError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(path ? `${path}: ${detail}` : detail);
  }
}

/** The first issue of a zod error, as a ModelsFileError at `prefix` + the issue's path. */
export function modelsFileIssue(error: z.ZodError, prefix: string): ModelsFileError {
  const issue = error.issues[0]!;
  return new ModelsFileError([prefix, ...issue.path.map(String)].filter(Boolean).join('.'), issue.message);
}

/** Parses `value` with `schema`, or throws a ModelsFileError at `path`. */
export function parseModelsFilePart<S extends z.ZodType>(schema: S, value: unknown, path: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw modelsFileIssue(r.error, path);
  return r.data;
}

const durationsSchema = z.union([
  z
    .array(z.number().int().positive())
    .min(1)
    .transform((values): DurationRule => ({ values })),
  z.strictObject({ values: z.array(z.number().int().positive()).min(1) }),
  z
    .strictObject({ min: z.number().int().positive(), max: z.number().int().positive() })
    .refine((r) => r.min <= r.max, { message: 'min must not exceed max' }),
]);

/** The fields of a record an entry may set, with what each may hold. */
export const COMMON_OVERRIDES = {
  durations: durationsSchema,
  resolutions: z.array(z.string().min(1).max(16)).min(1),
  ratios: z.array(z.string().regex(/^\d{1,2}:\d{1,2}$/, { message: 'must be an aspect ratio like 16:9' })),
  qualities: z.array(z.string().min(1).max(16)).min(1),
  /** n is capped at 4 gateway-wide (platforms/request.ts). */
  maxImages: z.number().int().min(1).max(4),
  maxPromptLength: z.number().int().positive().max(100_000),
  maxReferenceImages: z.number().int().min(0).max(20),
  capabilities: z.array(z.enum(CAPABILITIES)),
  defaults: z.strictObject({ sound: z.boolean().optional() }),
  evidence: z.string().min(1).max(300),
} as const;
export type CommonOverrideField = keyof typeof COMMON_OVERRIDES | 'upstream';

/** Fields that only one kind of model has. */
const KIND_ONLY: Partial<Record<CommonOverrideField, Kind>> = { durations: 'video', qualities: 'image', maxImages: 'image' };

/** One entry of the file, parsed: the common fields it sets and its platform extras (unparsed if none). */
export interface ModelOverride<ExtrasOverride = unknown> {
  readonly upstream?: UpstreamModelId;
  readonly durations?: DurationRule;
  readonly resolutions?: readonly string[];
  readonly ratios?: readonly string[];
  readonly qualities?: readonly string[];
  readonly maxImages?: number;
  readonly maxPromptLength?: number;
  readonly maxReferenceImages?: number;
  readonly capabilities?: ModelRecord['capabilities'];
  readonly defaults?: ModelRecord['defaults'];
  readonly evidence?: string;
  readonly extras?: ExtrasOverride;
}

/** The parsed file: entries by key (null: withdrawn), and the platform's file-wide part. */
export interface ParsedModelsFile<ExtrasOverride = unknown, PlatformOverride = unknown> {
  readonly models: ReadonlyMap<string, ModelOverride<ExtrasOverride> | null>;
  readonly platform?: PlatformOverride;
}

/** What a platform tells the shared mechanism about its models file. */
export interface ModelsFileSpec<Extras = unknown, ExtrasOverride = unknown, PlatformOverride = unknown> {
  /** `PLATFORM_<X>_MODELS_FILE`. */
  readonly variable: string;
  /** How messages name the platform ("platform T"). */
  readonly platformName: string;
  /** What `upstream` may hold on this platform; absent: the upstream id is not the file's to set. */
  readonly upstream?: z.ZodType<UpstreamModelId>;
  /** What `extras` may hold; absent: the platform takes none. */
  readonly extras?: z.ZodType<ExtrasOverride>;
  /** What the file-wide `platform` part may hold; absent: none. */
  readonly platform?: z.ZodType<PlatformOverride>;
  /** The common fields the platform takes (default: all); the others are derived from its extras. */
  readonly commonFields?: readonly CommonOverrideField[];
  /** An older form of the file the platform still reads, rewritten into this one; undefined: not that form. */
  readonly olderForm?: (json: unknown) => unknown;
  /**
   * The record after its entry's common fields were applied, with the entry's extras (default: the extras'
   * keys replace the record's, null removing one). Throws ModelsFileError for a combination it cannot carry.
   */
  readonly applyExtras?: (record: ModelRecord<Extras>, extras: ExtrasOverride) => ModelRecord<Extras>;
  /**
   * For a platform whose facts interlock: its records rebuilt from the parsed file (withdrawn models are dropped
   * afterwards). When given, the common fields and extras are not applied record by record.
   */
  readonly rebuild?: (file: ParsedModelsFile<ExtrasOverride, PlatformOverride>) => readonly ModelRecord<Extras>[];
}

/** The platform's models-file variable as a public configuration slice (never a secret). */
export function modelsFileEnv<V extends string>(variable: V) {
  return z.object({ [variable]: optionalString } as Record<V, typeof optionalString>);
}

const keyOf = (record: ModelRecord) => [record.id, `${record.kind}:${record.id}`];

/** Parses the file's JSON (after any older form is rewritten) against the platform's records. */
export function parseModelsFile<E, X, P>(
  json: unknown,
  records: readonly ModelRecord<E>[],
  spec: ModelsFileSpec<E, X, P>,
): ParsedModelsFile<X, P> {
  const rewritten = spec.olderForm?.(json) ?? json;
  const top = parseModelsFilePart(
    z.strictObject({
      models: z.record(z.string(), z.unknown()).optional(),
      ...(spec.platform ? { platform: z.unknown().optional() } : {}),
    }),
    rewritten,
    '',
  );
  const allowed = new Set<CommonOverrideField>(
    spec.commonFields ?? [...(Object.keys(COMMON_OVERRIDES) as CommonOverrideField[]), 'upstream'],
  );
  const shape: Record<string, z.ZodType> = {};
  for (const [field, schema] of Object.entries(COMMON_OVERRIDES))
    if (allowed.has(field as CommonOverrideField)) shape[field] = schema.optional();
  if (spec.upstream && allowed.has('upstream')) shape.upstream = spec.upstream.optional();
  if (spec.extras) shape.extras = spec.extras.optional();
  const entrySchema = z.strictObject(shape).nullable();

  const known = new Map<string, ModelRecord<E>[]>();
  for (const r of records) for (const key of keyOf(r)) known.set(key, [...(known.get(key) ?? []), r]);
  const models = new Map<string, ModelOverride<X> | null>();
  for (const [key, raw] of Object.entries(top.models ?? {})) {
    const path = `models.${key}`;
    const targets = known.get(key);
    if (!targets)
      throw new ModelsFileError(
        path,
        `not a ${spec.platformName} model; the models are ${[...new Set(records.map((r) => r.id))].join(', ')}`,
      );
    const entry = parseModelsFilePart(entrySchema, raw, path) as ModelOverride<X> | null;
    for (const [field, kind] of Object.entries(KIND_ONLY)) {
      const wrong = targets.find((t) => t.kind !== kind);
      if (entry && field in entry && wrong)
        throw new ModelsFileError(
          `${path}.${field}`,
          `${wrong.id} is ${wrong.kind === 'image' ? 'an image' : 'a video'} model, which has no ${field}${targets.length > 1 ? `; name one kind with "${kind}:${wrong.id}"` : ''}`,
        );
    }
    models.set(key, entry);
  }
  const platform = spec.platform && top.platform !== undefined ? parseModelsFilePart(spec.platform, top.platform, 'platform') : undefined;
  return { models, ...(platform !== undefined ? { platform } : {}) };
}

/** The default way to apply an entry's extras: its keys replace the record's, null removing one. */
export function mergeExtras<E>(record: ModelRecord<E>, extras: unknown): ModelRecord<E> {
  const merged: Record<string, unknown> = { ...(record.extras ?? {}) };
  for (const [k, v] of Object.entries(extras as Record<string, unknown>)) {
    if (v === null) delete merged[k];
    else if (v !== undefined) merged[k] = v;
  }
  return { ...record, extras: merged as E };
}

/** Applies a parsed file to the platform's records: overrides, then withdrawals. */
export function applyModelsFile<E, X, P>(
  records: readonly ModelRecord<E>[],
  file: ParsedModelsFile<X, P>,
  spec: ModelsFileSpec<E, X, P>,
): ModelRecord<E>[] {
  const entriesFor = (r: ModelRecord<E>) =>
    keyOf(r).flatMap((key) => (file.models.has(key) ? [{ key, entry: file.models.get(key)! }] : []));
  const rebuilt = spec.rebuild
    ? spec.rebuild(file)
    : records.map((r) => entriesFor(r).reduce((acc, { key, entry }) => (entry ? override(acc, entry, key, spec) : acc), r));
  return rebuilt.filter((r) => !entriesFor(r).some(({ entry }) => entry === null));
}

function override<E, X, P>(record: ModelRecord<E>, entry: ModelOverride<X>, key: string, spec: ModelsFileSpec<E, X, P>): ModelRecord<E> {
  const { extras, evidence, ...common } = entry;
  const changed = Object.keys(common);
  let out: ModelRecord<E> = { ...record, ...common };
  if (extras !== undefined) {
    try {
      out = spec.applyExtras ? spec.applyExtras(out, extras) : mergeExtras(out, extras);
    } catch (err) {
      if (err instanceof ModelsFileError)
        throw new ModelsFileError([`models.${key}.extras`, err.path].filter(Boolean).join('.'), err.detail);
      throw err;
    }
    changed.push('extras');
  }
  // The Source column and GET /v1/models say which facts the operator set.
  const note = evidence ?? `${record.evidence ?? 'official'}; ${changed.join(', ')} set by ${spec.variable}`;
  return { ...out, evidence: note };
}

/**
 * The platform's records with `env`'s models file applied (none set: the records as written).
 * Throws a ConfigError naming the variable, the file and the entry.
 */
export function loadModelRecords<E, X, P>(
  env: NodeJS.ProcessEnv,
  records: readonly ModelRecord<E>[],
  spec: ModelsFileSpec<E, X, P>,
): ModelRecord<E>[] {
  const path = parseEnv(modelsFileEnv(spec.variable), env)[spec.variable];
  if (path === undefined) return [...records];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw configError(spec.variable, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw configError(spec.variable, `${path}: the file is not JSON: ${(err as Error).message}`);
  }
  try {
    return applyModelsFile(records, parseModelsFile(json, records, spec), spec);
  } catch (err) {
    if (err instanceof ModelsFileError) throw configError(spec.variable, `${path}: ${err.message}`);
    throw err;
  }
}
