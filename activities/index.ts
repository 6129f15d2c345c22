/**
 * The activities: everything that touches the network. Built by a factory from their dependencies so tests
 * can inject fakes; workflows import only the *type* of what this returns.
 */
import { log } from '@temporalio/activity';
import type { Catalogue } from '../core/catalogue';
import type { Kind, Platform } from '../core/platforms';
import type { GenerationRequest } from '../core/schemas';
import type { SubmitResult, UpstreamStatus } from '../core/task';
import type { Adapters } from './adapters';
import { final, toActivityFailure } from './errors';

export interface ActivityDeps {
  catalogue: Catalogue;
  adapters: Adapters;
}

export interface SubmitInput {
  platform: Platform;
  request: GenerationRequest;
  /** Stable per workflow run, new for a replayed task (workflows/dedup-key.ts): the platform's dedup key where it has one. */
  dedupKey: string;
}

export interface PollInput {
  platform: Platform;
  kind: Kind;
  upstreamTaskId: string;
}

export type CancelInput = PollInput;

export function createActivities({ catalogue, adapters }: ActivityDeps) {
  function adapterFor(platform: Platform) {
    const adapter = adapters[platform];
    if (!adapter) throw final('upstream_auth', `Platform ${platform} is not configured on this worker`);
    return adapter;
  }

  async function guarded<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  return {
    async submitGeneration({ platform, request, dedupKey }: SubmitInput): Promise<SubmitResult> {
      return guarded(async () => {
        const entry = catalogue.find(request.kind, request.model);
        if (!entry || entry.platform !== platform) throw final('invalid_request', `Unknown ${request.kind} model '${request.model}' on platform ${platform}`);
        const result = await adapterFor(platform).submit(entry, request, dedupKey);
        log.info('Submitted upstream job', { platform, model: request.model, upstreamTaskId: result.upstreamTaskId });
        return result;
      });
    },

    async pollGeneration({ platform, kind, upstreamTaskId }: PollInput): Promise<UpstreamStatus> {
      return guarded(() => adapterFor(platform).poll(kind, upstreamTaskId));
    },

    async cancelGeneration({ platform, kind, upstreamTaskId }: CancelInput): Promise<void> {
      return guarded(async () => {
        await adapterFor(platform).cancel(kind, upstreamTaskId);
        log.info('Cancelled upstream job', { platform, upstreamTaskId });
      });
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
