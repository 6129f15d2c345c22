/**
 * Platform B's model records (spec 2.5 video by series, 2.6 image), built from the model data (model-data.ts)
 * with the operator's corrections (PLATFORM_B_MODELS_FILE, models-file.ts). Each record's `extras` is its resolved
 * B model: the request rules and the wire mapping read field names and limits from there, so the API (which
 * validates) and the worker (which sends) follow the same data.
 */
import type { Capability, ModelRecord } from '../../core/catalogue';
import type { ModelsFileSpec } from '../models-file';
import { B_MODELS_DATA } from './model-data';
import { EVIDENCE, fieldFor, type BImageModel, type BModel, type BVideoModel, type Evidence, type Tagged } from './model-spec';
import { bExtrasOverride, bFirstForm, bPlatformOverride, MODELS_FILE_VARIABLE, resolveModels, type BExtrasOverride, type BModelsFile, type BPlatformOverride } from './models-file';

export type BModelRecord = ModelRecord<BModel>;

/** The B model behind a catalogue record (records come from `bRecords`). */
export function bModelOf(entry: ModelRecord): BModel {
  const b = entry.platform === 'B' ? (entry.extras as BModel | undefined) : undefined;
  if (!b) throw new Error(`${entry.id} is not a platform B catalogue entry`);
  return b;
}

export function bVideoModelOf(entry: ModelRecord): BVideoModel {
  const b = bModelOf(entry);
  if (b.kind !== 'video') throw new Error(`${entry.id} is not a platform B video model`);
  return b;
}

export function bImageModelOf(entry: ModelRecord): BImageModel {
  const b = bModelOf(entry);
  if (b.kind !== 'image') throw new Error(`${entry.id} is not a platform B image model`);
  return b;
}

/**
 * "OFF: prompt ≤ · OFF-Qianfan: durations · field names: OFF, 3P": which facts rest on what evidence. (Which
 * endpoint lists which model is official for every model [OFF]; only the models file can change it.)
 */
function describeEvidence(facts: [string, Tagged<unknown> | undefined][], fields: Evidence[], overridden: boolean): string {
  const byTag = new Map<Evidence, string[]>();
  for (const [what, fact] of facts) if (fact) byTag.set(fact.evidence, [...(byTag.get(fact.evidence) ?? []), what]);
  const parts = [...byTag].map(([tag, whats]) => `${tag}: ${whats.join(', ')}`);
  if (fields.length > 0) parts.push(`field names: ${[...new Set(fields)].join(', ')}`);
  if (overridden) parts.push('corrected by PLATFORM_B_MODELS_FILE');
  return parts.join(' · ');
}

/** The weakest evidence of several facts, for a summary. */
function weakest(tags: Evidence[]): Evidence | undefined {
  return tags.sort((a, b) => EVIDENCE.indexOf(b) - EVIDENCE.indexOf(a))[0];
}

function videoRecord(m: BVideoModel, overridden: boolean): BModelRecord {
  const t2v = m.endpoints.text_to_video;
  const i2v = m.endpoints.image_to_video;
  const capabilities: Capability[] = [];
  if (t2v) capabilities.push('text_to_video');
  if (i2v) {
    capabilities.push('image_to_video');
    if (fieldFor(m, 'lastFrame', 'image_to_video') || fieldFor(m, 'firstLastFrames', 'image_to_video')) capabilities.push('first_last_frame');
    if (fieldFor(m, 'referenceImages', 'image_to_video') && (m.maxReferenceImages?.value ?? 0) > 0) capabilities.push('reference_images');
  }
  if (m.fields.audio) capabilities.push('sound');
  const promptTags = [t2v, i2v].filter((x): x is Tagged<number> => x !== undefined);
  const promptFact: Tagged<number> = { value: Math.max(...promptTags.map((p) => p.value)), evidence: weakest(promptTags.map((p) => p.evidence))! };
  const usedFields = Object.values(m.fields).map((f) => f!.evidence);
  return {
    id: m.code,
    platform: 'B',
    kind: 'video',
    upstream: { model: m.code },
    durations: m.durations.value,
    resolutions: m.resolutions.value,
    ratios: m.aspectRatios.value,
    maxPromptLength: promptFact.value,
    ...(capabilities.includes('reference_images') ? { maxReferenceImages: m.maxReferenceImages!.value } : {}),
    capabilities,
    evidence: describeEvidence(
      [
        ['prompt ≤', promptFact],
        ['durations', m.durations],
        ['resolutions', m.resolutions],
        ['ratios', m.aspectRatios.value.length > 0 ? m.aspectRatios : undefined],
        ['ref. images', capabilities.includes('reference_images') ? m.maxReferenceImages : undefined],
      ],
      usedFields,
      overridden,
    ),
    extras: m,
  };
}

/** Spec 2.2's `standard` is 1K and `hd` 4K; B's own 1K/2K/4K pass as they are (quality.ts). */
function imageRecord(m: BImageModel, overridden: boolean): BModelRecord {
  const wire = m.qualities.value;
  const qualities = [...(wire.includes('1K') ? ['standard'] : []), ...(wire.includes('4K') ? ['hd'] : []), ...wire];
  const capabilities: Capability[] = ['text_to_image'];
  if (m.maxReferenceImages.value > 0) capabilities.push('image_to_image');
  if (m.maxImages.value > 1) capabilities.push('multiple_images');
  return {
    id: m.code,
    platform: 'B',
    kind: 'image',
    upstream: { model: m.code },
    ratios: m.sizes.value,
    qualities,
    maxImages: m.maxImages.value,
    maxReferenceImages: m.maxReferenceImages.value,
    capabilities,
    evidence: describeEvidence(
      [
        ['n', m.maxImages],
        ['qualities', m.qualities],
        ['reference images', m.maxReferenceImages],
        ['sizes', m.sizes],
        ['message format', m.imageMessage],
      ],
      [],
      overridden,
    ),
    extras: m,
  };
}

/** B's records with a parsed models file's corrections (none: the defaults). */
export function bRecords(file: Partial<BModelsFile> = {}): BModelRecord[] {
  const resolved = resolveModels(B_MODELS_DATA, file);
  return [
    ...[...resolved.video.values()].map((m) => videoRecord(m, resolved.overridden.has(m.code))),
    ...[...resolved.image.values()].map((m) => imageRecord(m, resolved.overridden.has(m.code))),
  ];
}

export const B_MODELS: readonly BModelRecord[] = bRecords();

/**
 * PLATFORM_B_MODELS_FILE through the shared mechanism (platforms/models-file.ts). Capabilities, the prompt limit
 * and the source follow from the TaskInput fields, endpoints and evidence tags, so B takes only the common fields
 * that are plain limits and rebuilds its records from the file; the upstream model is the public code.
 */
export const B_MODELS_FILE: ModelsFileSpec<BModel, BExtrasOverride, BPlatformOverride> = {
  variable: MODELS_FILE_VARIABLE,
  platformName: 'platform B',
  commonFields: ['durations', 'resolutions', 'ratios', 'maxReferenceImages', 'maxImages'],
  extras: bExtrasOverride,
  platform: bPlatformOverride,
  olderForm: (json) => bFirstForm(json, B_MODELS_DATA),
  rebuild: bRecords,
};
