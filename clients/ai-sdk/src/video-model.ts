/**
 * `Experimental_VideoModelV4` over the gateway's video tasks: `doStart` creates one task (async, `X-Async: true`)
 * under the SDK's Idempotency-Key, `doStatus` reads it, `doGenerate` does both and waits; `handleWebhookOption`
 * hands the caller's webhook URL to the task and accepts its notification only once its Standard Webhooks
 * signature verifies.
 */
import type {
  Experimental_VideoModelV4,
  Experimental_VideoModelV4CallOptions,
  Experimental_VideoModelV4OperationStartResult,
  Experimental_VideoModelV4OperationStatusResult,
  Experimental_VideoModelV4OperationWebhook,
  Experimental_VideoModelV4Result,
  Experimental_VideoModelV4VideoData,
  JSONValue,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { download, gatewayJson, type GatewaySettings } from './http.js';
import { ignored, imageUrl, mediagateOptions, passedThrough, refuse, resolutionOf } from './options.js';
import { outcomeOf, readTask, taskMetadata, untilFinal, type TaskRecord } from './tasks.js';
import type { WebhookVerifier } from './webhook.js';

export interface VideoModelConfig {
  readonly gateway: GatewaySettings;
  readonly provider: string;
  readonly pollIntervalMs: number;
  readonly results: 'url' | 'bytes';
  readonly webhooks: WebhookVerifier;
}

/** The opaque reference `doStart` returns and `doStatus` takes (JSON, so a caller may persist it). */
interface Operation {
  taskId: string;
  results: 'url' | 'bytes';
}

function operationOf(value: JSONValue): Operation {
  const op = value as Partial<Operation> | null;
  if (!op || typeof op !== 'object' || typeof op.taskId !== 'string') {
    return refuse('this operation', 'it was not made by the mediagate provider (expected {"taskId": "task_…"})');
  }
  return { taskId: op.taskId, results: op.results === 'bytes' ? 'bytes' : 'url' };
}

/**
 * A doGenerate call's Idempotency-Key, kept per call-options object: the SDK retries a failed doGenerate with the
 * same object, so a retry reuses the key and gets the same task, never a second paid one; each of the calls it
 * makes for `n` videos has its own object, so each gets its own task.
 */
const generateKeys = new WeakMap<object, string>();

export class MediagateVideoModel implements Experimental_VideoModelV4 {
  readonly specificationVersion = 'v4' as const;
  /** One video per task: the SDK fans `n` out over as many calls (and tasks). */
  readonly maxVideosPerCall = 1;

  constructor(
    readonly modelId: string,
    private readonly config: VideoModelConfig,
  ) {}

  get provider(): string {
    return this.config.provider;
  }

  /** The gateway's request for the SDK's options; throws (before any request) for what it cannot honour. */
  private request(options: Experimental_VideoModelV4CallOptions & { webhookUrl?: string }): {
    body: Record<string, unknown>;
    warnings: SharedV4Warning[];
    results: 'url' | 'bytes';
  } {
    const own = mediagateOptions(options.providerOptions);
    const warnings: SharedV4Warning[] = [];
    if (options.n > 1) refuse('n > 1 in one call', 'one task makes one video (maxVideosPerCall is 1)');
    if (options.seed !== undefined) refuse('seed', 'the gateway sets no seed from the client (a platform seed, where used, is its own)');
    if (options.fps !== undefined) refuse('fps', 'no platform behind the gateway takes a frame rate');
    if (options.inputReferences?.length)
      refuse('inputReferences', 'reference media go in the platform’s own fields (providerOptions.mediagate.images on V)');
    const body: Record<string, unknown> = { model: own.route ?? this.modelId };
    if (options.prompt !== undefined) body.prompt = options.prompt;
    if (options.duration !== undefined) body.duration = options.duration;
    if (options.resolution !== undefined) body.resolution = resolutionOf(options.resolution);
    if (options.aspectRatio === 'adaptive') {
      warnings.push(ignored('aspectRatio', "'adaptive' sends no ratio: the model's default applies"));
    } else if (options.aspectRatio !== undefined) body.ratio = options.aspectRatio;
    if (options.generateAudio !== undefined) body.generate_audio = options.generateAudio;
    const first = options.frameImages?.find((f) => f.frameType === 'first_frame')?.image ?? options.image;
    const last = options.frameImages?.find((f) => f.frameType === 'last_frame')?.image;
    if (first) body.image_url = imageUrl(first, 'image');
    if (last) body.last_frame_url = imageUrl(last, 'frameImages (last_frame)');
    Object.assign(body, passedThrough(own));
    if (options.webhookUrl !== undefined) body.webhook_url = options.webhookUrl;
    return { body, warnings, results: own.results ?? this.config.results };
  }

  private async create(
    options: Experimental_VideoModelV4CallOptions & { webhookUrl?: string },
    idempotencyKey: string,
  ): Promise<{ task: TaskRecord; headers: Record<string, string>; warnings: SharedV4Warning[]; results: 'url' | 'bytes' }> {
    const { body, warnings, results } = this.request(options);
    const headers = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'idempotency-key'));
    const answer = await gatewayJson<TaskRecord>(this.config.gateway, 'POST', '/videos/generations', {
      body,
      headers: { ...headers, 'Idempotency-Key': idempotencyKey, 'X-Async': 'true' },
      abortSignal: options.abortSignal,
      canRetry: true,
    });
    return { task: answer.body, headers: answer.headers, warnings, results };
  }

  private async videos(
    urls: string[],
    results: 'url' | 'bytes',
    abortSignal: AbortSignal | undefined,
  ): Promise<Experimental_VideoModelV4VideoData[]> {
    if (results === 'url') return urls.map((url) => ({ type: 'url', url, mediaType: 'video/mp4' }));
    return Promise.all(
      urls.map(async (url) => {
        const { data, mediaType } = await download(this.config.gateway, url, abortSignal);
        return { type: 'binary' as const, data, mediaType: mediaType ?? 'video/mp4' };
      }),
    );
  }

  async doGenerate(options: Experimental_VideoModelV4CallOptions): Promise<Experimental_VideoModelV4Result> {
    let key = callerKey(options.headers) ?? generateKeys.get(options);
    if (!key) {
      key = `aisdk_mg_${crypto.randomUUID()}`;
      generateKeys.set(options, key);
    }
    const started = await this.create(options, key);
    const { task, headers } = await untilFinal(this.config.gateway, started.task.task_id, this.config.pollIntervalMs, options);
    const outcome = outcomeOf(task);
    if (outcome.state !== 'succeeded')
      throw new Error(`mediagate: video task failed: ${outcome.state === 'failed' ? outcome.message : ''}`);
    return {
      videos: await this.videos(outcome.urls, started.results, options.abortSignal),
      warnings: started.warnings,
      providerMetadata: taskMetadata(task),
      response: { timestamp: new Date(), modelId: this.modelId, headers },
    };
  }

  async doStart(
    options: Experimental_VideoModelV4CallOptions & { webhookUrl?: string },
  ): Promise<Experimental_VideoModelV4OperationStartResult> {
    // The SDK sends one Idempotency-Key per start (its own, or the caller's) and retries with the same headers.
    const key = callerKey(options.headers) ?? `aisdk_mg_${crypto.randomUUID()}`;
    const started = await this.create(options, key);
    const operation: Operation = { taskId: started.task.task_id, results: started.results };
    return {
      operation: { ...operation },
      warnings: started.warnings,
      providerMetadata: taskMetadata(started.task),
      response: { timestamp: new Date(), modelId: this.modelId, headers: started.headers },
    };
  }

  async doStatus(options: {
    operation: JSONValue;
    abortSignal?: AbortSignal;
    headers?: Record<string, string | undefined>;
  }): Promise<Experimental_VideoModelV4OperationStatusResult> {
    const op = operationOf(options.operation);
    const { task, headers } = await readTask(this.config.gateway, op.taskId, options);
    const response = { timestamp: new Date(), modelId: this.modelId, headers };
    const outcome = outcomeOf(task);
    const providerMetadata = taskMetadata(task);
    switch (outcome.state) {
      case 'pending':
        return { status: 'pending', providerMetadata, response };
      case 'succeeded':
        return {
          status: 'completed',
          videos: await this.videos(outcome.urls, op.results, options.abortSignal),
          warnings: [],
          providerMetadata,
          response,
        };
      case 'failed':
        return { status: 'error', error: outcome.message, providerMetadata, response };
    }
  }

  async handleWebhookOption(options: {
    webhook: () => PromiseLike<{ url: string; received: PromiseLike<Experimental_VideoModelV4OperationWebhook> }>;
  }): Promise<{ webhookUrl: string; received: PromiseLike<Experimental_VideoModelV4OperationWebhook> }> {
    const { url, received } = await options.webhook();
    // Only a notification signed with the key's secret ends the wait; anything else rejects it (and the call).
    const verified = Promise.resolve(received).then((event) => this.config.webhooks.verify(event));
    return { webhookUrl: url, received: verified };
  }
}

export function callerKey(headers: Record<string, string | undefined> | undefined): string | undefined {
  return Object.entries(headers ?? {}).find(([k, v]) => k.toLowerCase() === 'idempotency-key' && v !== undefined)?.[1];
}
