/**
 * Platform B's models as the public sources describe them (../shared/platforms/b-baidu-vod.md, cited by section),
 * every fact tagged [OFF]/[OFF-frag]/[OFF-Qianfan]/[3P]/[INF]/[GUESS] (model-spec.ts). These are defaults: an
 * operator corrects any of them without a code change through PLATFORM_B_MODELS_FILE (models-file.ts), e.g. a
 * field name checked against the real account with the API Explorer ("在线调试") each VOD doc page links.
 *
 * A field tagged GUESS follows VOD's house style (the vendor's parameter in camelCase, `{imageUrl}` objects, as
 * the official Vidu and 3P Veo examples show) but was seen nowhere: the real platform ignores a field it does not
 * know (§2.1), so a wrong guess would silently do nothing. Verify GUESS fields before relying on them.
 */
import type { ConstantSpec, FamilySpec, FieldSpec, ImageModelSpec, Tagged, VideoModelSpec, BModelsData, Evidence, VideoEndpoint } from './model-spec';

const tag = <T>(value: T, evidence: Evidence, note?: string): Tagged<T> => (note ? { value, evidence, note } : { value, evidence });
const field = (name: string, evidence: Evidence, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, evidence, ...extra });
const constant = (value: ConstantSpec['value'], evidence: Evidence, note?: string): ConstantSpec => (note ? { value, evidence, note } : { value, evidence });
const I2V: readonly VideoEndpoint[] = ['image_to_video'];
const T2V: readonly VideoEndpoint[] = ['text_to_video'];

// ------------------------------------------------------------------------------------------ families (§2.4)

const FAMILIES: BModelsData['families'] = {
  vidu: {
    label: 'Vidu',
    fields: {
      prompt: field('prompt', 'OFF'),
      duration: field('duration', 'OFF', { note: 'V10 text-to-video and V15 image-to-video examples: 4' }),
      resolution: field('resolution', 'OFF', { note: 'official examples write "720p"' }),
      aspectRatio: field('aspectRatio', '3P'),
      firstFrame: field('image', '3P', { endpoints: I2V, note: 'single-image mode' }),
      firstLastFrames: field('headtailImages', 'OFF', { endpoints: I2V, note: 'first+last-frame mode, VIDEO_GENERATE_COMPLETE example (§7.2)' }),
    },
    // The official first+last-frame example sends it; "auto" is the vendor's default (Qianfan), so it asks nothing extra.
    constants: { movementAmplitude: constant('auto', 'OFF', 'value of the official example (§7.2)') },
    imageFormats: tag(['jpg', 'jpeg', 'png'], 'OFF', '< 50 MB, aspect 1:4 to 4:1 (not checkable from a URL)'),
  },
  veo: {
    label: 'Veo',
    // Every name from one production gateway with JSON-equality tests [3P ids 61368595862, 61501476469].
    fields: {
      prompt: field('prompt', '3P'),
      negativePrompt: field('negativePrompt', '3P'),
      duration: field('durationSeconds', '3P'),
      resolution: field('resolution', '3P'),
      aspectRatio: field('aspectRatio', '3P'),
      audio: field('generateAudio', '3P'),
      firstFrame: field('image', '3P', { endpoints: I2V }),
      lastFrame: field('lastFrame', '3P', { endpoints: I2V, note: 'requires image' }),
      referenceImages: field('referenceImages', '3P', {
        endpoints: I2V,
        single: true,
        note: 'the 3P code sends one {imageUrl} object; several are sent as a list [INF]; not with first/last frames',
      }),
      // 0 … 2^32−1 [3P]: set from the dedup key, it makes every submit's body unique, so reconciliation is exact.
      seed: field('seed', '3P', { note: 'derived from the submit; a request cannot set it' }),
    },
    constants: { n: constant(1, '3P', 'the 3P text-to-video body (§2.4) sends n: 1; Veo on VOD makes one video per task') },
    imageFormats: tag(['jpg', 'jpeg', 'png'], 'OFF'),
  },
  kling: {
    label: 'Kling',
    // VOD's names are unknown (§2.4): the vendor's parameters in VOD's camelCase style [GUESS].
    fields: {
      prompt: field('prompt', 'INF', { note: 'every documented family calls it prompt' }),
      negativePrompt: field('negativePrompt', 'GUESS'),
      duration: field('duration', 'GUESS', { note: 'values 5|10 [OFF-Qianfan]' }),
      resolution: field('mode', 'GUESS', { values: { '720p': 'std', '1080p': 'pro' }, note: 'the vendor sets resolution through mode std|pro' }),
      aspectRatio: field('aspectRatio', 'GUESS', { endpoints: T2V, note: 'image-to-video follows the input image' }),
      firstFrame: field('image', 'GUESS', { endpoints: I2V }),
      lastFrame: field('imageTail', 'GUESS', { endpoints: I2V, note: "the vendor's image_tail" }),
    },
    constants: {},
    imageFormats: tag(['jpg', 'jpeg', 'png'], 'OFF', '≤ 10 MB, ≥ 300 px, aspect 1:2.5 to 2.5:1 (not checkable from a URL)'),
  },
  pixverse: {
    label: 'PixVerse',
    fields: {
      prompt: field('prompt', 'INF', { note: 'every documented family calls it prompt' }),
      negativePrompt: field('negativePrompt', 'GUESS'),
      duration: field('duration', 'GUESS'),
      resolution: field('quality', 'GUESS', { note: 'the vendor calls the resolution quality ("540p")' }),
      aspectRatio: field('aspectRatio', 'GUESS', { endpoints: T2V, note: 'image-to-video follows the input image' }),
      firstFrame: field('image', 'GUESS', { endpoints: I2V }),
    },
    constants: {},
    // Only "max 4000×4000" is documented [OFF]: no file type to check.
  },
  hailuo: {
    label: 'Hailuo',
    fields: {
      prompt: field('prompt', 'INF', { note: 'every documented family calls it prompt' }),
      duration: field('duration', 'GUESS'),
      resolution: field('resolution', 'GUESS'),
      firstFrame: field('firstFrame', 'GUESS', { endpoints: I2V, note: "the page's guess (firstFrame/lastFrame)" }),
      lastFrame: field('lastFrame', 'GUESS', { endpoints: I2V }),
    },
    constants: {},
    imageFormats: tag(['jpg', 'jpeg', 'png', 'webp'], 'OFF', '< 20 MB, short side > 300 px, aspect 2:5 to 5:2 (not checkable from a URL)'),
  },
};

// ------------------------------------------------------------------------------------------ video models

/**
 * Prompt limits and which endpoint lists which model [OFF] (§2.2 text-to-video 2026-02-03, §2.3 image-to-video
 * 2026-01-23; the I2V model enum [OFF-frag]). V20, VQ1C, VQ2T, VQ2P, VQ2PF, K21, KO1, H23F are image-to-video
 * only; H20 is text-to-video only. Where two doc versions disagree (VQ1, VQ2 text-to-video: 1500/2000 or 5000)
 * the stricter figure is used.
 */
const prompt = (max: number, evidence: Evidence = 'OFF', note?: string) => tag(max, evidence, note);

// Vidu value ranges are Qianfan's for the same vendor models [OFF-Qianfan], not confirmed for VOD.
const VIDU_RATIOS_Q1 = tag(['16:9', '9:16', '1:1'], 'OFF-Qianfan');
const VIDU_RATIOS_Q2 = tag(['16:9', '9:16', '1:1', '4:3', '3:4'], 'OFF-Qianfan');
const viduQ2 = (code: string, endpoints: VideoModelSpec['endpoints'], evidence: Evidence = 'OFF-Qianfan'): VideoModelSpec => ({
  code,
  family: 'vidu',
  endpoints,
  durations: tag({ min: 1, max: 10 }, evidence, evidence === 'INF' ? 'as VQ2' : undefined),
  resolutions: tag(['540p', '720p', '1080p'], evidence),
  aspectRatios: VIDU_RATIOS_Q2,
});
const viduQ3 = (code: string): VideoModelSpec => ({
  code,
  family: 'vidu',
  endpoints: { text_to_video: prompt(5000, 'OFF-frag'), image_to_video: prompt(5000, 'INF', 'not in the image-to-video table; the text-to-video figure') },
  durations: tag({ min: 1, max: 16 }, 'OFF-Qianfan'),
  resolutions: tag(['540p', '720p', '1080p'], 'OFF-Qianfan'),
  aspectRatios: VIDU_RATIOS_Q2,
});

// Veo: [3P] values (durationSeconds 4|6|8, 720p|1080p|4k, 16:9|9:16); the 2000 prompt limit is the I2V page's [OFF].
const veo = (code: string): VideoModelSpec => ({
  code,
  family: 'veo',
  endpoints: { text_to_video: prompt(2000, 'INF', 'the image-to-video figure'), image_to_video: prompt(2000) },
  durations: tag({ values: [4, 6, 8] }, '3P'),
  resolutions: tag(['720p', '1080p', '4k'], '3P'),
  aspectRatios: tag(['16:9', '9:16'], '3P'),
  maxReferenceImages: tag(3, 'INF', "Google Veo 3.1's limit"),
});

// Kling: durations 5|10 [OFF-Qianfan]; resolutions through mode std|pro and aspect ratios are guesses.
const kling = (code: string, endpoints: VideoModelSpec['endpoints'], extra: Partial<VideoModelSpec> = {}): VideoModelSpec => ({
  code,
  family: 'kling',
  endpoints,
  durations: tag({ values: [5, 10] }, 'OFF-Qianfan'),
  resolutions: tag(['720p', '1080p'], 'GUESS', 'std → 720p, pro → 1080p'),
  aspectRatios: tag(['16:9', '9:16', '1:1'], 'GUESS'),
  ...extra,
});
const KLING_BOTH = { text_to_video: prompt(2500), image_to_video: prompt(2500) };

// PixVerse: nothing known about values; the vendor's [GUESS].
const pixverse = (code: string): VideoModelSpec => ({
  code,
  family: 'pixverse',
  endpoints: { text_to_video: prompt(2048), image_to_video: prompt(2048) },
  durations: tag({ values: [5, 8, 10] }, 'GUESS'),
  resolutions: tag(['360p', '540p', '720p', '1080p'], 'GUESS'),
  aspectRatios: tag(['16:9', '9:16', '1:1', '4:3', '3:4'], 'GUESS'),
});

// Hailuo: 6|10 s at 768P|1080P are the page's guesses; no aspect-ratio field is known.
const hailuo = (code: string, endpoints: VideoModelSpec['endpoints']): VideoModelSpec => ({
  code,
  family: 'hailuo',
  endpoints,
  durations: tag({ values: [6, 10] }, 'GUESS'),
  resolutions: tag(['768P', '1080P'], 'GUESS'),
  aspectRatios: tag([], 'GUESS', 'no field known'),
});

const VIDEO: readonly VideoModelSpec[] = [
  {
    code: 'V20',
    family: 'vidu',
    endpoints: { image_to_video: prompt(1500) },
    durations: tag({ values: [4] }, 'OFF-Qianfan'),
    resolutions: tag(['360p', '720p'], 'OFF-Qianfan'),
    aspectRatios: VIDU_RATIOS_Q1,
  },
  ...['VQ1', 'VQ1C'].map(
    (code): VideoModelSpec => ({
      code,
      family: 'vidu',
      endpoints: code === 'VQ1' ? { text_to_video: prompt(1500, 'OFF', 'a fragment says 5000'), image_to_video: prompt(1500) } : { image_to_video: prompt(1500) },
      durations: tag({ values: [5] }, code === 'VQ1' ? 'OFF-Qianfan' : 'INF', code === 'VQ1' ? undefined : 'as VQ1'),
      resolutions: tag(['1080p'], code === 'VQ1' ? 'OFF-Qianfan' : 'INF'),
      aspectRatios: VIDU_RATIOS_Q1,
    }),
  ),
  viduQ2('VQ2', { text_to_video: prompt(2000, 'OFF', 'a fragment says 5000'), image_to_video: prompt(2000) }),
  viduQ2('VQ2T', { image_to_video: prompt(1500) }, 'INF'),
  viduQ2('VQ2P', { image_to_video: prompt(1500) }, 'INF'),
  viduQ2('VQ2PF', { image_to_video: prompt(1500, 'INF', 'not in the prompt table; the VQ2P figure') }, 'INF'),
  viduQ3('VQ3P'),
  viduQ3('VQ3T'),
  ...['P35', 'P40', 'P45', 'P50', 'P55'].map(pixverse),
  kling('K16', KLING_BOTH),
  kling('K20', KLING_BOTH),
  kling('K21', { image_to_video: prompt(2500) }),
  kling('K21M', KLING_BOTH),
  kling('K25T', KLING_BOTH),
  // Sound only from Kling 2.6 on [OFF-Qianfan]; its VOD name is a guess ("sound/generateAudio", §2.4).
  kling('K26', KLING_BOTH, { fields: { audio: field('sound', 'GUESS', { values: { true: 'on', false: 'off' }, note: "the vendor's sound on|off" }) } }),
  kling('KO1', { image_to_video: prompt(2500) }),
  hailuo('H20', { text_to_video: prompt(2000) }),
  hailuo('H23', { text_to_video: prompt(2000), image_to_video: prompt(2000) }),
  hailuo('H23F', { image_to_video: prompt(2000) }),
  ...['VE3.1', 'VE3.1F', 'VE3.1P', 'VE3.1FP'].map(veo),
];

// ------------------------------------------------------------------------------------------ image models (§2.5)

/** `size` is an aspect ratio from this list [OFF Zmj5q4qb3]. */
const IMAGE_SIZES = tag(['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'], 'OFF');

const image = (code: string, maxReferenceImages: number, maxImages: number, qualities: ImageModelSpec['qualities']['value'], evidence: Evidence, note?: string): ImageModelSpec => ({
  code,
  maxImages: tag(maxImages, evidence, note),
  qualities: tag(qualities, evidence, note),
  maxReferenceImages: tag(maxReferenceImages, evidence, note),
  sizes: IMAGE_SIZES,
});

/** The model table [OFF]: NB i2i ≤ 3 inputs, 1 output, 1K; NBP ≤ 14, 1 output, 1K/2K/4K; I4YG1/I4FG1 no i2i, 1–4, 1K. */
const IMAGE: readonly ImageModelSpec[] = [
  image('NB', 3, 1, ['1K'], 'OFF'),
  image('NBP', 14, 1, ['1K', '2K', '4K'], 'OFF'),
  image('NB2', 3, 1, ['1K'], 'INF', 'in the spec and a newer doc version; limits as NB'),
  image('I4YG1', 0, 4, ['1K'], 'OFF'),
  image('I4FG1', 0, 4, ['1K'], 'OFF'),
  image('I4G1', 0, 4, ['1K'], 'INF', 'in the spec and a newer doc version; limits as I4YG1'),
];

export const B_MODELS_DATA: BModelsData = {
  families: FAMILIES satisfies Record<string, FamilySpec>,
  video: VIDEO,
  image: IMAGE,
  imageMessage: tag(
    'one user message: {"type":"text","text"} then {"type":"image_url","image_item":{"image_url"}} per reference image',
    '3P',
    'two independent 3P clients agree; AIGCImageMessage was not seen officially',
  ),
};
