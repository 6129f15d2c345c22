/** Platform B's request rules (spec §4 rules 1–2). */
import type { ModelEntry } from '../../core/catalogue';
import type { GenerationRequest } from '../../core/task';
import type { ImageRequestOf, VideoRequestOf } from '../request';
import { requireCapability, requireDuration, RequestRuleError } from '../rules';
import type { bVideoFields } from './request-fields';

export type BVideoRequest = VideoRequestOf<typeof bVideoFields>;
export type BImageRequest = ImageRequestOf;

function validateVideo(entry: ModelEntry, req: BVideoRequest): BVideoRequest {
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
  requireDuration(entry, req.duration);
  if (req.audio === 'true') requireCapability(entry, 'sound', 'audio', 'audio generation');
  return req;
}

export function validateB(entry: ModelEntry, request: GenerationRequest): GenerationRequest {
  return request.kind === 'video' ? validateVideo(entry, request as BVideoRequest) : request;
}
