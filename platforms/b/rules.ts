/**
 * Platform B's request rules (docs/api.md "Validation rules", rule 1–2, and what each model takes), after the general checks of
 * platforms/validation.ts. B ignores any TaskInput field it does not know instead of refusing it (docs/platforms/b.md#creating-jobs, [OFF]
 * "对于所有无法识别的项应直接忽略"), so a request option with no field on the model would be paid for and silently
 * dropped: here it is a 400 naming the field, before anything is paid for. Every limit comes from the model data
 * (models.ts, with PLATFORM_B_MODELS_FILE's corrections).
 */
import type { ModelRecord } from '../../core/catalogue';
import type { GenerationRequest } from '../../core/task';
import type { ImageRequestOf } from '../request';
import { checkRatio, requireDuration, RequestRuleError } from '../rules';
import { fieldFor, type BVideoModel, type Role, type VideoEndpoint } from './model-spec';
import { bImageModelOf, bVideoModelOf } from './models';
import type { bImageFields } from './request-fields';
import { readVideoInputs, type BVideoRequest, type ImageInput } from './video-inputs';

export type { BVideoRequest } from './video-inputs';
export type BImageRequest = ImageRequestOf<typeof bImageFields>;

const ENDPOINT_LABEL: Record<VideoEndpoint, string> = { text_to_video: 'text-to-video', image_to_video: 'image-to-video' };

/** Prompt length as the platform counts it: characters (字符), a Chinese character counting one. */
export const promptLength = (s: string) => [...s].length;

/** The model's field for `role`, or a 400 naming the request field that needs it. */
function requireField(m: BVideoModel, role: Role, endpoint: VideoEndpoint, param: string, what: string): void {
  if (fieldFor(m, role, endpoint)) return;
  const otherEndpoint: VideoEndpoint = endpoint === 'text_to_video' ? 'image_to_video' : 'text_to_video';
  const onlyOther = m.endpoints[otherEndpoint] && fieldFor(m, role, otherEndpoint);
  throw new RequestRuleError(
    param,
    `${m.code} does not support ${what}${onlyOther ? ` for ${ENDPOINT_LABEL[endpoint]}` : ''}`,
    'unsupported_parameter',
  );
}

/** A value the field translates (Kling's resolution → mode) must be one it knows. */
function requireMappedValue(m: BVideoModel, role: Role, endpoint: VideoEndpoint, value: string, param: string): void {
  const values = fieldFor(m, role, endpoint)?.values;
  if (values && !(value in values))
    throw new RequestRuleError(param, `${param} '${value}' is not supported by ${m.code}; use one of ${Object.keys(values).join(', ')}`);
}

const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'webp', 'gif', 'bmp', 'tif', 'tiff', 'heic', 'heif', 'avif']);

/** The family's documented image types, checked where the URL names its file type (docs/platforms/b.md#image-to-video [OFF]). */
function checkImageFormat(m: BVideoModel, input: ImageInput): void {
  const formats = m.imageFormats?.value;
  if (!formats) return;
  const ext = /\.([A-Za-z0-9]+)$/.exec(new URL(input.url).pathname)?.[1]?.toLowerCase();
  if (ext && IMAGE_EXTENSIONS.has(ext) && !formats.includes(ext)) {
    throw new RequestRuleError(
      input.param,
      `${m.code} takes ${formats.map((f) => f.toUpperCase()).join('/')} images; ${input.param} names a .${ext} file`,
    );
  }
}

type BVideoInputs = ReturnType<typeof readVideoInputs>;

/** The endpoint the request asks for (text or image to video), against the images it carries and what the model lists. */
function checkEndpoint(m: BVideoModel, req: BVideoRequest, endpoint: VideoEndpoint, images: readonly ImageInput[]): void {
  // docs/api.md "Validation rules", rules 1 and 2, and which endpoint lists the model (docs/platforms/b.md#text-to-video, #image-to-video).
  if (endpoint === 'text_to_video') {
    if (images.length > 0)
      throw new RequestRuleError(
        'action',
        `action "text_to_video" takes no input image; remove ${images[0]!.param} or use "image_to_video"`,
      );
    if (!m.endpoints.text_to_video) {
      throw new RequestRuleError(
        'action',
        `${m.code} takes image-to-video only: send image {"imageUrl": "<url>"} with action "image_to_video"`,
        'unsupported_parameter',
      );
    }
    if (!req.prompt?.trim()) throw new RequestRuleError('prompt', 'prompt is required for text-to-video', 'missing_parameter');
  } else {
    if (!m.endpoints.image_to_video) {
      throw new RequestRuleError(
        images[0]?.param ?? 'action',
        `${m.code} takes text-to-video only: set action to "text_to_video" and send no image`,
        'unsupported_parameter',
      );
    }
    if (images.length === 0) {
      throw new RequestRuleError(
        'image',
        `image ({"imageUrl": "<url>"}) is required for image-to-video on ${m.code}; for text-to-video set action to "text_to_video"`,
        'missing_parameter',
      );
    }
  }
}

/** The prompt's length and the output settings, each against the model's fields on this endpoint. */
function checkVideoSettings(entry: ModelRecord, m: BVideoModel, req: BVideoRequest, endpoint: VideoEndpoint): void {
  const promptMax = m.endpoints[endpoint]!.value;
  if (req.prompt !== undefined && promptLength(req.prompt) > promptMax) {
    throw new RequestRuleError(
      'prompt',
      `prompt is ${promptLength(req.prompt)} characters; ${m.code} takes at most ${promptMax} for ${ENDPOINT_LABEL[endpoint]}`,
    );
  }
  requireDuration(entry, req.duration);
  if (req.resolution !== undefined) {
    requireField(m, 'resolution', endpoint, 'resolution', 'a resolution');
    requireMappedValue(m, 'resolution', endpoint, req.resolution, 'resolution');
  }
  if (req.ratio !== undefined) {
    checkRatio(entry, req.ratio, 'ratio');
    requireField(m, 'aspectRatio', endpoint, 'ratio', 'an aspect ratio (the video follows the input image)');
    requireMappedValue(m, 'aspectRatio', endpoint, req.ratio, 'ratio');
  }
  if (req.negative_prompt !== undefined) requireField(m, 'negativePrompt', endpoint, 'negative_prompt', 'a negative prompt');
  // "false" asks for what the model does anyway; only "true" needs the switch.
  if (req.audio === 'true') requireField(m, 'audio', endpoint, 'audio', 'audio generation');
  if (req.bgm === 'true') requireField(m, 'bgm', endpoint, 'bgm', 'background music');
}

/** The first and last frames and the reference images, against the model's fields on this endpoint. */
function checkFrames(m: BVideoModel, { endpoint, first, last, references }: BVideoInputs): void {
  if (last && !first) throw new RequestRuleError(last.param, 'a last frame needs a first frame (image.imageUrl or image_url)');
  if (first && last) {
    if (!fieldFor(m, 'firstLastFrames', endpoint)) {
      requireField(m, 'firstFrame', endpoint, first.param, 'a first frame');
      requireField(m, 'lastFrame', endpoint, last.param, 'first/last frame control');
    }
  } else if (first) {
    requireField(m, 'firstFrame', endpoint, first.param, 'a single first frame');
  }
  if (references.length > 0) {
    const max = fieldFor(m, 'referenceImages', endpoint) ? (m.maxReferenceImages?.value ?? 0) : 0;
    if (max === 0) throw new RequestRuleError('images', `${m.code} does not support reference images`, 'unsupported_parameter');
    if (first || last)
      throw new RequestRuleError('images', 'reference images cannot be combined with first/last frames: the modes are exclusive');
    if (references.length > max) throw new RequestRuleError('images', `${m.code} takes at most ${max} reference images`);
  }
}

function validateVideo(entry: ModelRecord, req: BVideoRequest): BVideoRequest {
  const m = bVideoModelOf(entry);
  const inputs = readVideoInputs(req);
  const { endpoint, first, last, references } = inputs;
  const images = [first, last, ...references].filter((i): i is ImageInput => i !== undefined);
  checkEndpoint(m, req, endpoint, images);
  checkVideoSettings(entry, m, req, endpoint);
  checkFrames(m, inputs);
  for (const image of images) checkImageFormat(m, image);
  return req;
}

function validateImage(entry: ModelRecord, req: BImageRequest): BImageRequest {
  const m = bImageModelOf(entry);
  const references = req.images?.length ?? 0;
  const max = m.maxReferenceImages.value;
  if (references > 0 && max === 0)
    throw new RequestRuleError('images', `${m.code} does not support image-to-image (reference images)`, 'unsupported_parameter');
  if (references > max) throw new RequestRuleError('images', `${m.code} takes at most ${max} reference images`);
  return req;
}

export function validateB(entry: ModelRecord, request: GenerationRequest): GenerationRequest {
  return request.kind === 'video' ? validateVideo(entry, request as BVideoRequest) : validateImage(entry, request as BImageRequest);
}
