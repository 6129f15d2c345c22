/**
 * Platform T's request rules (docs/api.md "Validation rules", rule 8: options in `output_config`, reference images in `file_infos`), after
 * the general checks of platforms/validation.ts, driven by the catalogue (models.ts). A request a model cannot
 * take is a 400 naming the field, before anything is paid for.
 */
import type { ModelRecord } from '../../core/catalogue';
import type { GenerationRequest } from '../../core/task';
import type { ImageRequestOf, VideoRequestOf } from '../request';
import {
  checkDuration,
  checkFrameRoles,
  checkRatio,
  checkTextOrImage,
  normaliseResolution,
  requireCapability,
  RequestRuleError,
  type ImageRole,
} from '../rules';
import { tExtrasOf, T_VIDEO_PROMPT_MAX } from './models';
import type { tImageFields, tVideoFields } from './request-fields';

export type TVideoRequest = VideoRequestOf<typeof tVideoFields>;
export type TImageRequest = ImageRequestOf<typeof tImageFields>;

function imageRoles(req: TVideoRequest): ImageRole[] {
  const roles: ImageRole[] = [];
  if (req.image_url !== undefined) roles.push('first_frame');
  if (req.last_frame_url !== undefined) roles.push('last_frame');
  for (const f of req.file_infos ?? []) {
    // AigcVideoTaskInputFileInfo.Usage: "注意，默认是FirstFrame".
    roles.push(f.Usage === 'LastFrame' ? 'last_frame' : f.Usage === 'Reference' ? 'reference_image' : 'first_frame');
  }
  return roles;
}

function validateVideo(entry: ModelRecord, req: TVideoRequest): TVideoRequest {
  const limits = tExtrasOf(entry);
  const oc = req.output_config ? { ...req.output_config } : undefined;
  if (oc?.Resolution !== undefined) oc.Resolution = normaliseResolution(entry, oc.Resolution, 'output_config.Resolution');
  if (oc?.AspectRatio !== undefined) checkRatio(entry, oc.AspectRatio, 'output_config.AspectRatio');
  if (req.ratio !== undefined) checkRatio(entry, req.ratio, 'ratio');
  if (oc?.AudioGeneration === 'Enabled') requireCapability(entry, 'sound', 'output_config.AudioGeneration', 'audio generation');
  if (oc?.Duration !== undefined) checkDuration(entry, oc.Duration, 'output_config.Duration');
  if (req.duration !== undefined) checkDuration(entry, req.duration, 'duration');
  if (req.negative_prompt !== undefined && req.negative_prompt.length > T_VIDEO_PROMPT_MAX) {
    throw new RequestRuleError(
      'negative_prompt',
      `negative_prompt is ${req.negative_prompt.length} characters; ${entry.id} takes at most ${T_VIDEO_PROMPT_MAX}`,
    );
  }

  const roles = imageRoles(req);
  checkTextOrImage(entry, req, roles);
  if (req.last_frame_url !== undefined && req.image_url === undefined && req.file_infos === undefined) {
    throw new RequestRuleError('last_frame_url', 'last_frame_url is only accepted together with image_url (first/last frame control)');
  }
  checkFrameRoles(entry, roles, { frames: req.last_frame_url !== undefined ? 'last_frame_url' : 'file_infos', references: 'file_infos' });

  // What is sent: an explicit output_config key wins over the general field (docs/platforms/t.md#calls).
  const resolution = oc?.Resolution ?? req.resolution;
  const resolutionParam = oc?.Resolution !== undefined ? 'output_config.Resolution' : 'resolution';
  const duration = oc?.Duration ?? req.duration;
  if (limits.lastFrameOnlyAt !== undefined && roles.includes('last_frame') && resolution !== limits.lastFrameOnlyAt) {
    throw new RequestRuleError(
      resolutionParam,
      `${entry.id} takes a last frame only at ${limits.lastFrameOnlyAt}; set ${resolutionParam} to ${limits.lastFrameOnlyAt}`,
    );
  }
  const at = limits.durationsAt;
  if (at !== undefined && resolution === at.resolution && duration !== undefined && !at.durations.includes(duration)) {
    const durationParam = oc?.Duration !== undefined ? 'output_config.Duration' : 'duration';
    throw new RequestRuleError(
      durationParam,
      `${entry.id} renders ${at.resolution} at ${at.durations.join(' or ')} seconds only; ${durationParam} ${duration} needs another resolution`,
    );
  }
  return oc ? { ...req, output_config: oc } : req;
}

/** An explicit image Resolution in the model's spelling (`2K` → `2k` on Kling); a model without one refuses it. */
function imageResolution(entry: ModelRecord, value: string): string {
  if ((entry.resolutions ?? []).length === 0) {
    throw new RequestRuleError(
      'output_config.Resolution',
      `${entry.id} takes no resolution; remove output_config.Resolution`,
      'unsupported_parameter',
    );
  }
  return normaliseResolution(entry, value, 'output_config.Resolution');
}

function validateImage(entry: ModelRecord, req: TImageRequest): TImageRequest {
  const oc = req.output_config ? { ...req.output_config } : undefined;
  if (oc?.AspectRatio !== undefined) checkRatio(entry, oc.AspectRatio, 'output_config.AspectRatio');
  if (oc?.Resolution !== undefined) oc.Resolution = imageResolution(entry, oc.Resolution);
  if (req.file_infos !== undefined) {
    requireCapability(entry, 'image_to_image', 'file_infos', 'reference images');
    const max = entry.maxReferenceImages;
    if (max !== undefined && req.file_infos.length > max) {
      throw new RequestRuleError('file_infos', `${entry.id} takes at most ${max} reference images; ${req.file_infos.length} were given`);
    }
  }
  return oc ? { ...req, output_config: oc } : req;
}

export function validateT(entry: ModelRecord, request: GenerationRequest): GenerationRequest {
  return request.kind === 'video' ? validateVideo(entry, request as TVideoRequest) : validateImage(entry, request as TImageRequest);
}
