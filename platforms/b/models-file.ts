/**
 * Platform B's part of the models file (PLATFORM_B_MODELS_FILE, read by platforms/models-file.ts like every
 * platform's): an operator's corrections to what public sources leave uncertain about B's models (models.ts),
 * read by the API and the worker alike so validation and the wire agree. B's facts interlock (a capability is a
 * TaskInput field; a family's field is every member's), so B rebuilds its records from the parsed file
 * (`resolveModels`) instead of overriding them one by one. In the shared form:
 *
 *   {
 *     "platform": { "families": { "kling": { "fields": { "lastFrame": { "name": "tailImage" } } } } },
 *     "models": {
 *       "K21": { "durations": [5, 10], "extras": { "endpoints": { "image_to_video": { "promptMax": 2500 } } } },
 *       "VQ2": { "extras": { "fields": { "bgm": { "name": "bgm" } }, "evidence": "OFF" } },
 *       "NB":  { "extras": { "qualities": ["1K", "2K"] } }
 *     }
 *   }
 *
 * The common fields B takes are `durations`, `resolutions`, `ratios` (an image model's `size` ratios),
 * `maxReferenceImages` and `maxImages`; `extras` holds `endpoints`, `fields`, `qualities` (B's wire values 1K/2K/4K),
 * `evidence` (the tag of what the entry sets, default OPERATOR) and `note`. B's first form (`families` and
 * `models` at the top, B's keys directly in each model, `aspectRatios`/`sizes` for the ratios) is still read: a
 * file without `platform` and without any `extras` is read in that form.
 *
 * A family's `fields` and `constants` are merged per key (null removes one); a model's `fields` the same, over its
 * family's; every other key replaces the default wholesale. What the file sets is tagged with its evidence in
 * `GET /v1/models`'s source and docs. A file that does not parse, names an unknown model or family, or gives a
 * value the gateway cannot carry is a start-up error naming the variable and the entry.
 */
import { z } from 'zod';
import { ModelsFileError, parseModelsFilePart, type ModelOverride, type ParsedModelsFile } from '../models-file';
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
  z
    .strictObject({ min: z.number().int().positive(), max: z.number().int().positive() })
    .refine((r) => r.min <= r.max, { message: 'min must not exceed max' }),
]);

const familySchema = z.strictObject({
  fields: fieldsSchema.optional(),
  constants: z.record(fieldName, constantSchema.nullable()).optional(),
  imageFormats: z
    .array(z.string().regex(/^[a-z0-9]+$/))
    .min(1)
    .nullable()
    .optional(),
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
  sizes: z
    .array(z.string().regex(/^\d{1,2}:\d{1,2}$/))
    .min(1)
    .optional(),
  evidence: evidence.optional(),
  note: z.string().optional(),
});

/** The first form's top level: `families` and `models` (B's keys directly in each model). */
const firstFormSchema = z.strictObject({
  families: z.partialRecord(z.enum(FAMILIES), familySchema).optional(),
  models: z.record(z.string(), z.unknown()).optional(),
});

/** An entry's `extras` in the shared form: what B's records take besides the common fields. */
export const bExtrasOverride = z.strictObject({
  endpoints: videoModelSchema.shape.endpoints,
  fields: fieldsSchema.optional(),
  qualities: imageModelSchema.shape.qualities,
  evidence: evidence.optional(),
  note: z.string().optional(),
});
export type BExtrasOverride = z.infer<typeof bExtrasOverride>;

/** The file-wide `platform` part: corrections to whole families. */
export const bPlatformOverride = z.strictObject({ families: firstFormSchema.shape.families });
export type BPlatformOverride = z.infer<typeof bPlatformOverride>;

export type BModelsFile = ParsedModelsFile<BExtrasOverride, BPlatformOverride>;

/**
 * B's first form rewritten into the shared one, each model checked against B's own schema first (so a mistake is
 * named as the operator wrote it, e.g. `models.VQ2.aspectRatios.0`); undefined when `json` is in the shared form.
 */
export function bFirstForm(json: unknown, data: BModelsData): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json) || 'platform' in json) return undefined;
  const models = (json as { models?: unknown }).models;
  if (
    typeof models === 'object' &&
    models !== null &&
    Object.values(models).some((m) => typeof m === 'object' && m !== null && 'extras' in m)
  )
    return undefined;
  const parsed = parseModelsFilePart(firstFormSchema, json, '');
  const videoCodes = new Set(data.video.map((m) => m.code));
  const imageCodes = new Set(data.image.map((m) => m.code));
  const rewritten: Record<string, unknown> = {};
  for (const [code, raw] of Object.entries(parsed.models ?? {})) {
    const path = `models.${code}`;
    if (raw === null) {
      rewritten[code] = null; // withdrawn, as in the shared form
    } else if (videoCodes.has(code)) {
      const { aspectRatios, endpoints, fields, evidence: ev, note, ...common } = parseModelsFilePart(videoModelSchema, raw, path);
      rewritten[code] = { ...common, ...(aspectRatios ? { ratios: aspectRatios } : {}), extras: { endpoints, fields, evidence: ev, note } };
    } else if (imageCodes.has(code)) {
      const { sizes, qualities, evidence: ev, note, ...common } = parseModelsFilePart(imageModelSchema, raw, path);
      rewritten[code] = { ...common, ...(sizes ? { ratios: sizes } : {}), extras: { qualities, evidence: ev, note } };
    } else {
      rewritten[code] = raw; // the shared check names the unknown model
    }
  }
  return { models: rewritten, ...(parsed.families ? { platform: { families: parsed.families } } : {}) };
}

export interface ResolvedModels {
  video: ReadonlyMap<string, BVideoModel>;
  image: ReadonlyMap<string, BImageModel>;
  /** Model codes the models file changed (for the catalogue's evidence note). */
  overridden: ReadonlySet<string>;
}

const withEvidence = <T extends { evidence?: Evidence }>(x: T, fallback: Evidence): T & { evidence: Evidence } => ({
  ...x,
  evidence: x.evidence ?? fallback,
});

type FieldInput = Omit<FieldSpec, 'evidence'> & { readonly evidence?: Evidence };

function mergeFields(
  base: Readonly<Partial<Record<string, FieldSpec | null>>>,
  over: Readonly<Partial<Record<string, FieldInput | null>>> | undefined,
  fallback: Evidence,
): Partial<Record<string, FieldSpec | null>> {
  const out: Partial<Record<string, FieldSpec | null>> = { ...base };
  for (const [role, spec] of Object.entries(over ?? {}))
    out[role] = spec === null || spec === undefined ? null : withEvidence(spec, fallback);
  return out;
}

const present = <T>(record: Partial<Record<string, T | null>>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).filter((e): e is [string, T] => e[1] !== null && e[1] !== undefined));

/** The entry for `code` (by id, or by `<kind>:<id>`), if the file has one that is not a withdrawal. */
function entryFor(file: Partial<BModelsFile>, kind: 'video' | 'image', code: string): ModelOverride<BExtrasOverride> | undefined {
  return file.models?.get(code) ?? file.models?.get(`${kind}:${code}`) ?? undefined;
}

/** The defaults with `file`'s corrections applied; throws ModelsFileError naming the bad entry. */
/** Each family's spec, with the operator's overrides (models-file `platform.families`) applied. */
function resolveFamilies(data: BModelsData, file: Partial<BModelsFile>, overridden: Set<string>): Record<Family, FamilySpec> {
  return Object.fromEntries(
    FAMILIES.map((f): [string, FamilySpec] => {
      const base = data.families[f];
      const over = file.platform?.families?.[f];
      if (!over) return [f, base];
      for (const m of data.video) if (m.family === f) overridden.add(m.code);
      const constants: Partial<Record<string, ConstantSpec | null>> = { ...base.constants };
      for (const [name, c] of Object.entries(over.constants ?? {})) constants[name] = c === null ? null : withEvidence(c, 'OPERATOR');
      const { imageFormats: _, ...rest } = base;
      const imageFormats =
        over.imageFormats === undefined
          ? base.imageFormats
          : over.imageFormats === null
            ? undefined
            : { value: over.imageFormats, evidence: 'OPERATOR' as const };
      return [
        f,
        {
          ...rest,
          fields: present(mergeFields(base.fields, over.fields, 'OPERATOR')),
          constants: present(constants),
          ...(imageFormats ? { imageFormats } : {}),
        },
      ];
    }),
  ) as Record<Family, FamilySpec>;
}

/** A video model with its family's spec and the operator's overrides of it. */
function resolveVideoModel(
  m: BModelsData['video'][number],
  families: Record<Family, FamilySpec>,
  file: Partial<BModelsFile>,
  overridden: Set<string>,
): BVideoModel {
  const family = families[m.family];
  const over = entryFor(file, 'video', m.code);
  if (over) overridden.add(m.code);
  const extras = over?.extras;
  const ev: Evidence = extras?.evidence ?? 'OPERATOR';
  const t = <T>(value: T | undefined, base: Tagged<T>): Tagged<T> =>
    value === undefined ? base : { value, evidence: ev, ...(extras?.note ? { note: extras.note } : {}) };
  const badRatio = over?.ratios?.find((r) => !(VIDEO_RATIO_VALUES as readonly string[]).includes(r));
  if (badRatio)
    throw new ModelsFileError(
      `models.${m.code}.ratios`,
      `'${badRatio}' is not a video ratio the gateway carries (${VIDEO_RATIO_VALUES.join(', ')})`,
    );
  const endpoints = extras?.endpoints
    ? Object.fromEntries(Object.entries(extras.endpoints).map(([e, v]) => [e, { value: v!.promptMax, evidence: ev }]))
    : m.endpoints;
  const fields = present(mergeFields(mergeFields(family.fields, m.fields ?? {}, 'OPERATOR'), extras?.fields, ev));
  const model: BVideoModel = {
    kind: 'video',
    code: m.code,
    family: m.family,
    familyLabel: family.label,
    endpoints,
    durations: t(over?.durations, m.durations),
    resolutions: t(over?.resolutions, m.resolutions),
    aspectRatios: t(over?.ratios, m.aspectRatios),
    ...(over?.maxReferenceImages !== undefined
      ? { maxReferenceImages: { value: over.maxReferenceImages, evidence: ev } }
      : m.maxReferenceImages
        ? { maxReferenceImages: m.maxReferenceImages }
        : {}),
    fields,
    constants: family.constants,
    ...(family.imageFormats ? { imageFormats: family.imageFormats } : {}),
  };
  return model;
}

/** The image models, with the operator's overrides. */
function resolveImageModels(data: BModelsData, file: Partial<BModelsFile>, overridden: Set<string>): Map<string, BImageModel> {
  const image = new Map<string, BImageModel>();
  for (const m of data.image) {
    const over = entryFor(file, 'image', m.code);
    if (over) overridden.add(m.code);
    const ev: Evidence = over?.extras?.evidence ?? 'OPERATOR';
    const t = <T>(value: T | undefined, base: Tagged<T>): Tagged<T> => (value === undefined ? base : { value, evidence: ev });
    image.set(m.code, {
      kind: 'image',
      code: m.code,
      maxImages: t(over?.maxImages, m.maxImages),
      qualities: t(over?.extras?.qualities, m.qualities),
      maxReferenceImages: t(over?.maxReferenceImages, m.maxReferenceImages),
      sizes: t(over?.ratios, m.sizes),
      imageMessage: data.imageMessage,
    });
  }
  return image;
}

export function resolveModels(data: BModelsData, file: Partial<BModelsFile> = {}): ResolvedModels {
  const overridden = new Set<string>();
  const families = resolveFamilies(data, file, overridden);
  const video = new Map<string, BVideoModel>();
  for (const m of data.video) {
    const model = resolveVideoModel(m, families, file, overridden);
    checkVideoModel(model);
    video.set(m.code, model);
  }
  const image = resolveImageModels(data, file, overridden);
  return { video, image, overridden };
}

/** What the wire mapping relies on: every model can say its prompt, duration and (on image-to-video) first frame. */
function checkVideoModel(m: BVideoModel): void {
  const need = (role: keyof BVideoModel['fields'], why: string) => {
    if (!m.fields[role]) throw new ModelsFileError(`models.${m.code}.fields.${role}`, `required (${why})`);
  };
  need('prompt', 'every create carries the prompt');
  need('duration', 'every B video request carries a duration (docs/api.md "Validation rules", rule 1)');
  if (m.endpoints.image_to_video && !m.fields.firstFrame && !m.fields.firstLastFrames && !m.fields.referenceImages) {
    need('firstFrame', 'the model is listed for image_to_video');
  }
  for (const [role, spec] of Object.entries(m.fields)) {
    if (spec?.single && role !== 'referenceImages')
      throw new ModelsFileError(`models.${m.code}.fields.${role}.single`, 'only referenceImages takes "single"');
  }
}
