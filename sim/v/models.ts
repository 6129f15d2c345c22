/**
 * Platform V's Seedance models and their limits, as the simulator knows them. Model ids as Volcengine Ark names
 * them (`doubao-seedance-…`; BytePlus spells some differently, e.g. `dreamina-seedance-2-0-260128`, which this
 * simulator — playing Volcengine — does not accept). Each entry says where its figures come from; GUESS marks a
 * choice no source settles.
 *
 * Sources: docs/platforms/v.md (its calls and corrections); the official Ark SDK volcengine-ark-runtime 5.0.54
 * (the create parameters exist, their limits are not in it); Volcengine's 视频生成 API docs
 * (volcengine.com/docs/82379/1520757) as relayed by API resellers that republish them (acedata, anyfast,
 * BytePlus doc mirrors); Civitai's and fal's Seedance 2.0 tables for the 2.0 reference budget.
 */

export type VMode = 'text' | 'first_frame' | 'first_last_frame' | 'reference_images' | 'reference_media';

export interface VModel {
  id: string;
  modes: readonly VMode[];
  /** Allowed `duration` (whole seconds); `auto` = -1 also accepted (the model chooses). */
  duration: { min: number; max: number; auto: boolean };
  resolutions: readonly string[];
  defaultResolution: string;
  /** `generate_audio` honoured; otherwise ignored ("Other models will ignore this parameter"). */
  audio: boolean;
  /** `draft: true` (a 480p preview) accepted. */
  draft: boolean;
  /**
   * `service_tier: "flex"` (the offline tier) accepted. Third-party summaries of Ark's parameter page say the
   * Seedance 2.0 models do not take it (docs/platforms/v.md#the-offline-tier, unconfirmed).
   */
  flex: boolean;
  /** `tools: [{type: "web_search"}]` accepted. */
  webSearch: boolean;
  /** `frames` (instead of duration) accepted. */
  frames: boolean;
  maxReferenceImages: number;
  maxReferenceVideos: number;
  maxReferenceAudios: number;
  source: string;
}

/** Every ratio Ark documents for Seedance (docs/platforms/v.md#corrections: ratio incl. adaptive and 21:9). */
export const V_RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', 'adaptive'] as const;
export const V_RESOLUTIONS = ['480p', '720p', '1080p'] as const;

const V1_DURATION = { min: 2, max: 12, auto: false };

export const V_MODELS: readonly VModel[] = [
  {
    id: 'doubao-seedance-1-0-pro-250528',
    // Volcengine: 1.0 pro does text-to-video, first frame and first+last frame (docs/platforms/v.md: only pro-fast lacks first+last).
    modes: ['text', 'first_frame', 'first_last_frame'],
    duration: V1_DURATION,
    resolutions: V_RESOLUTIONS,
    defaultResolution: '1080p',
    audio: false,
    draft: false,
    flex: true,
    webSearch: false,
    frames: true,
    maxReferenceImages: 0,
    maxReferenceVideos: 0,
    maxReferenceAudios: 0,
    source: 'Volcengine 视频生成 API (durations 2–12 s, 480p/720p/1080p, default 1080p)',
  },
  {
    id: 'doubao-seedance-1-0-pro-fast-251015',
    // docs/platforms/v.md#corrections: "text-to-video and first frame only (no first/last frame)".
    modes: ['text', 'first_frame'],
    duration: V1_DURATION,
    resolutions: V_RESOLUTIONS,
    defaultResolution: '1080p',
    audio: false,
    draft: false,
    flex: true,
    webSearch: false,
    frames: true,
    maxReferenceImages: 0,
    maxReferenceVideos: 0,
    maxReferenceAudios: 0,
    source: 'docs/platforms/v.md#corrections; Volcengine 视频生成 API',
  },
  {
    id: 'doubao-seedance-1-0-lite-t2v-250428',
    modes: ['text'],
    duration: V1_DURATION,
    resolutions: V_RESOLUTIONS,
    defaultResolution: '720p',
    audio: false,
    draft: false,
    flex: true,
    webSearch: false,
    frames: true,
    maxReferenceImages: 0,
    maxReferenceVideos: 0,
    maxReferenceAudios: 0,
    source: 'Volcengine 视频生成 API (lite t2v: text only)',
  },
  {
    id: 'doubao-seedance-1-0-lite-i2v-250428',
    // Volcengine: lite i2v does first frame, first+last frame and 1–4 reference images; it needs an image.
    modes: ['first_frame', 'first_last_frame', 'reference_images'],
    duration: V1_DURATION,
    resolutions: V_RESOLUTIONS,
    defaultResolution: '720p',
    audio: false,
    draft: false,
    flex: true,
    webSearch: false,
    frames: true,
    maxReferenceImages: 4,
    maxReferenceVideos: 0,
    maxReferenceAudios: 0,
    source: 'Volcengine 视频生成 API (reference images 1–4)',
  },
  {
    id: 'doubao-seedance-1-5-pro-251215',
    modes: ['text', 'first_frame', 'first_last_frame'],
    // docs/platforms/v.md#corrections: "duration 4–12 s (or −1 = auto), not 2–12".
    duration: { min: 4, max: 12, auto: true },
    resolutions: V_RESOLUTIONS,
    defaultResolution: '720p',
    audio: true,
    // docs/platforms/v.md#corrections: "draft is documented for 1.5-pro at 480p".
    draft: true,
    flex: true,
    webSearch: false,
    frames: false,
    maxReferenceImages: 0,
    maxReferenceVideos: 0,
    maxReferenceAudios: 0,
    source: 'docs/platforms/v.md#corrections; Volcengine 视频生成 API (generate_audio, draft)',
  },
  {
    id: 'doubao-seedance-2-0-260128',
    // No source lists first+last frame for the 2.0 models (docs/platforms/v.md names the modes in general; its 2.0 facts
    // are references, sound and web search): absent here, as the stricter reading. A test switches it on with
    // POST /_sim/v/behaviour {"modelFacts": {"doubao-seedance-2-0-260128": {"modes": [...]}}}.
    modes: ['text', 'first_frame', 'reference_media'],
    // 4–15 s or auto (Civitai/fal Seedance 2.0 tables; Volcengine 2.0 API: [4,15] or -1).
    duration: { min: 4, max: 15, auto: true },
    resolutions: V_RESOLUTIONS,
    defaultResolution: '720p',
    audio: true,
    draft: false,
    flex: false,
    // docs/platforms/v.md#corrections: web search on 2.0 with tools [{type: web_search}].
    webSearch: true,
    frames: false,
    // docs/platforms/v.md#corrections: up to 9 reference images, 3 reference videos, 3 reference audios.
    maxReferenceImages: 9,
    maxReferenceVideos: 3,
    maxReferenceAudios: 3,
    source: 'docs/platforms/v.md#corrections; Civitai Seedance recipe (9 images · 3 videos · 3 audio)',
  },
  {
    id: 'doubao-seedance-2-0-fast-260128',
    // First+last frame: unlisted, as for 2.0 above.
    modes: ['text', 'first_frame', 'reference_media'],
    duration: { min: 4, max: 15, auto: true },
    // docs/platforms/v.md#corrections: "no 1080p reported by several sources" (also Civitai: "v2-fast 480p / 720p").
    resolutions: ['480p', '720p'],
    defaultResolution: '720p',
    audio: true,
    // docs/platforms/v.md#corrections: 2.0-fast draft unverified → refused.
    draft: false,
    flex: false,
    // GUESS: "web search (2.0 only)" read as the 2.0 family; the fast variant shares 2.0's request format.
    webSearch: true,
    frames: false,
    maxReferenceImages: 9,
    maxReferenceVideos: 3,
    maxReferenceAudios: 3,
    source: 'docs/platforms/v.md#corrections; Civitai Seedance recipe',
  },
];

export function findVModel(id: string): VModel | undefined {
  return V_MODELS.find((m) => m.id === id);
}

/** What a test may change of a model's facts (POST /_sim/v/behaviour): those no source confirms. */
export type VModelFacts = Partial<Pick<VModel, 'modes' | 'maxReferenceImages' | 'maxReferenceVideos' | 'maxReferenceAudios'>>;

/** A lookup of the models with `facts` laid over the documented ones. */
export function vModelsWith(facts: Readonly<Record<string, VModelFacts>>): (id: string) => VModel | undefined {
  return (id) => {
    const model = findVModel(id);
    return model && facts[id] ? { ...model, ...facts[id] } : model;
  };
}

/**
 * Output size per resolution and ratio (Volcengine's Seedance pricing tables: tokens = w × h × fps × s / 1024),
 * for the task's `usage`. `adaptive` is billed as 16:9 here.
 */
export const V_DIMENSIONS: Record<string, Record<string, [number, number]>> = {
  '480p': { '16:9': [864, 480], '4:3': [736, 544], '1:1': [640, 640], '3:4': [544, 736], '9:16': [480, 864], '21:9': [960, 416] },
  '720p': { '16:9': [1248, 704], '4:3': [1120, 832], '1:1': [960, 960], '3:4': [832, 1120], '9:16': [704, 1248], '21:9': [1504, 640] },
  '1080p': {
    '16:9': [1920, 1088],
    '4:3': [1664, 1248],
    '1:1': [1440, 1440],
    '3:4': [1248, 1664],
    '9:16': [1088, 1920],
    '21:9': [2176, 928],
  },
};

export const V_FPS = 24;
