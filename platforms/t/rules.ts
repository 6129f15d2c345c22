/** Platform T's request rules (spec §4 rule 8: options in `output_config`, reference images in `file_infos`). */
import type { ModelEntry } from '../../core/catalogue';
import type { GenerationRequest } from '../../core/task';
import type { ImageRequestOf, VideoRequestOf } from '../request';
import { checkDuration, checkFrameRoles, checkRatio, checkTextOrImage, normaliseResolution, requireCapability, RequestRuleError, type ImageRole } from '../rules';
import type { tImageFields, tVideoFields } from './request-fields';

export type TVideoRequest = VideoRequestOf<typeof tVideoFields>;
export type TImageRequest = ImageRequestOf<typeof tImageFields>;

function imageRoles(req: TVideoRequest): ImageRole[] {
  const roles: ImageRole[] = [];
  if (req.image_url !== undefined) roles.push('first_frame');
  if (req.last_frame_url !== undefined) roles.push('last_frame');
  for (const f of req.file_infos ?? []) {
    roles.push(f.Usage === 'LastFrame' ? 'last_frame' : f.Usage === 'Reference' ? 'reference_image' : 'first_frame');
  }
  return roles;
}

function validateVideo(entry: ModelEntry, req: TVideoRequest): TVideoRequest {
  const oc = req.output_config ? { ...req.output_config } : undefined;
  if (oc?.Resolution !== undefined) oc.Resolution = normaliseResolution(entry, oc.Resolution, 'output_config.Resolution');
  if (oc?.AspectRatio !== undefined) checkRatio(entry, oc.AspectRatio, 'output_config.AspectRatio');
  if (req.ratio !== undefined) checkRatio(entry, req.ratio, 'ratio');
  if (oc?.AudioGeneration === 'Enabled') requireCapability(entry, 'sound', 'output_config.AudioGeneration', 'audio generation');
  if (oc?.Duration !== undefined) checkDuration(entry, oc.Duration, 'output_config.Duration');
  if (req.duration !== undefined) checkDuration(entry, req.duration, 'duration');
  const roles = imageRoles(req);
  checkTextOrImage(entry, req, roles);
  if (req.last_frame_url !== undefined && req.image_url === undefined && req.file_infos === undefined) {
    throw new RequestRuleError('last_frame_url', 'last_frame_url is only accepted together with image_url (first/last frame control)');
  }
  checkFrameRoles(entry, roles, { frames: req.last_frame_url !== undefined ? 'last_frame_url' : 'file_infos', references: 'file_infos' });
  return oc ? { ...req, output_config: oc } : req;
}

function validateImage(entry: ModelEntry, req: TImageRequest): TImageRequest {
  const ar = req.output_config?.AspectRatio;
  if (ar !== undefined) checkRatio(entry, ar, 'output_config.AspectRatio');
  if (req.file_infos !== undefined) requireCapability(entry, 'image_to_image', 'file_infos', 'reference images');
  return req;
}

export function validateT(entry: ModelEntry, request: GenerationRequest): GenerationRequest {
  return request.kind === 'video' ? validateVideo(entry, request as TVideoRequest) : validateImage(entry, request as TImageRequest);
}
