/**
 * The API's configuration: its own settings, how it reaches Temporal, and which platforms it offers
 * (PLATFORMS_ENABLED, plus each platform's public settings such as a models file). It reads no upstream secret:
 * those belong to the workers (worker/worker-config.ts).
 */
import { quietForwardLookingNodeWarning } from '../results/aws-sdk-node-warning';
import { z } from 'zod';
import { bool, commonSchema, optionalString, parseEnv, parseOriginList, port, positiveMs, temporalSchema } from '../core/config';
import { ledgerSchema } from '../ledger/ledger-config';
import type { Catalogue } from '../core/catalogue';
import { buildCatalogue, loadEnabledPlatforms, PLATFORM_DEFINITIONS, platformsCallbackEnv, platformsPublicEnv } from '../platforms';
import type { ReceiveCallback } from '../platforms/platform';
import { pricesEnv, type TaskPricing } from '../pricing/price-table';
import type { RouteTable } from '../platforms/routes';
import { loadRoutes, routesEnv } from '../platforms/routes-file';
import { loadTaskPricing } from '../tasks/billing';
import { parseWorkerReadyUrls } from './worker-readiness';
import { resolveLinks, resultCopySchema, resultLinksSchema, resultStoreSchema, type ResolvedLinks } from '../results/results-config';
import { webhookAllowedOrigins, webhookSharedSchema } from '../webhooks/config';
import { DEFAULT_UPLOADS_MAX_MEMORY_BYTES } from './openai-videos/upload-memory';

export const apiOwnSchema = z.object({
  HOST: z.string().default('0.0.0.0'),
  PORT: port(8080),
  /** Comma-separated `id:secret` pairs. */
  API_KEYS: optionalString,
  /** JSON file of keys: `[{id, secret | sha256, models?, rate_limit_rps?, max_inflight?, max_streams?, webhook_*?}]`. */
  API_KEYS_FILE: optionalString,
  SYNC_TIMEOUT_MS: positiveMs(600_000),
  /** Requests per second per API key (0 = unlimited); API_KEYS_FILE may override it per key. */
  KEY_RATE_LIMIT_RPS: z.coerce.number().nonnegative().default(50),
  /** Running tasks per API key (0 = unlimited); API_KEYS_FILE may override it per key. */
  KEY_MAX_INFLIGHT: z.coerce.number().int().nonnegative().default(100),
  /**
   * Open event streams (GET /v1/generations/:id/events) per API key on this process (0 = unlimited); a key's
   * `max_streams` (API_KEYS_FILE or the admin API) overrides it. A stream lives up to SYNC_TIMEOUT_MS.
   */
  KEY_MAX_STREAMS: z.coerce.number().int().nonnegative().default(20),
  /** Open event streams on this API process, every key together (0 = unlimited): past it a new one is 503. */
  API_MAX_STREAMS: z.coerce.number().int().nonnegative().default(500),
  /**
   * What every upload in progress (POST /v1/videos forms, each read into memory) may hold on this process together;
   * one key at most half of it. Past it a new upload is refused (503, or 429 past the key's half). 0 = unlimited.
   */
  UPLOADS_MAX_MEMORY_BYTES: z.coerce.number().int().nonnegative().default(DEFAULT_UPLOADS_MAX_MEMORY_BYTES),
  /** How long a client may take to send a request body (JSON or a form), from its first byte: past it 408. */
  BODY_TIMEOUT_MS: positiveMs(30_000),
  /** How long a stopping API waits for in-flight requests before closing their connections. */
  API_SHUTDOWN_GRACE_MS: positiveMs(15_000),
  /** Behind a reverse proxy: trust its X-Forwarded-* headers (client address in logs). */
  TRUST_PROXY: bool(false),
  /**
   * Comma-separated origins (`http://10.0.0.5:9000`) that input URLs may name although their host is private or
   * local: for test setups whose platform runs on the same network. Production platforms cannot reach them.
   */
  INPUT_URL_ALLOW_PRIVATE_ORIGINS: optionalString,
  /** The operator's secret for the admin API (/admin/v1/*): at least 32 characters; unset, the admin API is off. */
  ADMIN_TOKEN: optionalString.pipe(z.string().min(32, { message: 'must be at least 32 characters' }).optional()),
  /**
   * Wrong admin tokens (console sign-in or admin bearer) a client address may send in a minute before it gets 429
   * for the rest of that minute, right token or not (api/admin-throttle.ts); 0 = no limit.
   */
  ADMIN_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().nonnegative().default(20),
  /** How often an API replica reads the admin API's keys again (a revoked key stops working within this). */
  KEYS_REFRESH_MS: positiveMs(2_000),
  /**
   * How often an API sweeps the ledger for reservations its normal path missed: one twice this old whose workflow
   * never started is released, one whose task ended is settled from its record.
   */
  LEDGER_SWEEP_INTERVAL_MS: positiveMs(60_000),
  /**
   * Comma-separated URLs of the workers' readiness (`http://worker:9464/readyz`): the API's /readyz then says
   * which platform has no account in the rotation (api/worker-readiness.ts). Unset: it says nothing of accounts.
   */
  WORKER_READY_URLS: optionalString,
  /** When the workers' retention deletes stored results: the Videos API states it as a video's `expires_at`. */
  RESULT_RETENTION_DAYS: resultCopySchema.shape.RESULT_RETENTION_DAYS,
  /** The heartbeat comment interval of GET /v1/generations/:id/events (15 s). */
  SSE_HEARTBEAT_MS: positiveMs(15_000),
  /** How long a console sign-in lasts (its cookie's expiry and the session's in the database): 8 hours. */
  CONSOLE_SESSION_TTL_MS: positiveMs(8 * 60 * 60_000),
  /**
   * The Temporal Web UI's address (`http://127.0.0.1:8233`): a task's page in the console links to its workflow
   * there. Unset: no link (`npm start` sets it to the dev server's UI).
   */
  TEMPORAL_UI_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
});

/** The API's settings apart from the platforms' (which the platform folders parse themselves). */
const apiSettingsSchema = commonSchema
  .extend(temporalSchema.shape)
  .extend(apiOwnSchema.shape)
  .extend(ledgerSchema.shape)
  .extend(resultStoreSchema.shape)
  .extend(resultLinksSchema.shape)
  .extend(webhookSharedSchema.shape);

/** Everything the API reads, for documentation and checks (test/unit/env-docs.test.ts, scripts/check-compose.ts). */
export const apiConfigSchema = apiSettingsSchema
  .extend(platformsCallbackEnv.shape)
  .extend(platformsPublicEnv.shape)
  .extend(pricesEnv.shape)
  .extend(routesEnv.shape);

export type ApiConfig = z.infer<typeof commonSchema> &
  z.infer<typeof temporalSchema> &
  z.infer<typeof apiOwnSchema> &
  z.infer<typeof ledgerSchema> &
  z.infer<typeof resultStoreSchema> &
  z.infer<typeof resultLinksSchema> &
  z.infer<typeof webhookSharedSchema> & {
    PLATFORMS_ENABLED: Set<string>;
    /** The links to stored results, checked against the store (RESULT_URL_SECRET is required in production for gateway links). */
    links: ResolvedLinks;
    /** INPUT_URL_ALLOW_PRIVATE_ORIGINS as origins. */
    inputUrlAllowPrivateOrigins: Set<string>;
    /** WORKER_READY_URLS as URLs. */
    workerReadyUrls: string[];
    /** WEBHOOK_ALLOW_PRIVATE_ORIGINS as origins. */
    webhookAllowPrivateOrigins: Set<string>;
    /** The models every platform offers (each platform's models file read). */
    catalogue: Catalogue;
    /** What tasks cost (PRICES_FILE read): a mistake in it stops the API at start, naming the entry. */
    pricing: TaskPricing;
    /** The routes (ROUTES_FILE read): a route naming a model the catalogue lacks, or priced in two currencies, stops the API at start. */
    routes: RouteTable;
    /** Each platform's callback receiver, made with its settings (signing keys, the token secret) read here, once. */
    callbackReceivers: ReadonlyMap<string, ReceiveCallback>;
  };

/**
 * The platforms' callback receivers by platform id (api/routes/callbacks.ts), each with its settings read from `env`
 * (platformsCallbackEnv: the signing keys, CALLBACK_SECRET); a bad one is a start-up error naming the variable.
 */
export function loadCallbackReceivers(env: NodeJS.ProcessEnv): ReadonlyMap<string, ReceiveCallback> {
  parseEnv(platformsCallbackEnv, env);
  const receivers = new Map<string, ReceiveCallback>();
  for (const p of PLATFORM_DEFINITIONS) if (p.callbacks) receivers.set(p.id, p.callbacks.create(env));
  return receivers;
}

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const base = parseEnv(apiSettingsSchema, env);
  // The result store's S3 client reads this switch from the process's environment (results/aws-sdk-node-warning.ts).
  quietForwardLookingNodeWarning(process.env);
  // The callback receivers' settings are read now, so a bad one is a start-up error before anything connects.
  const callbackReceivers = loadCallbackReceivers(env);
  const catalogue = buildCatalogue(env);
  const pricing = loadTaskPricing(catalogue, env);
  return {
    ...base,
    PLATFORMS_ENABLED: loadEnabledPlatforms(env),
    links: resolveLinks(base),
    inputUrlAllowPrivateOrigins: parseOriginList('INPUT_URL_ALLOW_PRIVATE_ORIGINS', base.INPUT_URL_ALLOW_PRIVATE_ORIGINS),
    workerReadyUrls: parseWorkerReadyUrls(base.WORKER_READY_URLS),
    webhookAllowPrivateOrigins: webhookAllowedOrigins(base),
    catalogue,
    pricing,
    routes: loadRoutes(catalogue, env),
    callbackReceivers,
  };
}
