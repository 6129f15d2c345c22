/**
 * Platform V's request rules (docs/api.md "Validation rules", rule 3–7), after the general checks of platforms/validation.ts, driven by
 * the catalogue (models.ts). Ark's modes are exclusive: first frame, first + last frame, or reference media
 * (images, videos, audios); reference audio never comes alone (docs/platforms/v.md#corrections).
 */
import type { ModelRecord } from '../../core/catalogue';
import type { GenerationRequest } from '../../core/task';
import type { VideoRequestOf } from '../request';
import { checkFrameRoles, checkTextOrImage, requireCapability, requireDuration, RequestRuleError, type ImageRole } from '../rules';
import { vReferenceLimits } from './models';
import { V_FLEX_DEADLINE_DEFAULT_S, type vVideoFields } from './request-fields';

export type VVideoRequest = VideoRequestOf<typeof vVideoFields>;

/** Draft is a 480p preview ("draft … 480p", docs/platforms/v.md#corrections). */
export const V_DRAFT_RESOLUTION = '480p';

function imageRoles(req: VVideoRequest): ImageRole[] {
  const roles: ImageRole[] = [];
  if (req.image_url !== undefined) roles.push(req.image_role ?? 'first_frame');
  if (req.last_frame_url !== undefined) roles.push('last_frame');
  for (const i of req.images ?? []) roles.push(i.role);
  return roles;
}

/** Draft mode: on a model that has it, at its one resolution. */
function checkDraft(entry: ModelRecord, req: VVideoRequest): void {
  if (req.service_tier !== 'draft') return;
  requireCapability(entry, 'draft', 'service_tier', 'draft mode (service_tier "draft")');
  if (req.resolution !== undefined && req.resolution !== V_DRAFT_RESOLUTION) {
    throw new RequestRuleError(
      'resolution',
      `a draft renders at ${V_DRAFT_RESOLUTION} only; remove resolution or set it to ${V_DRAFT_RESOLUTION}`,
    );
  }
}

/**
 * The offline tier: on a model that has it, never with draft (the two are separate tiers), and a deadline only with it.
 * The deadline the platform applies when the request names none is written into the request, so the task's own
 * deadline and the job's window agree (activities/submit.ts reads `deadline_seconds`).
 */
function checkFlex(entry: ModelRecord, req: VVideoRequest): void {
  if (req.service_tier !== 'flex') {
    if (req.deadline_seconds !== undefined)
      throw new RequestRuleError('deadline_seconds', 'deadline_seconds is only accepted with service_tier "flex" (the offline tier)');
    return;
  }
  requireCapability(entry, 'flex', 'service_tier', 'the offline tier (service_tier "flex")');
  req.deadline_seconds ??= V_FLEX_DEADLINE_DEFAULT_S;
}

/** The reference videos and audio (each given alone or as a list): counted, and checked against what the model takes. */
function referenceMedia(entry: ModelRecord, req: VVideoRequest) {
  const videos = (req.video_url !== undefined ? 1 : 0) + (req.videos?.length ?? 0);
  const audios = (req.audio_url !== undefined ? 1 : 0) + (req.audios?.length ?? 0);
  const videoParam = req.video_url !== undefined ? 'video_url' : 'videos';
  const audioParam = req.audio_url !== undefined ? 'audio_url' : 'audios';
  if (videos > 0) requireCapability(entry, 'reference_video', videoParam, 'reference videos (video editing)');
  if (audios > 0) requireCapability(entry, 'reference_audio', audioParam, 'reference audio');
  const limits = vReferenceLimits(entry);
  if (videos > limits.videos)
    throw new RequestRuleError(
      videoParam,
      `at most ${limits.videos} reference videos are accepted by ${entry.id} (video_url and videos together)`,
    );
  if (audios > limits.audios)
    throw new RequestRuleError(
      audioParam,
      `at most ${limits.audios} reference audios are accepted by ${entry.id} (audio_url and audios together)`,
    );
  return { videos, audios, videoParam, audioParam };
}

/** The images' roles against the model, and against the reference media beside them (the modes are exclusive). */
function checkImages(entry: ModelRecord, req: VVideoRequest, media: ReturnType<typeof referenceMedia>): void {
  const { videos, audios, videoParam, audioParam } = media;
  const roles = imageRoles(req);
  const references = roles.filter((r) => r === 'reference_image').length;
  if (roles.length === 0 && videos > 0) {
    // Video editing: a reference video with a prompt is a complete request.
    if (!req.prompt) throw new RequestRuleError('prompt', 'prompt is required with a reference video', 'missing_parameter');
  } else if (roles.length > 0 || audios === 0) {
    checkTextOrImage(entry, req, roles);
  }
  if (req.last_frame_url !== undefined && req.image_url === undefined) {
    throw new RequestRuleError('last_frame_url', 'last_frame_url is only accepted together with image_url (first/last frame control)');
  }
  checkFrameRoles(entry, roles, {
    frames: req.last_frame_url !== undefined ? 'last_frame_url' : req.images ? 'images' : 'image_url',
    references: req.images ? 'images' : 'image_url',
  });
  if (references > 0 && entry.maxReferenceImages !== undefined && references > entry.maxReferenceImages) {
    throw new RequestRuleError(
      req.images ? 'images' : 'image_url',
      `${entry.id} takes at most ${entry.maxReferenceImages} reference images`,
    );
  }
  const frames = roles.length - references;
  if (frames > 0 && videos + audios > 0) {
    throw new RequestRuleError(
      videos > 0 ? videoParam : audioParam,
      'first/last frames cannot be combined with reference videos or audio: the modes are exclusive (use images with role reference_image)',
    );
  }
  // "audio alone (without an image or video) is rejected upstream" (docs/platforms/v.md#corrections).
  if (audios > 0 && references + videos === 0) {
    throw new RequestRuleError(
      audioParam,
      'reference audio needs at least one reference image (images with role reference_image) or reference video: the platform refuses audio alone',
    );
  }
}

export function validateV(entry: ModelRecord, request: GenerationRequest): GenerationRequest {
  if (request.kind !== 'video') throw new RequestRuleError('model', `${entry.id} generates video only`);
  const req = request as VVideoRequest;
  checkDraft(entry, req);
  checkFlex(entry, req);
  const media = referenceMedia(entry, req);
  if (req.web_search === true) requireCapability(entry, 'web_search', 'web_search', 'web search');
  requireDuration(entry, req.duration, ' (5 to 10 recommended)');
  checkImages(entry, req, media);
  return req;
}
