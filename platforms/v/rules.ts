/** Platform V's request rules (spec §4 rules 3–7), after the general checks of platforms/validation.ts. */
import type { ModelEntry } from '../../core/catalogue';
import type { GenerationRequest } from '../../core/task';
import type { VideoRequestOf } from '../request';
import { checkFrameRoles, checkTextOrImage, requireCapability, requireDuration, RequestRuleError, type ImageRole } from '../rules';
import type { vVideoFields } from './request-fields';

export type VVideoRequest = VideoRequestOf<typeof vVideoFields>;

export const MAX_REFERENCE_IMAGES = 4;

function imageRoles(req: VVideoRequest): ImageRole[] {
  const roles: ImageRole[] = [];
  if (req.image_url !== undefined) roles.push(req.image_role ?? 'first_frame');
  if (req.last_frame_url !== undefined) roles.push('last_frame');
  for (const i of req.images ?? []) roles.push(i.role);
  return roles;
}

export function validateV(entry: ModelEntry, request: GenerationRequest): GenerationRequest {
  if (request.kind !== 'video') throw new RequestRuleError('model', `${entry.id} generates video only`);
  const req = request as VVideoRequest;
  if (req.service_tier === 'draft') requireCapability(entry, 'draft', 'service_tier', 'draft mode');
  if (req.video_url !== undefined || req.videos !== undefined) {
    requireCapability(entry, 'reference_video', req.video_url !== undefined ? 'video_url' : 'videos', 'reference videos (video editing)');
  }
  if (req.audio_url !== undefined) requireCapability(entry, 'reference_audio', 'audio_url', 'reference audio');
  requireDuration(entry, req.duration, ' (5 to 10 recommended)');

  const roles = imageRoles(req);
  if (roles.length === 0 && (req.video_url || req.videos)) {
    // Video editing: a reference video with a prompt is a complete request.
    if (!req.prompt) throw new RequestRuleError('prompt', 'prompt is required with a reference video', 'missing_parameter');
  } else {
    checkTextOrImage(entry, req, roles);
  }
  if (req.last_frame_url !== undefined && req.image_url === undefined) {
    throw new RequestRuleError('last_frame_url', 'last_frame_url is only accepted together with image_url (first/last frame control)');
  }
  checkFrameRoles(entry, roles, { frames: req.last_frame_url !== undefined ? 'last_frame_url' : req.images ? 'images' : 'image_url', references: req.images ? 'images' : 'image_url' });
  if (roles.filter((r) => r === 'reference_image').length > MAX_REFERENCE_IMAGES) {
    throw new RequestRuleError('images', `at most ${MAX_REFERENCE_IMAGES} reference images are accepted`);
  }
  return req;
}
