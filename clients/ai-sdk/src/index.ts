/**
 * A Vercel AI SDK provider for a mediagate gateway: every video and image model and route the gateway serves, by
 * the id `GET /v1/models` lists.
 *
 *   import { createMediagate } from '@mediagate/ai-sdk-provider';
 *   import { experimental_generateVideo as generateVideo } from 'ai';
 *   const mediagate = createMediagate({ baseURL: 'https://gateway.example.com/v1', apiKey: process.env.MEDIAGATE_API_KEY });
 *   const { video } = await generateVideo({ model: mediagate.video('kling-2.1'), prompt: 'a lighthouse at dusk', duration: 5 });
 */
import { gatewayJson, type GatewaySettings } from './http.js';
import { MediagateImageModel } from './image-model.js';
import { MediagateVideoModel } from './video-model.js';
import { webhookVerifier } from './webhook.js';

export { mediagateRefusal, type MediagateRefusal } from './http.js';
export type { MediagateCallOptions } from './options.js';
export { MediagateImageModel } from './image-model.js';
export { MediagateVideoModel } from './video-model.js';

export interface MediagateProviderSettings {
  /** The API's base, `…/v1`. Default: the environment's `MEDIAGATE_BASE_URL`. */
  baseURL?: string;
  /** The API key. Default: the environment's `MEDIAGATE_API_KEY`. Sent only as `Authorization: Bearer`. */
  apiKey?: string;
  /** The key's webhook secret (`whsec_…`). Default: `MEDIAGATE_WEBHOOK_SECRET`, else read from the gateway once. */
  webhookSecret?: string;
  /** `url` (default): results as the gateway's stored links; `bytes`: downloaded by the provider. */
  results?: 'url' | 'bytes';
  /** How often a waiting call reads its task. Default 5 s for a video, 3 s for an image (docs/api.md, "Polling"). */
  pollIntervalMs?: { video?: number; image?: number };
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  /** The provider's name in the SDK's logs and metadata. Default `mediagate`. */
  name?: string;
}

export interface MediagateProvider {
  (modelId: string): MediagateVideoModel;
  video(modelId: string): MediagateVideoModel;
  videoModel(modelId: string): MediagateVideoModel;
  image(modelId: string): MediagateImageModel;
  imageModel(modelId: string): MediagateImageModel;
  /**
   * Cancels a task (an operation of `experimental_startVideo`, or a task id): the gateway stops its upstream job
   * where the platform allows, and the task then reads as failed with reason `cancelled`.
   */
  cancel(operation: { taskId: string } | string): Promise<void>;
}

export function createMediagate(settings: MediagateProviderSettings = {}): MediagateProvider {
  const baseURL = (settings.baseURL ?? process.env.MEDIAGATE_BASE_URL ?? '').replace(/\/+$/, '');
  const apiKey = settings.apiKey ?? process.env.MEDIAGATE_API_KEY ?? '';
  if (!baseURL) throw new Error('mediagate: no baseURL (pass one, or set MEDIAGATE_BASE_URL), e.g. https://gateway.example.com/v1');
  if (!apiKey) throw new Error('mediagate: no apiKey (pass one, or set MEDIAGATE_API_KEY)');
  const gateway: GatewaySettings = { baseURL, apiKey, headers: settings.headers ?? {}, fetch: settings.fetch ?? globalThis.fetch };
  const provider = `${settings.name ?? 'mediagate'}.video`;
  const webhooks = webhookVerifier(gateway, settings.webhookSecret ?? process.env.MEDIAGATE_WEBHOOK_SECRET);
  const video = (modelId: string) =>
    new MediagateVideoModel(modelId, {
      gateway,
      provider,
      pollIntervalMs: settings.pollIntervalMs?.video ?? 5000,
      results: settings.results ?? 'url',
      webhooks,
    });
  const image = (modelId: string) =>
    new MediagateImageModel(modelId, {
      gateway,
      provider: `${settings.name ?? 'mediagate'}.image`,
      pollIntervalMs: settings.pollIntervalMs?.image ?? 3000,
    });
  const cancel = async (operation: { taskId: string } | string) => {
    const taskId = typeof operation === 'string' ? operation : operation.taskId;
    await gatewayJson(gateway, 'POST', `/generations/${encodeURIComponent(taskId)}/cancel`, { canRetry: true });
  };
  return Object.assign((modelId: string) => video(modelId), {
    video,
    videoModel: video,
    image,
    imageModel: image,
    cancel,
  });
}
