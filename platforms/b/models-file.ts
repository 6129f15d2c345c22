/**
 * PLATFORM_B_MODELS_FILE: an operator's corrections to what public sources leave uncertain about B's models
 * (model-data.ts), read by the API and the worker alike so validation and the wire agree. Example:
 *
 *   {
 *     "families": { "kling": { "fields": { "lastFrame": { "name": "tailImage" } } } },
 *     "models": {
 *       "K21": { "endpoints": { "image_to_video": { "promptMax": 2500 } }, "durations": [5, 10] },
 *       "VQ2": { "fields": { "bgm": { "name": "bgm" } }, "evidence": "OPERATOR" },
 *       "NB":  { "qualities": ["1K", "2K"] }
 *     }
 *   }
 *
 * A family's `fields` and `constants` are merged per key (null removes one); a model's `fields` the same, over its
 * family's; every other key replaces the default wholesale. What the file sets is tagged with its `evidence`
 * (default OPERATOR) in `GET /v1/models`'s source and docs. A file that does not parse, names an unknown model or
 * family, or gives a value the gateway cannot carry is a start-up error naming the variable and the entry.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { configError } from '../../core/config';
import type { DurationRule } from '../../core/catalogue';
import { VIDEO_RATIO_VALUES } from '../request';
import {
  EVIDENCE,
  FAMILIES,
  IMAGE_QUALITIES,
  ROLES,
  VIDEO_ENDPOINTS,
  type BImageModel,
  type BModelsData,
  type BVideoModel,
  type ConstantSpec,
  type Evidence,
  type Family,
  type FamilySpec,
  type FieldSpec,
  type Tagged,
} from './model-spec';

export const MODELS_FILE_VARIABLE = 'PLATFORM_B_MODELS_FILE';

const evidence = z.enum(EVIDENCE);
const scalar = z.union([z.string(), z.number(), z.boolean()]);
/** TaskInput keys are camelCase identifiers. */
const fieldName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, { message: 'must be an identifier like aspectRatio' });

const fieldSchema = z.strictObject({
  name: fieldName,
  endpoints: z.array(z.enum(VIDEO_ENDPOINTS)).min(1).optional(),
  values: z.record(z.string(), scalar).optional(),
  single: z.boolean().optional(),
  evidence: evidence.optional(),
  note: z.string().optional(),
});
const constantSchema = z.strictObject({
  value: scalar,
  endpoints: z.array(z.enum(VIDEO_ENDPOINTS)).min(1).optional(),
  evidence: evidence.optional(),
  note: z.string().optional(),
});
const fieldsSchema = z.partialRecord(z.enum(ROLES), fieldSchema.nullable());
const durationsSchema = z.union([
  z.array(z.number().int().positive()).min(1),
  z.strictObject({ min: z.number().int().positive(), max: z.number().int().positive() }).refine((r) => r.min <= r.max, { message: 'min must not exceed max' }),
]);

const familySchema = z.strictObject({
  fields: fieldsSchema.optional(),
  constants: z.record(fieldName, constantSchema.nullable()).optional(),
  imageFormats: z.array(z.string().regex(/^[a-z0-9]+$/)).min(1).nullable().optional(),
});

const videoModelSchema = z.strictObject({
  endpoints: z
    .partialRecord(z.enum(VIDEO_ENDPOINTS), z.strictObject({ promptMax: z.number().int().positive().max(5000) }))
    .refine((e) => Object.keys(e).length > 0, { message: 'a model needs at least one endpoint' })
    .optional(),
  durations: durationsSchema.optional(),
  resolutions: z.array(z.string().min(1).max(16)).min(1).optional(),
  aspectRatios: z.array(z.enum(VIDEO_RATIO_VALUES)).optional(),
  maxReferenceImages: z.number().int().min(0).max(10).optional(),
  fields: fieldsSchema.optional(),
  evidence: evidence.optional(),
  note: z.string().optional(),
});

const imageModelSchema = z.strictObject({
  maxImages: z.number().int().min(1).max(4).optional(),
  qualities: z.array(z.enum(IMAGE_QUALITIES)).min(1).optional(),
  maxReferenceImages: z.number().int().min(0).max(14).optional(),
  sizes: z.array(z.string().regex(/^\d{1,2}:\d{1,2}$/)).min(1).optional(),
  evidence: evidence.optional(),
  note: z.string().optional(),
});

const fileSchema = z.strictObject({
  families: z.partialRecord(z.enum(FAMILIES), familySchema).optional(),
  models: z.record(z.string(), z.unknown()).optional(),
});

export type ModelsFile = z.infer<typeof fileSchema>;

export interface ResolvedModels {
  video: ReadonlyMap<string, BVideoModel>;
  image: ReadonlyMap<string, BImageModel>;
  /** Model codes the models file changed (for the catalogue's evidence note). */
  overridden: ReadonlySet<string>;
}

class ModelsFileError extends Error {}

function issueText(error: z.ZodError, prefix: string): string {
  const issue = error.issues[0]!;
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  return `${path}: ${issue.message}`;
}

function parse<S extends z.ZodType>(schema: S, value: unknown, path: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ModelsFileError(issueText(r.error, path));
  return r.data;
}

const withEvidence = <T extends { evidence?: Evidence }>(x: T, fallback: Evidence): T & { evidence: Evidence } => ({ ...x, evidence: x.evidence ?? fallback });

type FieldInput = Omit<FieldSpec, 'evidence'> & { readonly evidence?: Evidence };

function mergeFields(
  base: Readonly<Partial<Record<string, FieldSpec | null>>>,
  over: Readonly<Partial<Record<string, FieldInput | null>>> | undefined,
  fallback: Evidence,
): Partial<Record<string, FieldSpec | null>> {
  const out: Partial<Record<string, FieldSpec | null>> = { ...base };
  for (const [role, spec] of Object.entries(over ?? {})) out[role] = spec === null || spec === undefined ? null : withEvidence(spec, fallback);
  return out;
}

const present = <T>(record: Partial<Record<string, T | null>>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).filter((e): e is [string, T] => e[1] !== null && e[1] !== undefined));

/** The defaults with `file`'s corrections applied; throws ModelsFileError naming the bad entry. */
export function resolveModels(data: BModelsData, file: unknown = {}): ResolvedModels {
  const parsed = parse(fileSchema, file, '');
  const overridden = new Set<string>();

  const families = Object.fromEntries(
    FAMILIES.map((f): [string, FamilySpec] => {
      const base = data.families[f];
      const over = parsed.families?.[f];
      if (!over) return [f, base];
      for (const m of data.video) if (m.family === f) overridden.add(m.code);
      const constants: Partial<Record<string, ConstantSpec | null>> = { ...base.constants };
      for (const [name, c] of Object.entries(over.constants ?? {})) constants[name] = c === null ? null : withEvidence(c, 'OPERATOR');
      const { imageFormats: _, ...rest } = base;
      const imageFormats = over.imageFormats === undefined ? base.imageFormats : over.imageFormats === null ? undefined : { value: over.imageFormats, evidence: 'OPERATOR' as const };
      return [f, { ...rest, fields: present(mergeFields(base.fields, over.fields, 'OPERATOR')), constants: present(constants), ...(imageFormats ? { imageFormats } : {}) }];
    }),
  ) as Record<Family, FamilySpec>;

  const videoCodes = new Set(data.video.map((m) => m.code));
  const imageCodes = new Set(data.image.map((m) => m.code));
  for (const code of Object.keys(parsed.models ?? {})) {
    if (!videoCodes.has(code) && !imageCodes.has(code)) {
      throw new ModelsFileError(`models.${code}: not a platform B model; the models are ${[...videoCodes, ...imageCodes].join(', ')}`);
    }
  }

  const video = new Map<string, BVideoModel>();
  for (const m of data.video) {
    const family = families[m.family];
    const raw = parsed.models?.[m.code];
    const over = raw === undefined ? undefined : parse(videoModelSchema, raw, `models.${m.code}`);
    if (over) overridden.add(m.code);
    const ev: Evidence = over?.evidence ?? 'OPERATOR';
    const t = <T>(value: T | undefined, base: Tagged<T>): Tagged<T> => (value === undefined ? base : { value, evidence: ev, ...(over?.note ? { note: over.note } : {}) });
    const endpoints = over?.endpoints
      ? Object.fromEntries(Object.entries(over.endpoints).map(([e, v]) => [e, { value: v!.promptMax, evidence: ev }]))
      : m.endpoints;
    const durations: DurationRule | undefined = over?.durations === undefined ? undefined : Array.isArray(over.durations) ? { values: over.durations } : over.durations;
    const fields = present(mergeFields(mergeFields(family.fields, m.fields ?? {}, 'OPERATOR'), over?.fields, ev));
    const model: BVideoModel = {
      kind: 'video',
      code: m.code,
      family: m.family,
      familyLabel: family.label,
      endpoints,
      durations: t(durations, m.durations),
      resolutions: t(over?.resolutions, m.resolutions),
      aspectRatios: t(over?.aspectRatios, m.aspectRatios),
      ...(over?.maxReferenceImages !== undefined ? { maxReferenceImages: { value: over.maxReferenceImages, evidence: ev } } : m.maxReferenceImages ? { maxReferenceImages: m.maxReferenceImages } : {}),
      fields,
      constants: family.constants,
      ...(family.imageFormats ? { imageFormats: family.imageFormats } : {}),
    };
    checkVideoModel(model);
    video.set(m.code, model);
  }

  const image = new Map<string, BImageModel>();
  for (const m of data.image) {
    const raw = parsed.models?.[m.code];
    const over = raw === undefined ? undefined : parse(imageModelSchema, raw, `models.${m.code}`);
    if (over) overridden.add(m.code);
    const ev: Evidence = over?.evidence ?? 'OPERATOR';
    const t = <T>(value: T | undefined, base: Tagged<T>): Tagged<T> => (value === undefined ? base : { value, evidence: ev });
    image.set(m.code, {
      kind: 'image',
      code: m.code,
      maxImages: t(over?.maxImages, m.maxImages),
      qualities: t(over?.qualities, m.qualities),
      maxReferenceImages: t(over?.maxReferenceImages, m.maxReferenceImages),
      sizes: t(over?.sizes, m.sizes),
      imageMessage: data.imageMessage,
    });
  }
  return { video, image, overridden };
}

/** What the wire mapping relies on: every model can say its prompt, duration and (on image-to-video) first frame. */
function checkVideoModel(m: BVideoModel): void {
  const need = (role: keyof BVideoModel['fields'], why: string) => {
    if (!m.fields[role]) throw new ModelsFileError(`models.${m.code}.fields.${role}: required (${why})`);
  };
  need('prompt', 'every create carries the prompt');
  need('duration', 'every B video request carries a duration (spec §4 rule 1)');
  if (m.endpoints.image_to_video && !m.fields.firstFrame && !m.fields.firstLastFrames && !m.fields.referenceImages) {
    need('firstFrame', 'the model is listed for image_to_video');
  }
  for (const [role, spec] of Object.entries(m.fields)) {
    if (spec?.single && role !== 'referenceImages') throw new ModelsFileError(`models.${m.code}.fields.${role}.single: only referenceImages takes "single"`);
  }
}

/** Reads and applies PLATFORM_B_MODELS_FILE (unset: the defaults); a bad file is a ConfigError naming the variable. */
export function loadModels(data: BModelsData, path: string | undefined): ResolvedModels {
  if (path === undefined) return resolveModels(data);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw configError(MODELS_FILE_VARIABLE, `${path}: ${(err as Error).message}`);
  }
  try {
    return resolveModels(data, json);
  } catch (err) {
    if (err instanceof ModelsFileError) throw configError(MODELS_FILE_VARIABLE, `${path}: ${err.message}`);
    throw err;
  }
}
