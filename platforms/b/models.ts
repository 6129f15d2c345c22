/**
 * Platform B's catalogue entries (spec 2.5 video by series, 2.6 image), built from the model data (model-data.ts)
 * with the operator's corrections (PLATFORM_B_MODELS_FILE). Each entry also carries its resolved B model (`b`):
 * the request rules and the wire mapping read field names and limits from there, so the API (which validates)
 * and the worker (which sends) follow the same data.
 */
import type { Capability, ModelEntry } from '../../core/catalogue';
import { B_MODELS_DATA } from './model-data';
import { EVIDENCE, fieldFor, type BImageModel, type BModel, type BVideoModel, type Evidence, type Tagged } from './model-spec';
import { loadModels } from './models-file';

export interface BModelEntry extends ModelEntry {
  readonly b: BModel;
}

/** The B model behind a catalogue entry (entries come from `bModels`). */
export function bModelOf(entry: ModelEntry): BModel {
  const b = (entry as Partial<BModelEntry>).b;
  if (!b) throw new Error(`${entry.id} is not a platform B catalogue entry`);
  return b;
}

export function bVideoModelOf(entry: ModelEntry): BVideoModel {
  const b = bModelOf(entry);
  if (b.kind !== 'video') throw new Error(`${entry.id} is not a platform B video model`);
  return b;
}

export function bImageModelOf(entry: ModelEntry): BImageModel {
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

function videoEntry(m: BVideoModel, overridden: boolean): BModelEntry {
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
    b: m,
  };
}

/** Spec 2.2's `standard` is 1K and `hd` 4K; B's own 1K/2K/4K pass as they are (quality.ts). */
function imageEntry(m: BImageModel, overridden: boolean): BModelEntry {
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
    b: m,
  };
}

/** B's catalogue entries with the models file at `modelsFile` applied (undefined: the defaults). */
export function bModels(modelsFile: string | undefined): BModelEntry[] {
  const resolved = loadModels(B_MODELS_DATA, modelsFile);
  return [
    ...[...resolved.video.values()].map((m) => videoEntry(m, resolved.overridden.has(m.code))),
    ...[...resolved.image.values()].map((m) => imageEntry(m, resolved.overridden.has(m.code))),
  ];
}
