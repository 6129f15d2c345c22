/**
 * Rule helpers the platforms' request rules share (platforms/<id>/rules.ts): every rejection names the field
 * (`param`) and says what would be accepted.
 */
import { describeDurations, durationAllowed, type Capability, type ModelRecord } from '../core/catalogue';

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

export function requireCapability(entry: ModelRecord, cap: Capability, param: string, what: string): void {
  if (!entry.capabilities.includes(cap)) {
    throw new RequestRuleError(param, `${entry.id} does not support ${what}`, 'unsupported_parameter');
  }
}

/** The model's spelling of a resolution, matched case-insensitively (`1080p` → `1080P`). */
export function normaliseResolution(entry: ModelRecord, value: string, param: string): string {
  const match = entry.resolutions?.find((r) => r.toLowerCase() === value.toLowerCase());
  if (!match) {
    throw new RequestRuleError(
      param,
      `${param} '${value}' is not supported by ${entry.id}; use one of ${(entry.resolutions ?? []).join(', ')}`,
    );
  }
  return match;
}

export function checkDuration(entry: ModelRecord, seconds: number, param: string): void {
  if (entry.durations && !durationAllowed(entry.durations, seconds)) {
    throw new RequestRuleError(param, `${param} ${seconds} is not supported by ${entry.id}; use ${describeDurations(entry.durations)}`);
  }
}

export function requireDuration(entry: ModelRecord, seconds: number | undefined, hint = ''): void {
  if (seconds === undefined) {
    throw new RequestRuleError(
      'duration',
      `duration is required for ${entry.id}: ${describeDurations(entry.durations!)}${hint}`,
      'missing_parameter',
    );
  }
  checkDuration(entry, seconds, 'duration');
}

export function checkRatio(entry: ModelRecord, value: string, param: string): void {
  if (entry.ratios.length === 0) {
    throw new RequestRuleError(param, `${entry.id} takes no aspect ratio; remove ${param}`, 'unsupported_parameter');
  }
  if (!entry.ratios.includes(value)) {
    throw new RequestRuleError(param, `${param} '${value}' is not supported by ${entry.id}; use one of ${entry.ratios.join(', ')}`);
  }
}

/** The role each input image of a video request plays. */
export type ImageRole = 'first_frame' | 'last_frame' | 'reference_image';

/** Text-to-video needs a prompt and the capability; image-to-video needs the capability and no text-only action. */
export function checkTextOrImage(
  entry: ModelRecord,
  req: { prompt?: string; action?: string },
  roles: readonly ImageRole[],
  imageParam = 'image_url',
): void {
  if (roles.length === 0) {
    requireCapability(entry, 'text_to_video', imageParam, `text-to-video; it needs an input image (${imageParam})`);
    if (!req.prompt) throw new RequestRuleError('prompt', 'prompt is required for text-to-video', 'missing_parameter');
    return;
  }
  if (req.action === 'text_to_video') {
    throw new RequestRuleError('action', 'action "text_to_video" takes no input image; remove the image or use "image_to_video"');
  }
  requireCapability(entry, 'image_to_video', imageParam, 'image-to-video');
}

/** First/last frame and reference images: at most one of each frame, modes exclusive, each a capability. */
export function checkFrameRoles(entry: ModelRecord, roles: readonly ImageRole[], params: { frames: string; references: string }): void {
  const first = roles.filter((r) => r === 'first_frame').length;
  const last = roles.filter((r) => r === 'last_frame').length;
  const reference = roles.filter((r) => r === 'reference_image').length;
  if (first > 1 || last > 1) throw new RequestRuleError(params.frames, 'at most one first frame and one last frame may be given');
  if (last > 0 && first === 0) throw new RequestRuleError(params.frames, 'a last frame needs a first frame (image_url)');
  if (last > 0) requireCapability(entry, 'first_last_frame', params.frames, 'first/last frame control');
  if (reference > 0) {
    requireCapability(entry, 'reference_images', params.references, 'reference images');
    if (first + last > 0) {
      throw new RequestRuleError(params.references, 'reference images cannot be combined with first/last frames: the modes are exclusive');
    }
  }
}

/** docs/api.md "Image requests" size table: these sizes use the listed ratio, not their arithmetic one. */
const SIZE_TABLE: Record<string, string> = {
  '1024x1024': '1:1',
  '512x512': '1:1',
  '1792x1024': '16:9',
  '1920x1080': '16:9',
  '1024x1792': '9:16',
  '1080x1920': '9:16',
};

/** The `WxH` values of the size table that mean one of `ratios`: what `GET /v1/models` lists as an image model's sizes. */
export function sizesForRatios(ratios: readonly string[]): string[] {
  return Object.entries(SIZE_TABLE)
    .filter(([, ratio]) => ratios.includes(ratio))
    .map(([size]) => size);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Converts docs/api.md "Image requests" `size` (a listed size, a ratio, or any `WxH`) to the aspect ratio actually used. */
export function sizeToRatio(entry: ModelRecord, size: string): string {
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
  if (entry.ratios.length === 0) {
    throw new RequestRuleError('size', `${entry.id} takes no size or aspect ratio; remove size`, 'unsupported_parameter');
  }
  if (!entry.ratios.includes(ratio)) {
    throw new RequestRuleError(
      'size',
      `size '${size}' means aspect ratio ${ratio}, which ${entry.id} does not support; use one of ${entry.ratios.join(', ')}`,
    );
  }
  return ratio;
}
