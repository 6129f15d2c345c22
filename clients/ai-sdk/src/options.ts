/**
 * The AI SDK's call options as the gateway's general request (docs/api.md, "Video requests", "Image requests").
 * An option the gateway cannot honour and that would change what is made (and paid for) is refused before any
 * request; one whose absence changes nothing the caller pays for is ignored with the SDK's warning.
 */
import { UnsupportedFunctionalityError, type SharedV4ProviderOptions, type SharedV4Warning } from '@ai-sdk/provider';

/** `providerOptions.mediagate`: what only the gateway has. Keys are the gateway's own, sent as given. */
export interface MediagateCallOptions {
  /** A route's name (docs/api.md, "Routes"): sent as the request's `model`, instead of the model the call named. */
  route?: string;
  /** `text_to_video` or `image_to_video`; without it, the gateway's default for the model. */
  action?: string;
  /** The key's webhook for this task (the SDK's own `webhook` option sets it too). */
  webhook_url?: string;
  /** Which events the webhook gets (`running`, `succeeded`, `failed`). */
  webhook_events?: string[];
  /** `url` (default): the gateway's stored links; `bytes`: the provider downloads them and returns the bytes. */
  results?: 'url' | 'bytes';
  /** Passed through unchecked: the gateway validates them (`service_tier`, `deadline_seconds`, `metadata`, platform fields). */
  [field: string]: unknown;
}

/** The provider's own options, not fields of the gateway's request. */
const PROVIDER_ONLY = new Set(['route', 'results']);

export function mediagateOptions(providerOptions: SharedV4ProviderOptions | undefined): MediagateCallOptions {
  return (providerOptions?.mediagate ?? {}) as MediagateCallOptions;
}

/** The request's own fields from `providerOptions.mediagate`: everything but the provider's options. */
export function passedThrough(options: MediagateCallOptions): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([k, v]) => !PROVIDER_ONLY.has(k) && v !== undefined));
}

export function refuse(functionality: string, why: string): never {
  throw new UnsupportedFunctionalityError({ functionality, message: `mediagate: ${functionality} is not supported: ${why}` });
}

/**
 * An input image as the gateway takes it: by URL only (the platforms fetch it; docs/api.md, "Limits"). Bytes would
 * need an upload the general request has no field for.
 */
export function imageUrl(
  file: { type: 'url'; url: string } | { type: 'file'; mediaType: string; data: string | Uint8Array },
  option: string,
): string {
  if (file.type === 'url') return file.url;
  return refuse(`${option} as bytes`, 'the gateway takes input images by URL (a public https URL the platform can fetch)');
}

/**
 * `WxH` as the gateway's resolution: its shorter side in `p` (`1280x720`, `720x1280` → `720p`). The shape is the
 * aspect ratio's business (`aspectRatio`).
 */
export function resolutionOf(resolution: `${number}x${number}`): string {
  const [w, h] = resolution.split('x').map(Number) as [number, number];
  return `${Math.min(w, h)}p`;
}

export function ignored(feature: string, details: string): SharedV4Warning {
  return { type: 'unsupported', feature, details };
}
