/**
 * `ImageModelV4` over the gateway's image tasks. The SDK takes images as bytes only, so each stored result is
 * downloaded; its link stays in `providerMetadata.mediagate.images`.
 */
import type { ImageModelV4, ImageModelV4CallOptions, ImageModelV4Result, SharedV4Warning } from '@ai-sdk/provider';
import { download, gatewayJson, type GatewaySettings } from './http.js';
import { ignored, imageUrl, mediagateOptions, passedThrough, refuse } from './options.js';
import { outcomeOf, untilFinal, type TaskRecord } from './tasks.js';
import { callerKey } from './video-model.js';

export interface ImageModelConfig {
  readonly gateway: GatewaySettings;
  readonly provider: string;
  readonly pollIntervalMs: number;
}

export class MediagateImageModel implements ImageModelV4 {
  readonly specificationVersion = 'v4' as const;
  private maxImages: Promise<number | undefined> | undefined;

  constructor(
    readonly modelId: string,
    private readonly config: ImageModelConfig,
  ) {}

  get provider(): string {
    return this.config.provider;
  }

  /** The model's `max_images` from `GET /v1/models/:id` (a route or a model without one: one per task). */
  readonly maxImagesPerCall = (): Promise<number | undefined> =>
    (this.maxImages ??= gatewayJson<{ max_images?: number }>(this.config.gateway, 'GET', `/models/${encodeURIComponent(this.modelId)}`, {
      canRetry: true,
    }).then(
      (a) => a.body.max_images ?? 1,
      () => 1,
    ));

  async doGenerate(options: ImageModelV4CallOptions): Promise<ImageModelV4Result> {
    const own = mediagateOptions(options.providerOptions);
    const warnings: SharedV4Warning[] = [];
    if (options.seed !== undefined) refuse('seed', 'the gateway sets no seed from the client');
    if (options.mask) refuse('mask', 'no image model behind the gateway takes an inpainting mask');
    const body: Record<string, unknown> = { model: own.route ?? this.modelId, n: options.n };
    if (options.prompt !== undefined) body.prompt = options.prompt;
    // The gateway's `size` takes a WxH or a ratio (docs/api.md, "Image requests"): the size wins when both are given.
    if (options.size !== undefined) body.size = options.size;
    else if (options.aspectRatio !== undefined) body.size = options.aspectRatio;
    if (options.size !== undefined && options.aspectRatio !== undefined)
      warnings.push(ignored('aspectRatio', 'size was given too, and it decides'));
    if (options.files?.length) body.images = options.files.map((f) => ({ url: imageUrl(f, 'files') }));
    Object.assign(body, passedThrough(own));
    // The SDK sends no Idempotency-Key for images and retries with a new options object: a caller's key is reused;
    // without one, this call's own key covers the gateway's answers this call retries itself (none are retried by
    // the SDK: a fresh key would make a second task).
    const key = callerKey(options.headers);
    const headers = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'idempotency-key'));
    const created = await gatewayJson<TaskRecord>(this.config.gateway, 'POST', '/images/generations', {
      body,
      headers: { ...headers, 'Idempotency-Key': key ?? `aisdk_mg_${crypto.randomUUID()}`, 'X-Async': 'true' },
      abortSignal: options.abortSignal,
      canRetry: key !== undefined,
    });
    const { task, headers: answerHeaders } = await untilFinal(
      this.config.gateway,
      created.body.task_id,
      this.config.pollIntervalMs,
      options,
    );
    const outcome = outcomeOf(task);
    if (outcome.state !== 'succeeded')
      throw new Error(`mediagate: image task failed: ${outcome.state === 'failed' ? outcome.message : ''}`);
    const images = await Promise.all(outcome.urls.map((url) => download(this.config.gateway, url, options.abortSignal)));
    return {
      images: images.map((i) => i.data),
      warnings,
      providerMetadata: {
        mediagate: {
          images: outcome.urls.map((url) => ({ url, taskId: task.task_id })),
          taskId: task.task_id,
          model: task.model,
          ...(task.served_by ? { servedBy: task.served_by } : {}),
        },
      },
      response: { timestamp: new Date(), modelId: this.modelId, headers: answerHeaders },
    };
  }
}
