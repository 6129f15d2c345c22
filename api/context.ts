/** What the API's handlers share: the state Koa carries per request, and the app's dependencies. */
import type { Next, ParameterizedContext } from 'koa';
import type { AnnouncedEnd } from '../capacity/announced-ends';
import type { Catalogue } from '../core/catalogue';
import type { Logger } from '../core/logger';
import type { RouteTable } from '../platforms/routes';
import type { AdminAuthThrottle } from './admin-throttle';
import type { ReceiveCallback, UpstreamHint } from '../platforms/platform';
import type { TaskPricing } from '../pricing/price-table';
import type { ResultLinks } from '../results/result-links';
import type { ResultStore } from '../results/result-store';
import type { ApiKey, KeyStore } from '../keys/api-keys';
import type { EventStreamSlots } from './event-stream-slots';
import type { KeyLimits } from './key-limits';
import type { ManagedKeys } from '../keys/managed-keys';
import type { TaskLedger } from '../tasks/task-ledger';
import type { TaskStarter } from '../tasks/start';
import type { TaskService } from '../tasks/task-service';
import type { WebhookService } from '../webhooks/deliveries';
import type { WebhookPolicy } from '../webhooks/targets';
import type { TaskChanges } from './task-changes';
import type { ConsoleSession, ConsoleSessions } from './console-sessions';
import type { TaskAdmin } from '../operations/task-admin';
import type { AccountStates } from './account-states';

export interface AppState {
  requestId: string;
  log: Logger;
  apiKey?: ApiKey;
  /** Route pattern (e.g. /v1/generations/:task_id), for logs and metrics without ids in labels. */
  route?: string;
  /** The client went away before the answer (a sync wait): recorded as 499, nothing is sent. */
  clientClosed?: boolean;
  /** An admin request signed in through the console (api/console-sessions.ts) rather than with the admin token. */
  consoleSession?: ConsoleSession;
}

export type AppContext = ParameterizedContext<AppState>;

/** The status logs and metrics record: 499 (client closed the request) when there was nobody to answer. */
export function recordedStatus(ctx: AppContext): number {
  return ctx.state.clientClosed ? 499 : ctx.status;
}

/** What the app and its routes record (api/api-metrics.ts ApiMetrics is the one made for a process). */
export interface AppMetrics {
  /** The middleware that times every request. */
  httpMetrics(): (ctx: AppContext, next: Next) => Promise<void>;
  /** GET /metrics. */
  serveMetrics(ctx: AppContext): Promise<void>;
  recordCallback(platform: string, outcome: string): void;
  trackSyncWait<T>(wait: () => Promise<T>): Promise<T>;
  streamOpened(): void;
  streamClosed(): void;
  recordStreamRefused(reason: string): void;
}

export interface AppDeps {
  logger: Logger;
  keys: KeyStore;
  tasks: TaskService;
  /** The one path that starts tasks (tasks/start.ts): every door that creates a task calls it. */
  starter: TaskStarter;
  /** Stored results (read side) and the links to them: GET /v1/generations/:id/content. */
  results: { store: ResultStore; links: ResultLinks };
  limits: KeyLimits;
  catalogue: Catalogue;
  /** The deployment's routes (platforms/routes.ts, ROUTES_FILE): listed by GET /v1/models; absent: none. */
  routes?: RouteTable;
  /** The models' prices (platforms' prices.ts, PRICES_FILE): `GET /v1/models` `price`, sync answers' `cost`. */
  pricing: TaskPricing;
  enabledPlatforms: ReadonlySet<string>;
  syncTimeoutMs: number;
  /** Behind a reverse proxy: trust its X-Forwarded-* headers (TRUST_PROXY). */
  trustProxy: boolean;
  /** Each platform's callback receiver by platform id, its settings (signing keys, CALLBACK_SECRET) read by api/api-config.ts. */
  callbackReceivers: ReadonlyMap<string, ReceiveCallback>;
  /** Gives back the slot of a job a verified callback announced ended (capacity/announced-ends.ts); absent: no database. */
  announcedEnd?: AnnouncedEnd;
  /** This process's metrics (api/api-metrics.ts ApiMetrics): made by api/main.ts, or by a test. */
  metrics: AppMetrics;
  /** Where the platforms reach the gateway (PUBLIC_BASE_URL): the URL they sign callbacks for. Unset: the request's origin. */
  publicBaseUrl?: string;
  /** RESULT_RETENTION_DAYS: when stored outputs are deleted (the Videos API's `expires_at`; default 7). */
  resultRetentionDays?: number;
  /** How long a client may take to send its body (BODY_TIMEOUT_MS; default api/app.ts BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** Aborted when the process is stopping: sync waits then answer 503 naming their task. */
  shutdownSignal: AbortSignal;
  /** Client webhooks: the keys' signing secrets and WEBHOOK_ALLOW_PRIVATE_ORIGINS (webhooks/targets.ts). */
  webhooks: WebhookPolicy;
  /** Deliveries (GET/POST /v1/generations/:id/deliveries, the operator's lists: webhooks/deliveries.ts). */
  webhookService: WebhookService;
  /** The live event stream's reads (GET /v1/generations/:id/events). */
  taskChanges: TaskChanges;
  /** Open event streams per key and per process (KEY_MAX_STREAMS, API_MAX_STREAMS; api/event-stream-slots.ts). */
  streams: EventStreamSlots;
  /** The event stream's heartbeat comment interval (SSE_HEARTBEAT_MS, 15 s). */
  sseHeartbeatMs: number;
  /** Readiness: can we reach Temporal right now? */
  checkTemporal: () => Promise<void>;
  /** ADMIN_TOKEN: the operator's secret for /admin/v1/* (unset: the admin API answers 401 to everyone). */
  adminToken?: string;
  /** Wrong admin tokens per client address (ADMIN_AUTH_FAILURES_PER_MINUTE); unset: no limit. */
  adminThrottle?: AdminAuthThrottle;
  /** The admin API's keys in the database (DATABASE_URL); unset: only bootstrap keys, and no key changes. */
  managedKeys?: ManagedKeys;
  /** The ledger's reads of budgets and usage (DATABASE_URL); unset: no budget, no usage. */
  taskLedger?: TaskLedger;
  /** Starts a reconciliation run on demand (tasks/reconciliation.ts startReconciliation); unset: the admin API cannot. */
  reconciliations?: { start(input: { day: string; platform?: string; account?: string }): Promise<string> };
  /**
   * Whether a refused callback names a job of ours (core/task-hints.ts namesJobOfOurs, against Temporal); unset:
   * none does, so every refused callback counts as forged (api/callback-verification.ts).
   */
  callbackJobCheck?: (platform: string, hint: UpstreamHint) => Promise<boolean>;
  /** The workers' readiness URLs (WORKER_READY_URLS): /readyz names each platform with no account. Default: none. */
  workerReadyUrls?: readonly string[];
  /** The console's sign-in sessions (DATABASE_URL and ADMIN_TOKEN); unset: the console cannot sign in. */
  consoleSessions?: ConsoleSessions;
  /** Every key's tasks as the operator sees them: lists, a task's whole story, cancel and replay (operations/task-admin.ts). */
  taskAdmin?: TaskAdmin;
  /** The platforms' accounts as the workers publish them (api/account-states.ts). */
  accountStates?: AccountStates;
  /** The Temporal Web UI (TEMPORAL_UI_URL) and the namespace, for a task's link there; unset: no link. */
  temporalUi?: { url: string; namespace: string };
  /** Where the built console is (api/console.ts); unset: /console says it is not built. */
  consoleDir?: string;
}

/** The authenticated key; the auth middleware guarantees it on every /v1 route. */
export function apiKeyOf(ctx: AppContext): ApiKey {
  if (!ctx.state.apiKey) throw new Error('route reached without authentication');
  return ctx.state.apiKey;
}
