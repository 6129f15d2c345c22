/** What the API's handlers share: the state Koa carries per request, and the app's dependencies. */
import type { ParameterizedContext } from 'koa';
import type { Catalogue } from '../core/catalogue';
import type { Logger } from '../core/logger';
import type { Platform } from '../core/platforms';
import type { ApiKey, KeyStore } from './auth';
import type { KeyLimits } from './limits';
import type { TaskService } from './tasks';

export interface AppState {
  requestId: string;
  log: Logger;
  apiKey?: ApiKey;
  /** Route pattern (e.g. /v1/generations/:task_id), for logs and metrics without ids in labels. */
  route?: string;
}

export type AppContext = ParameterizedContext<AppState>;

export interface AppDeps {
  logger: Logger;
  keys: KeyStore;
  tasks: TaskService;
  limits: KeyLimits;
  catalogue: Catalogue;
  enabledPlatforms: ReadonlySet<Platform>;
  syncTimeoutMs: number;
  /** Aborted when the process is stopping: sync waits then answer 503 naming their task. */
  shutdownSignal: AbortSignal;
  /** Readiness: can we reach Temporal right now? */
  checkTemporal: () => Promise<void>;
}

/** The authenticated key; the auth middleware guarantees it on every /v1 route. */
export function apiKeyOf(ctx: AppContext): ApiKey {
  if (!ctx.state.apiKey) throw new Error('route reached without authentication');
  return ctx.state.apiKey;
}
