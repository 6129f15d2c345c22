/**
 * Model-dependent request rules (spec §4 "Rules for video requests", spec 2.2 size conversion, per-model
 * durations and resolutions of spec 2.5), driven by the catalogue. Input has already passed the zod schema.
 *
 * Every rejection names the field (`param`) and says what would be accepted. Nothing a client sends is
 * silently dropped: a field the model's platform cannot carry is an error, not a no-op.
 */
import { describeDurations, durationAllowed, type Capability, type Catalogue, type ModelEntry } from './catalogue';
import type { Platform } from './platforms';
import type { GenerationRequest, ImageRequest, VideoRequest } from './schemas';

export class RequestRuleError extends Error {
  override name = 'RequestRuleError';
  constructor(
    readonly param: string,
    message: string,
    readonly code: string = 'invalid_value',
  ) {
    super(message);
  }
}

export interface ValidatedRequest {
  entry: ModelEntry;
  request: GenerationRequest;
}

/** Fields that only some platforms carry; anything else in the schema is common to all of them. */
const VIDEO_FIELDS_BY_PLATFORM: Record<string, readonly Platform[]> = {
  ratio: ['V', 'T'],
  generate_audio: ['V', 'T'],
  service_tier: ['V'],
  image_role: ['V'],
  last_frame_url: ['V', 'T'],
  video_url: ['V'],
  audio_url: ['V'],
  images: ['V'],
  videos: ['V'],
  watermark: ['V'],
  return_last_frame: ['V'],
  image: ['B'],
  audio: ['B'],
  bgm: ['B'],
  output_config: ['T'],
  file_infos: ['T'],
  negative_prompt: ['T'],
  enhance_prompt: ['T'],
};

const IMAGE_FIELDS_BY_PLATFORM: Record<string, readonly Platform[]> = {
  n: ['B'],
  enhance_prompt: ['T'],
  output_config: ['T'],
  file_infos: ['T'],
};

const PLATFORM_NAMES: Record<Platform, string> = { T: 'platform T', B: 'platform B', V: 'platform V' };

function checkPlatformFields(
  body: Record<string, unknown>,
  fields: Record<string, readonly Platform[]>,
  entry: ModelEntry,
): void {
  for (const [field, platforms] of Object.entries(fields)) {
    if (body[field] === undefined || platforms.includes(entry.platform)) continue;
    const where = platforms.map((p) => PLATFORM_NAMES[p]).join(' and ');
    throw new RequestRuleError(field, `${field} is only supported by ${where} models; ${entry.id} is a ${PLATFORM_NAMES[entry.platform]} model`, 'unsupported_parameter');
  }
}

function requireCapability(entry: ModelEntry, cap: Capability, param: string, what: string): void {
  if (!entry.capabilities.includes(cap)) {
    throw new RequestRuleError(param, `${entry.id} does not support ${what}`, 'unsupported_parameter');
  }
}

export function lookupModel(catalogue: Catalogue, kind: 'video' | 'image', model: string, enabled: ReadonlySet<Platform>): ModelEntry {
  const entry = catalogue.find(kind, model);
  if (!entry || !enabled.has(entry.platform)) {
    throw new RequestRuleError('model', `The model '${model}' does not exist or is not available for ${kind} generation; GET /v1/models lists the available models`, 'model_not_found');
  }
  return entry;
}

function normaliseResolution(entry: ModelEntry, value: string, param: string): string {
  const match = entry.resolutions?.find((r) => r.toLowerCase() === value.toLowerCase());
  if (!match) {
    throw new RequestRuleError(param, `${param} '${value}' is not supported by ${entry.id}; use one of ${(entry.resolutions ?? []).join(', ')}`);
  }
  return match;
}

function checkDuration(entry: ModelEntry, seconds: number, param: string): void {
  if (entry.durations && !durationAllowed(entry.durations, seconds)) {
    throw new RequestRuleError(param, `${param} ${seconds} is not supported by ${entry.id}; use ${describeDurations(entry.durations)}`);
  }
}

// ---------------------------------------------------------------------------------------------- video

export function validateVideo(entry: ModelEntry, body: VideoRequest): GenerationRequest {
  checkPlatformFields(body, VIDEO_FIELDS_BY_PLATFORM, entry);
  const req: VideoRequest = { ...body };

  if (req.resolution !== undefined) req.resolution = normaliseResolution(entry, req.resolution, 'resolution');
  if (req.generate_audio === true) requireCapability(entry, 'sound', 'generate_audio', 'generate_audio (video with sound)');
  if (req.service_tier === 'draft') requireCapability(entry, 'draft', 'service_tier', 'draft mode');
  if (req.video_url !== undefined || req.videos !== undefined) {
    requireCapability(entry, 'reference_video', req.video_url !== undefined ? 'video_url' : 'videos', 'reference videos (video editing)');
  }
  if (req.audio_url !== undefined) requireCapability(entry, 'reference_audio', 'audio_url', 'reference audio');

  switch (entry.platform) {
    case 'V':
      validateVideoV(entry, req);
      break;
    case 'B':
      validateVideoB(entry, req);
      break;
    case 'T':
      validateVideoT(entry, req);
      break;
  }
  return { kind: 'video', ...req };
}

/** Images a request carries, whatever field it uses, with the role each plays. */
function imageRoles(req: VideoRequest): string[] {
  const roles: string[] = [];
  if (req.image_url !== undefined) roles.push(req.image_role ?? 'first_frame');
  if (req.last_frame_url !== undefined) roles.push('last_frame');
  for (const i of req.images ?? []) roles.push(i.role);
  if (req.image !== undefined) roles.push('first_frame');
  for (const f of req.file_infos ?? []) {
    roles.push(f.Usage === 'LastFrame' ? 'last_frame' : f.Usage === 'Reference' ? 'reference_image' : 'first_frame');
  }
  return roles;
}

function checkTextOrImage(entry: ModelEntry, req: VideoRequest, roles: string[]): void {
  if (roles.length === 0) {
    requireCapability(entry, 'text_to_video', 'image_url', 'text-to-video; it needs an input image (image_url)');
    if (!req.prompt) throw new RequestRuleError('prompt', 'prompt is required for text-to-video', 'missing_parameter');
    return;
  }
  if (req.action === 'text_to_video') {
    throw new RequestRuleError('action', 'action "text_to_video" takes no input image; remove the image or use "image_to_video"');
  }
  requireCapability(entry, 'image_to_video', 'image_url', 'image-to-video');
}

function checkFrameRoles(entry: ModelEntry, req: VideoRequest, roles: string[]): void {
  if (req.last_frame_url !== undefined && req.image_url === undefined && req.file_infos === undefined) {
    throw new RequestRuleError('last_frame_url', 'last_frame_url is only accepted together with image_url (first/last frame control)');
  }
  const first = roles.filter((r) => r === 'first_frame').length;
  const last = roles.filter((r) => r === 'last_frame').length;
  const reference = roles.filter((r) => r === 'reference_image').length;
  const param = req.last_frame_url !== undefined ? 'last_frame_url' : req.images ? 'images' : 'image_url';
  if (first > 1 || last > 1) throw new RequestRuleError(param, 'at most one first frame and one last frame may be given');
  if (last > 0) requireCapability(entry, 'first_last_frame', param, 'first/last frame control');
  if (reference > 0) {
    requireCapability(entry, 'reference_images', req.images ? 'images' : 'image_url', 'reference images');
    if (first + last > 0) {
      throw new RequestRuleError(param, 'reference images cannot be combined with first/last frames: the modes are exclusive');
    }
  }
}

function validateVideoV(entry: ModelEntry, req: VideoRequest): void {
  if (req.duration === undefined) {
    throw new RequestRuleError('duration', `duration is required for ${entry.id}: ${describeDurations(entry.durations!)} (5 to 10 recommended)`, 'missing_parameter');
  }
  checkDuration(entry, req.duration, 'duration');
  const roles = imageRoles(req);
  if (roles.length === 0 && (req.video_url || req.videos)) {
    // Video editing: a reference video with a prompt is a complete request.
    if (!req.prompt) throw new RequestRuleError('prompt', 'prompt is required with a reference video', 'missing_parameter');
  } else {
    checkTextOrImage(entry, req, roles);
  }
  checkFrameRoles(entry, req, roles);
  const refs = roles.filter((r) => r === 'reference_image').length;
  if (refs > 4) throw new RequestRuleError('images', 'at most 4 reference images are accepted');
}

function validateVideoB(entry: ModelEntry, req: VideoRequest): void {
  const action = req.action ?? 'image_to_video';
  if (action === 'text_to_video') {
    if (req.image !== undefined || req.image_url !== undefined) {
      throw new RequestRuleError('action', 'action "text_to_video" takes no input image; remove image or use "image_to_video"');
    }
    requireCapability(entry, 'text_to_video', 'action', 'text-to-video');
    if (!req.prompt) throw new RequestRuleError('prompt', 'prompt is required for text-to-video', 'missing_parameter');
  } else {
    if (req.image === undefined && req.image_url === undefined) {
      throw new RequestRuleError('image', `image ({"imageUrl": "<url>"}) is required for image-to-video on ${entry.id}; for text-to-video set action to "text_to_video"`, 'missing_parameter');
    }
    if (req.image !== undefined && req.image_url !== undefined && req.image.imageUrl !== req.image_url) {
      throw new RequestRuleError('image_url', 'image_url and image.imageUrl disagree; send one of them');
    }
    requireCapability(entry, 'image_to_video', 'image', 'image-to-video');
  }
  if (req.duration === undefined) {
    throw new RequestRuleError('duration', `duration is required for ${entry.id}: ${describeDurations(entry.durations!)}`, 'missing_parameter');
  }
  checkDuration(entry, req.duration, 'duration');
  if (req.audio === 'true') requireCapability(entry, 'sound', 'audio', 'audio generation');
}

function validateVideoT(entry: ModelEntry, req: VideoRequest): void {
  const oc = req.output_config;
  if (oc?.Resolution !== undefined) oc.Resolution = normaliseResolution(entry, oc.Resolution, 'output_config.Resolution');
  if (oc?.AspectRatio !== undefined && !entry.ratios.includes(oc.AspectRatio)) {
    throw new RequestRuleError('output_config.AspectRatio', `AspectRatio '${oc.AspectRatio}' is not supported; use one of ${entry.ratios.join(', ')}`);
  }
  if (oc?.AudioGeneration === 'Enabled') requireCapability(entry, 'sound', 'output_config.AudioGeneration', 'audio generation');
  if (oc?.Duration !== undefined) checkDuration(entry, oc.Duration, 'output_config.Duration');
  if (req.duration !== undefined) checkDuration(entry, req.duration, 'duration');
  const roles = imageRoles(req);
  checkTextOrImage(entry, req, roles);
  checkFrameRoles(entry, req, roles);
}

// ---------------------------------------------------------------------------------------------- image

/** Spec 2.2 size table: these sizes use the listed ratio, not their arithmetic one. */
const SIZE_TABLE: Record<string, string> = {
  '1024x1024': '1:1',
  '512x512': '1:1',
  '1792x1024': '16:9',
  '1920x1080': '16:9',
  '1024x1792': '9:16',
  '1080x1920': '9:16',
};

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Converts spec 2.2 `size` (a listed size, a ratio, or any `WxH`) to the aspect ratio actually used. */
export function sizeToRatio(entry: ModelEntry, size: string): string {
  const s = size.trim().toLowerCase();
  let ratio: string | undefined = SIZE_TABLE[s];
  if (!ratio) {
    const ratioMatch = /^(\d{1,5}):(\d{1,5})$/.exec(s);
    const sizeMatch = /^(\d{1,5})x(\d{1,5})$/.exec(s);
    if (ratioMatch) {
      ratio = s;
    } else if (sizeMatch) {
      const w = Number(sizeMatch[1]);
      const h = Number(sizeMatch[2]);
      if (w === 0 || h === 0) throw new RequestRuleError('size', `size '${size}' has a zero dimension`);
      const d = gcd(w, h);
      ratio = `${w / d}:${h / d}`;
    } else {
      throw new RequestRuleError('size', `size '${size}' must be a pixel size like 1024x1024 or an aspect ratio like 16:9`);
    }
  }
  if (!entry.ratios.includes(ratio)) {
    throw new RequestRuleError('size', `size '${size}' means aspect ratio ${ratio}, which ${entry.id} does not support; use one of ${entry.ratios.join(', ')}`);
  }
  return ratio;
}

export function validateImage(entry: ModelEntry, body: ImageRequest): GenerationRequest {
  checkPlatformFields(body, IMAGE_FIELDS_BY_PLATFORM, entry);
  const req: ImageRequest & { ratio?: string } = { ...body };
  if (req.quality !== undefined && !(entry.qualities ?? []).includes(req.quality)) {
    throw new RequestRuleError('quality', `quality '${req.quality}' is not supported by ${entry.id}; use one of ${(entry.qualities ?? []).join(', ')}`);
  }
  if (req.n !== undefined && req.n > (entry.maxImages ?? 1)) {
    throw new RequestRuleError('n', `n must be between 1 and ${entry.maxImages ?? 1} for ${entry.id}`);
  }
  if (req.size !== undefined) req.ratio = sizeToRatio(entry, req.size);
  const ar = req.output_config?.AspectRatio;
  if (ar !== undefined && !entry.ratios.includes(ar)) {
    throw new RequestRuleError('output_config.AspectRatio', `AspectRatio '${ar}' is not supported; use one of ${entry.ratios.join(', ')}`);
  }
  if (req.file_infos !== undefined) requireCapability(entry, 'image_to_image', 'file_infos', 'reference images');
  return { kind: 'image', ...req };
}

export function validateGeneration(
  catalogue: Catalogue,
  enabled: ReadonlySet<Platform>,
  kind: 'video' | 'image',
  body: VideoRequest | ImageRequest,
): ValidatedRequest {
  const entry = lookupModel(catalogue, kind, body.model, enabled);
  const request = kind === 'video' ? validateVideo(entry, body as VideoRequest) : validateImage(entry, body as ImageRequest);
  return { entry, request };
}
