/**
 * Platform B's models (docs/api.md "Models") as the public sources describe them
 * (docs/platforms/b.md, cited by section), one literal record per model with named fields, every
 * fact tagged [OFF]/[OFF-frag]/[OFF-Qianfan]/[3P]/[INF]/[GUESS] (model-spec.ts); then the catalogue records
 * derived from them (capabilities follow from the TaskInput fields, the prompt limit from the endpoints, the source
 * from the tags). Each catalogue record's `extras` is its resolved B model: the request rules and the wire mapping
 * read field names and limits from there, so the API (which validates) and the worker (which sends) follow the
 * same data. These are defaults: an operator corrects any of them without a code change through
 * PLATFORM_B_MODELS_FILE (models-file.ts), e.g. a field name checked against the real account with the API
 * Explorer ("在线调试") each VOD doc page links.
 *
 * A field tagged GUESS follows VOD's house style (the vendor's parameter in camelCase, `{imageUrl}` objects, as
 * the official Vidu and 3P Veo examples show) but was seen nowhere: the real platform ignores a field it does not
 * know (docs/platforms/b.md#creating-jobs), so a wrong guess would silently do nothing. Verify GUESS fields before relying on them.
 */
import type { Capability, DurationRule, ModelRecord } from '../../core/catalogue';
import type { ModelsFileSpec } from '../models-file';
import {
  EVIDENCE,
  fieldFor,
  type BImageModel,
  type BModel,
  type BModelsData,
  type BVideoModel,
  type Evidence,
  type ImageModelSpec,
  type Tagged,
  type VideoEndpoint,
  type VideoModelSpec,
} from './model-spec';
import {
  bExtrasOverride,
  bFirstForm,
  bPlatformOverride,
  MODELS_FILE_VARIABLE,
  resolveModels,
  type BExtrasOverride,
  type BModelsFile,
  type BPlatformOverride,
} from './models-file';

const I2V: readonly VideoEndpoint[] = ['image_to_video'];
const T2V: readonly VideoEndpoint[] = ['text_to_video'];

// ------------------------------------------------------------------------------------------ families (docs/platforms/b.md#fields)

const FAMILIES: BModelsData['families'] = {
  vidu: {
    label: 'Vidu',
    fields: {
      prompt: { name: 'prompt', evidence: 'OFF' },
      duration: { name: 'duration', evidence: 'OFF', note: 'V10 text-to-video and V15 image-to-video examples: 4' },
      resolution: { name: 'resolution', evidence: 'OFF', note: 'official examples write "720p"' },
      aspectRatio: { name: 'aspectRatio', evidence: '3P' },
      firstFrame: { name: 'image', evidence: '3P', endpoints: I2V, note: 'single-image mode' },
      firstLastFrames: {
        name: 'headtailImages',
        evidence: 'OFF',
        endpoints: I2V,
        note: 'first+last-frame mode, VIDEO_GENERATE_COMPLETE example (docs/platforms/b.md#callbacks)',
      },
    },
    // The official first+last-frame example sends it; "auto" is the vendor's default (Qianfan), so it asks nothing extra.
    constants: {
      movementAmplitude: { value: 'auto', evidence: 'OFF', note: 'value of the official example (docs/platforms/b.md#callbacks)' },
    },
    imageFormats: { value: ['jpg', 'jpeg', 'png'], evidence: 'OFF', note: '< 50 MB, aspect 1:4 to 4:1 (not checkable from a URL)' },
  },
  veo: {
    label: 'Veo',
    // Every name from one production gateway with JSON-equality tests [3P ids 61368595862, 61501476469].
    fields: {
      prompt: { name: 'prompt', evidence: '3P' },
      negativePrompt: { name: 'negativePrompt', evidence: '3P' },
      duration: { name: 'durationSeconds', evidence: '3P' },
      resolution: { name: 'resolution', evidence: '3P' },
      aspectRatio: { name: 'aspectRatio', evidence: '3P' },
      audio: { name: 'generateAudio', evidence: '3P' },
      firstFrame: { name: 'image', evidence: '3P', endpoints: I2V },
      lastFrame: { name: 'lastFrame', evidence: '3P', endpoints: I2V, note: 'requires image' },
      referenceImages: {
        name: 'referenceImages',
        evidence: '3P',
        endpoints: I2V,
        single: true,
        note: 'the 3P code sends one {imageUrl} object; several are sent as a list [INF]; not with first/last frames',
      },
      // 0 … 2^32−1 [3P]: set from the dedup key, it makes every submit's body unique, so reconciliation is exact.
      seed: { name: 'seed', evidence: '3P', note: 'derived from the submit; a request cannot set it' },
    },
    constants: {
      n: {
        value: 1,
        evidence: '3P',
        note: 'the 3P text-to-video body (docs/platforms/b.md#fields) sends n: 1; Veo on VOD makes one video per task',
      },
    },
    imageFormats: { value: ['jpg', 'jpeg', 'png'], evidence: 'OFF' },
  },
  kling: {
    label: 'Kling',
    // VOD's names are unknown (docs/platforms/b.md#fields): the vendor's parameters in VOD's camelCase style [GUESS].
    fields: {
      prompt: { name: 'prompt', evidence: 'INF', note: 'every documented family calls it prompt' },
      negativePrompt: { name: 'negativePrompt', evidence: 'GUESS' },
      duration: { name: 'duration', evidence: 'GUESS', note: 'values 5|10 [OFF-Qianfan]' },
      resolution: {
        name: 'mode',
        evidence: 'GUESS',
        values: { '720p': 'std', '1080p': 'pro' },
        note: 'the vendor sets resolution through mode std|pro',
      },
      aspectRatio: { name: 'aspectRatio', evidence: 'GUESS', endpoints: T2V, note: 'image-to-video follows the input image' },
      firstFrame: { name: 'image', evidence: 'GUESS', endpoints: I2V },
      lastFrame: { name: 'imageTail', evidence: 'GUESS', endpoints: I2V, note: "the vendor's image_tail" },
    },
    constants: {},
    imageFormats: {
      value: ['jpg', 'jpeg', 'png'],
      evidence: 'OFF',
      note: '≤ 10 MB, ≥ 300 px, aspect 1:2.5 to 2.5:1 (not checkable from a URL)',
    },
  },
  pixverse: {
    label: 'PixVerse',
    fields: {
      prompt: { name: 'prompt', evidence: 'INF', note: 'every documented family calls it prompt' },
      negativePrompt: { name: 'negativePrompt', evidence: 'GUESS' },
      duration: { name: 'duration', evidence: 'GUESS' },
      resolution: { name: 'quality', evidence: 'GUESS', note: 'the vendor calls the resolution quality ("540p")' },
      aspectRatio: { name: 'aspectRatio', evidence: 'GUESS', endpoints: T2V, note: 'image-to-video follows the input image' },
      firstFrame: { name: 'image', evidence: 'GUESS', endpoints: I2V },
    },
    constants: {},
    // Only "max 4000×4000" is documented [OFF]: no file type to check.
  },
  hailuo: {
    label: 'Hailuo',
    fields: {
      prompt: { name: 'prompt', evidence: 'INF', note: 'every documented family calls it prompt' },
      duration: { name: 'duration', evidence: 'GUESS' },
      resolution: { name: 'resolution', evidence: 'GUESS' },
      firstFrame: { name: 'firstFrame', evidence: 'GUESS', endpoints: I2V, note: "the page's guess (firstFrame/lastFrame)" },
      lastFrame: { name: 'lastFrame', evidence: 'GUESS', endpoints: I2V },
    },
    constants: {},
    imageFormats: {
      value: ['jpg', 'jpeg', 'png', 'webp'],
      evidence: 'OFF',
      note: '< 20 MB, short side > 300 px, aspect 2:5 to 5:2 (not checkable from a URL)',
    },
  },
};

// ------------------------------------------------------------------------------------------ video models

/**
 * Prompt limits and which endpoint lists which model [OFF] (docs/platforms/b.md#text-to-video, the 2026-02-03 version; #image-to-video,
 * 2026-01-23; the I2V model enum [OFF-frag]). V20, VQ1C, VQ2T, VQ2P, VQ2PF, K21, KO1, H23F are image-to-video
 * only; H20 is text-to-video only. Where two doc versions disagree (VQ1, VQ2 text-to-video: 1500/2000 or 5000)
 * the stricter figure is used.
 */

// Vidu value ranges are Qianfan's for the same vendor models [OFF-Qianfan], not confirmed for VOD.
const VIDU_RATIOS_Q1: Tagged<readonly string[]> = { value: ['16:9', '9:16', '1:1'], evidence: 'OFF-Qianfan' };
const VIDU_RATIOS_Q2: Tagged<readonly string[]> = { value: ['16:9', '9:16', '1:1', '4:3', '3:4'], evidence: 'OFF-Qianfan' };

// Kling: durations 5|10 [OFF-Qianfan]; resolutions through mode std|pro and aspect ratios are guesses.
const KLING_DURATIONS: Tagged<DurationRule> = { value: { values: [5, 10] }, evidence: 'OFF-Qianfan' };
const KLING_RESOLUTIONS: Tagged<readonly string[]> = { value: ['720p', '1080p'], evidence: 'GUESS', note: 'std → 720p, pro → 1080p' };
const KLING_RATIOS: Tagged<readonly string[]> = { value: ['16:9', '9:16', '1:1'], evidence: 'GUESS' };

// PixVerse: nothing known about values; the vendor's [GUESS].
const PIXVERSE_DURATIONS: Tagged<DurationRule> = { value: { values: [5, 8, 10] }, evidence: 'GUESS' };
const PIXVERSE_RESOLUTIONS: Tagged<readonly string[]> = { value: ['360p', '540p', '720p', '1080p'], evidence: 'GUESS' };
const PIXVERSE_RATIOS: Tagged<readonly string[]> = { value: ['16:9', '9:16', '1:1', '4:3', '3:4'], evidence: 'GUESS' };

// Hailuo: 6|10 s at 768P|1080P are the page's guesses; no aspect-ratio field is known.
const HAILUO_DURATIONS: Tagged<DurationRule> = { value: { values: [6, 10] }, evidence: 'GUESS' };
const HAILUO_RESOLUTIONS: Tagged<readonly string[]> = { value: ['768P', '1080P'], evidence: 'GUESS' };
const HAILUO_RATIOS: Tagged<readonly string[]> = { value: [], evidence: 'GUESS', note: 'no field known' };

// Veo: [3P] values (durationSeconds 4|6|8, 720p|1080p|4k, 16:9|9:16); the 2000 prompt limit is the I2V page's [OFF].
const VEO_DURATIONS: Tagged<DurationRule> = { value: { values: [4, 6, 8] }, evidence: '3P' };
const VEO_RESOLUTIONS: Tagged<readonly string[]> = { value: ['720p', '1080p', '4k'], evidence: '3P' };
const VEO_RATIOS: Tagged<readonly string[]> = { value: ['16:9', '9:16'], evidence: '3P' };
const VEO_REFERENCE_IMAGES: Tagged<number> = { value: 3, evidence: 'INF', note: "Google Veo 3.1's limit" };

const VIDEO: readonly VideoModelSpec[] = [
  {
    code: 'V20',
    family: 'vidu',
    endpoints: { image_to_video: { value: 1500, evidence: 'OFF' } },
    durations: { value: { values: [4] }, evidence: 'OFF-Qianfan' },
    resolutions: { value: ['360p', '720p'], evidence: 'OFF-Qianfan' },
    aspectRatios: VIDU_RATIOS_Q1,
  },
  {
    code: 'VQ1',
    family: 'vidu',
    endpoints: {
      text_to_video: { value: 1500, evidence: 'OFF', note: 'a fragment says 5000' },
      image_to_video: { value: 1500, evidence: 'OFF' },
    },
    durations: { value: { values: [5] }, evidence: 'OFF-Qianfan' },
    resolutions: { value: ['1080p'], evidence: 'OFF-Qianfan' },
    aspectRatios: VIDU_RATIOS_Q1,
  },
  {
    code: 'VQ1C',
    family: 'vidu',
    endpoints: { image_to_video: { value: 1500, evidence: 'OFF' } },
    durations: { value: { values: [5] }, evidence: 'INF', note: 'as VQ1' },
    resolutions: { value: ['1080p'], evidence: 'INF' },
    aspectRatios: VIDU_RATIOS_Q1,
  },
  // Vidu Q2: 1–10 s at 540p/720p/1080p [OFF-Qianfan]; VQ2T, VQ2P, VQ2PF as VQ2 [INF].
  {
    code: 'VQ2',
    family: 'vidu',
    endpoints: {
      text_to_video: { value: 2000, evidence: 'OFF', note: 'a fragment says 5000' },
      image_to_video: { value: 2000, evidence: 'OFF' },
    },
    durations: { value: { min: 1, max: 10 }, evidence: 'OFF-Qianfan' },
    resolutions: { value: ['540p', '720p', '1080p'], evidence: 'OFF-Qianfan' },
    aspectRatios: VIDU_RATIOS_Q2,
  },
  {
    code: 'VQ2T',
    family: 'vidu',
    endpoints: { image_to_video: { value: 1500, evidence: 'OFF' } },
    durations: { value: { min: 1, max: 10 }, evidence: 'INF', note: 'as VQ2' },
    resolutions: { value: ['540p', '720p', '1080p'], evidence: 'INF' },
    aspectRatios: VIDU_RATIOS_Q2,
  },
  {
    code: 'VQ2P',
    family: 'vidu',
    endpoints: { image_to_video: { value: 1500, evidence: 'OFF' } },
    durations: { value: { min: 1, max: 10 }, evidence: 'INF', note: 'as VQ2' },
    resolutions: { value: ['540p', '720p', '1080p'], evidence: 'INF' },
    aspectRatios: VIDU_RATIOS_Q2,
  },
  {
    code: 'VQ2PF',
    family: 'vidu',
    endpoints: { image_to_video: { value: 1500, evidence: 'INF', note: 'not in the prompt table; the VQ2P figure' } },
    durations: { value: { min: 1, max: 10 }, evidence: 'INF', note: 'as VQ2' },
    resolutions: { value: ['540p', '720p', '1080p'], evidence: 'INF' },
    aspectRatios: VIDU_RATIOS_Q2,
  },
  // Vidu Q3: 1–16 s [OFF-Qianfan]; the prompt limit is the text-to-video fragment's.
  {
    code: 'VQ3P',
    family: 'vidu',
    endpoints: {
      text_to_video: { value: 5000, evidence: 'OFF-frag' },
      image_to_video: { value: 5000, evidence: 'INF', note: 'not in the image-to-video table; the text-to-video figure' },
    },
    durations: { value: { min: 1, max: 16 }, evidence: 'OFF-Qianfan' },
    resolutions: { value: ['540p', '720p', '1080p'], evidence: 'OFF-Qianfan' },
    aspectRatios: VIDU_RATIOS_Q2,
  },
  {
    code: 'VQ3T',
    family: 'vidu',
    endpoints: {
      text_to_video: { value: 5000, evidence: 'OFF-frag' },
      image_to_video: { value: 5000, evidence: 'INF', note: 'not in the image-to-video table; the text-to-video figure' },
    },
    durations: { value: { min: 1, max: 16 }, evidence: 'OFF-Qianfan' },
    resolutions: { value: ['540p', '720p', '1080p'], evidence: 'OFF-Qianfan' },
    aspectRatios: VIDU_RATIOS_Q2,
  },
  {
    code: 'P35',
    family: 'pixverse',
    endpoints: { text_to_video: { value: 2048, evidence: 'OFF' }, image_to_video: { value: 2048, evidence: 'OFF' } },
    durations: PIXVERSE_DURATIONS,
    resolutions: PIXVERSE_RESOLUTIONS,
    aspectRatios: PIXVERSE_RATIOS,
  },
  {
    code: 'P40',
    family: 'pixverse',
    endpoints: { text_to_video: { value: 2048, evidence: 'OFF' }, image_to_video: { value: 2048, evidence: 'OFF' } },
    durations: PIXVERSE_DURATIONS,
    resolutions: PIXVERSE_RESOLUTIONS,
    aspectRatios: PIXVERSE_RATIOS,
  },
  {
    code: 'P45',
    family: 'pixverse',
    endpoints: { text_to_video: { value: 2048, evidence: 'OFF' }, image_to_video: { value: 2048, evidence: 'OFF' } },
    durations: PIXVERSE_DURATIONS,
    resolutions: PIXVERSE_RESOLUTIONS,
    aspectRatios: PIXVERSE_RATIOS,
  },
  {
    code: 'P50',
    family: 'pixverse',
    endpoints: { text_to_video: { value: 2048, evidence: 'OFF' }, image_to_video: { value: 2048, evidence: 'OFF' } },
    durations: PIXVERSE_DURATIONS,
    resolutions: PIXVERSE_RESOLUTIONS,
    aspectRatios: PIXVERSE_RATIOS,
  },
  {
    code: 'P55',
    family: 'pixverse',
    endpoints: { text_to_video: { value: 2048, evidence: 'OFF' }, image_to_video: { value: 2048, evidence: 'OFF' } },
    durations: PIXVERSE_DURATIONS,
    resolutions: PIXVERSE_RESOLUTIONS,
    aspectRatios: PIXVERSE_RATIOS,
  },
  {
    code: 'K16',
    family: 'kling',
    endpoints: { text_to_video: { value: 2500, evidence: 'OFF' }, image_to_video: { value: 2500, evidence: 'OFF' } },
    durations: KLING_DURATIONS,
    resolutions: KLING_RESOLUTIONS,
    aspectRatios: KLING_RATIOS,
  },
  {
    code: 'K20',
    family: 'kling',
    endpoints: { text_to_video: { value: 2500, evidence: 'OFF' }, image_to_video: { value: 2500, evidence: 'OFF' } },
    durations: KLING_DURATIONS,
    resolutions: KLING_RESOLUTIONS,
    aspectRatios: KLING_RATIOS,
  },
  {
    code: 'K21',
    family: 'kling',
    endpoints: { image_to_video: { value: 2500, evidence: 'OFF' } },
    durations: KLING_DURATIONS,
    resolutions: KLING_RESOLUTIONS,
    aspectRatios: KLING_RATIOS,
  },
  {
    code: 'K21M',
    family: 'kling',
    endpoints: { text_to_video: { value: 2500, evidence: 'OFF' }, image_to_video: { value: 2500, evidence: 'OFF' } },
    durations: KLING_DURATIONS,
    resolutions: KLING_RESOLUTIONS,
    aspectRatios: KLING_RATIOS,
  },
  {
    code: 'K25T',
    family: 'kling',
    endpoints: { text_to_video: { value: 2500, evidence: 'OFF' }, image_to_video: { value: 2500, evidence: 'OFF' } },
    durations: KLING_DURATIONS,
    resolutions: KLING_RESOLUTIONS,
    aspectRatios: KLING_RATIOS,
  },
  // Sound only from Kling 2.6 on [OFF-Qianfan]; its VOD name is a guess ("sound/generateAudio", docs/platforms/b.md#fields).
  {
    code: 'K26',
    family: 'kling',
    endpoints: { text_to_video: { value: 2500, evidence: 'OFF' }, image_to_video: { value: 2500, evidence: 'OFF' } },
    durations: KLING_DURATIONS,
    resolutions: KLING_RESOLUTIONS,
    aspectRatios: KLING_RATIOS,
    fields: { audio: { name: 'sound', evidence: 'GUESS', values: { true: 'on', false: 'off' }, note: "the vendor's sound on|off" } },
  },
  {
    code: 'KO1',
    family: 'kling',
    endpoints: { image_to_video: { value: 2500, evidence: 'OFF' } },
    durations: KLING_DURATIONS,
    resolutions: KLING_RESOLUTIONS,
    aspectRatios: KLING_RATIOS,
  },
  {
    code: 'H20',
    family: 'hailuo',
    endpoints: { text_to_video: { value: 2000, evidence: 'OFF' } },
    durations: HAILUO_DURATIONS,
    resolutions: HAILUO_RESOLUTIONS,
    aspectRatios: HAILUO_RATIOS,
  },
  {
    code: 'H23',
    family: 'hailuo',
    endpoints: { text_to_video: { value: 2000, evidence: 'OFF' }, image_to_video: { value: 2000, evidence: 'OFF' } },
    durations: HAILUO_DURATIONS,
    resolutions: HAILUO_RESOLUTIONS,
    aspectRatios: HAILUO_RATIOS,
  },
  {
    code: 'H23F',
    family: 'hailuo',
    endpoints: { image_to_video: { value: 2000, evidence: 'OFF' } },
    durations: HAILUO_DURATIONS,
    resolutions: HAILUO_RESOLUTIONS,
    aspectRatios: HAILUO_RATIOS,
  },
  {
    code: 'VE3.1',
    family: 'veo',
    endpoints: {
      text_to_video: { value: 2000, evidence: 'INF', note: 'the image-to-video figure' },
      image_to_video: { value: 2000, evidence: 'OFF' },
    },
    durations: VEO_DURATIONS,
    resolutions: VEO_RESOLUTIONS,
    aspectRatios: VEO_RATIOS,
    maxReferenceImages: VEO_REFERENCE_IMAGES,
  },
  {
    code: 'VE3.1F',
    family: 'veo',
    endpoints: {
      text_to_video: { value: 2000, evidence: 'INF', note: 'the image-to-video figure' },
      image_to_video: { value: 2000, evidence: 'OFF' },
    },
    durations: VEO_DURATIONS,
    resolutions: VEO_RESOLUTIONS,
    aspectRatios: VEO_RATIOS,
    maxReferenceImages: VEO_REFERENCE_IMAGES,
  },
  {
    code: 'VE3.1P',
    family: 'veo',
    endpoints: {
      text_to_video: { value: 2000, evidence: 'INF', note: 'the image-to-video figure' },
      image_to_video: { value: 2000, evidence: 'OFF' },
    },
    durations: VEO_DURATIONS,
    resolutions: VEO_RESOLUTIONS,
    aspectRatios: VEO_RATIOS,
    maxReferenceImages: VEO_REFERENCE_IMAGES,
  },
  {
    code: 'VE3.1FP',
    family: 'veo',
    endpoints: {
      text_to_video: { value: 2000, evidence: 'INF', note: 'the image-to-video figure' },
      image_to_video: { value: 2000, evidence: 'OFF' },
    },
    durations: VEO_DURATIONS,
    resolutions: VEO_RESOLUTIONS,
    aspectRatios: VEO_RATIOS,
    maxReferenceImages: VEO_REFERENCE_IMAGES,
  },
];

// ------------------------------------------------------------------------------------------ image models (docs/platforms/b.md#images)

/** `size` is an aspect ratio from this list [OFF Zmj5q4qb3]. */
const IMAGE_SIZES: Tagged<readonly string[]> = {
  value: ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'],
  evidence: 'OFF',
};

/** The model table [OFF]: NB i2i ≤ 3 inputs, 1 output, 1K; NBP ≤ 14, 1 output, 1K/2K/4K; I4YG1/I4FG1 no i2i, 1–4, 1K. */
const IMAGE: readonly ImageModelSpec[] = [
  {
    code: 'NB',
    maxImages: { value: 1, evidence: 'OFF' },
    qualities: { value: ['1K'], evidence: 'OFF' },
    maxReferenceImages: { value: 3, evidence: 'OFF' },
    sizes: IMAGE_SIZES,
  },
  {
    code: 'NBP',
    maxImages: { value: 1, evidence: 'OFF' },
    qualities: { value: ['1K', '2K', '4K'], evidence: 'OFF' },
    maxReferenceImages: { value: 14, evidence: 'OFF' },
    sizes: IMAGE_SIZES,
  },
  {
    code: 'NB2',
    maxImages: { value: 1, evidence: 'INF', note: 'in the spec and a newer doc version; limits as NB' },
    qualities: { value: ['1K'], evidence: 'INF', note: 'in the spec and a newer doc version; limits as NB' },
    maxReferenceImages: { value: 3, evidence: 'INF', note: 'in the spec and a newer doc version; limits as NB' },
    sizes: IMAGE_SIZES,
  },
  {
    code: 'I4YG1',
    maxImages: { value: 4, evidence: 'OFF' },
    qualities: { value: ['1K'], evidence: 'OFF' },
    maxReferenceImages: { value: 0, evidence: 'OFF' },
    sizes: IMAGE_SIZES,
  },
  {
    code: 'I4FG1',
    maxImages: { value: 4, evidence: 'OFF' },
    qualities: { value: ['1K'], evidence: 'OFF' },
    maxReferenceImages: { value: 0, evidence: 'OFF' },
    sizes: IMAGE_SIZES,
  },
  {
    code: 'I4G1',
    maxImages: { value: 4, evidence: 'INF', note: 'in the spec and a newer doc version; limits as I4YG1' },
    qualities: { value: ['1K'], evidence: 'INF', note: 'in the spec and a newer doc version; limits as I4YG1' },
    maxReferenceImages: { value: 0, evidence: 'INF', note: 'in the spec and a newer doc version; limits as I4YG1' },
    sizes: IMAGE_SIZES,
  },
];

export const B_MODELS_DATA: BModelsData = {
  families: FAMILIES,
  video: VIDEO,
  image: IMAGE,
  imageMessage: {
    value: 'one user message: {"type":"text","text"} then {"type":"image_url","image_item":{"image_url"}} per reference image',
    evidence: '3P',
    note: 'two independent 3P clients agree; AIGCImageMessage was not seen officially',
  },
};

// ------------------------------------------------------------------------------------------ catalogue records

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
    if (fieldFor(m, 'lastFrame', 'image_to_video') || fieldFor(m, 'firstLastFrames', 'image_to_video'))
      capabilities.push('first_last_frame');
    if (fieldFor(m, 'referenceImages', 'image_to_video') && (m.maxReferenceImages?.value ?? 0) > 0) capabilities.push('reference_images');
  }
  if (m.fields.audio) capabilities.push('sound');
  const promptTags = [t2v, i2v].filter((x): x is Tagged<number> => x !== undefined);
  const promptFact: Tagged<number> = {
    value: Math.max(...promptTags.map((p) => p.value)),
    evidence: weakest(promptTags.map((p) => p.evidence))!,
  };
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

/** docs/api.md "Image requests"'s `standard` is 1K and `hd` 4K; B's own 1K/2K/4K pass as they are (request-body.ts IMAGE_QUALITY). */
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
