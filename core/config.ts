/**
 * Configuration: environment variables parsed once with zod into a typed object. Bad configuration fails at
 * start with a message naming the variable. `.env.example` lists every variable; a test keeps them in step.
 */
import { z } from 'zod';
import type { Platform } from './platforms';
import { ACTIVITY_ATTEMPT_TIMEOUT_MS, ATTEMPT_HEADROOM_MS } from './timeouts';

const ms = (def: number) => z.coerce.number().int().nonnegative().default(def);
const positiveMs = (def: number) => z.coerce.number().int().positive().default(def);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));
const optionalUrl = optionalString.pipe(z.url({ protocol: /^https?$/ }).optional());
const port = (def: number) => z.coerce.number().int().min(1).max(65535).default(def);

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  // API
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Comma-separated `id:secret` pairs. */
  API_KEYS: optionalString,
  /** JSON file of keys: `[{id, secret | sha256, models?, rate_limit_rps?, max_inflight?}]`. */
  API_KEYS_FILE: optionalString,
  SYNC_TIMEOUT_MS: positiveMs(600_000),
  /** Requests per second per API key (0 = unlimited); API_KEYS_FILE may override it per key. */
  KEY_RATE_LIMIT_RPS: z.coerce.number().nonnegative().default(50),
  /** Running tasks per API key (0 = unlimited); API_KEYS_FILE may override it per key. */
  KEY_MAX_INFLIGHT: z.coerce.number().int().nonnegative().default(100),
  /** How long a stopping API waits for in-flight requests before closing their connections. */
  API_SHUTDOWN_GRACE_MS: positiveMs(15_000),
  /** Behind a reverse proxy: trust its X-Forwarded-* headers (client address in logs). */
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),

  // Temporal
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('mediagate-generations'),
  TEMPORAL_DB_FILE: z.string().default('data/temporal.db'),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(0).max(65535).default(8233),
  /** Temporal Cloud or any cluster with API-key auth; implies TLS. */
  TEMPORAL_API_KEY: optionalString,
  /** How long a stopping worker lets in-flight activities finish before handing them back. */
  WORKER_SHUTDOWN_GRACE_MS: positiveMs(30_000),
  TEMPORAL_TLS: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
  /** The Temporal CLI binary for the embedded dev server; unset: the pinned one (scripts/temporal-cli.ts). */
  TEMPORAL_CLI_PATH: optionalString,

  // Worker
  /** A prebuilt workflow bundle (`npm run build` writes dist/workflow-bundle.js); unset: bundled at start. */
  WORKFLOW_BUNDLE_PATH: optionalString,
  /** Interface of the worker's two metrics endpoints; 0.0.0.0 so a scraper in another container reaches them. */
  WORKER_METRICS_HOST: z.string().default('0.0.0.0'),
  /** The worker's own metrics (upstream calls, task outcomes, process) at GET /metrics. */
  WORKER_METRICS_PORT: port(9464),
  /** The Temporal SDK's runtime metrics (the Runtime's Prometheus exporter) at GET /metrics. */
  WORKER_SDK_METRICS_PORT: port(9465),

  // Polling and deadlines (spec §4 "Recommended polling"); tests shorten them.
  POLL_FIRST_DELAY_MS: ms(3_000),
  POLL_INTERVAL_IMAGE_MS: positiveMs(3_000),
  POLL_INTERVAL_VIDEO_MS: positiveMs(5_000),
  /** Image jobs: 15 min, well past the spec's 2-minute client window and the 10-minute sync wait. */
  TASK_DEADLINE_IMAGE_MS: positiveMs(15 * 60_000),
  /** Video jobs: 60 min, well past the spec's 5-minute client window; queues upstream can be long. */
  TASK_DEADLINE_VIDEO_MS: positiveMs(60 * 60_000),

  // Upstream platforms. Unset (outside production): served by the simulator at SIM_BASE_URL.
  PLATFORM_V_BASE_URL: optionalUrl,
  PLATFORM_V_API_KEY: optionalString,
  PLATFORM_B_BASE_URL: optionalUrl,
  PLATFORM_B_API_KEY: optionalString,
  PLATFORM_T_ENDPOINT: optionalUrl,
  PLATFORM_T_SECRET_ID: optionalString,
  PLATFORM_T_SECRET_KEY: optionalString,
  PLATFORM_T_SUBAPP_ID: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().positive().optional()),
  PLATFORM_T_REGION: optionalString,
  /** Outbound HTTP to the platforms; together at most 43 s, inside the 45 s activity attempt (core/timeouts.ts). */
  UPSTREAM_CONNECT_TIMEOUT_MS: positiveMs(10_000),
  UPSTREAM_RESPONSE_TIMEOUT_MS: positiveMs(30_000),

  // Simulator
  SIM_HOST: z.string().default('127.0.0.1'),
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  SIM_BASE_URL: z.url().default('http://127.0.0.1:8090'),
  /** How long a simulated job takes from submission to success. */
  SIM_JOB_DURATION_MS: ms(8_000),
  /** Base URL the simulator puts into result links; unset: derived from each request's Host header. */
  SIM_PUBLIC_URL: optionalUrl,
});

export type RawConfig = z.infer<typeof configSchema>;

/** An upstream call must end before Temporal gives up on its attempt and starts another (core/timeouts.ts). */
function checkUpstreamTimeouts(raw: RawConfig): void {
  const bound = raw.UPSTREAM_CONNECT_TIMEOUT_MS + raw.UPSTREAM_RESPONSE_TIMEOUT_MS;
  const limit = ACTIVITY_ATTEMPT_TIMEOUT_MS - ATTEMPT_HEADROOM_MS;
  if (bound > limit) {
    throw new ConfigError(
      `Invalid configuration:\n  UPSTREAM_CONNECT_TIMEOUT_MS + UPSTREAM_RESPONSE_TIMEOUT_MS: ${bound} ms exceeds ${limit} ms, the activity attempt timeout less its headroom`,
    );
  }
}

export interface PlatformV {
  baseUrl: string;
  apiKey: string;
  simulated: boolean;
}
export interface PlatformB {
  baseUrl: string;
  apiKey: string;
  simulated: boolean;
}
export interface PlatformT {
  endpoint: string;
  secretId: string;
  secretKey: string;
  subAppId?: number;
  region?: string;
  simulated: boolean;
}
export interface Platforms {
  V?: PlatformV;
  B?: PlatformB;
  T?: PlatformT;
}

export type Config = RawConfig & { platforms: Platforms };

/** Credentials the simulator accepts; only ever used against the simulator. */
export const SIM_CREDENTIALS = {
  V: { apiKey: 'sim-v-key' },
  B: { apiKey: 'sim-b-key' },
  T: { secretId: 'AKIDsimulator', secretKey: 'sim-t-secret-key', subAppId: 1500000001 },
} as const;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const raw = parsed.data;
  checkUpstreamTimeouts(raw);
  return { ...raw, platforms: resolvePlatforms(raw) };
}

function requireBoth(a: string, av: unknown, b: string, bv: unknown): void {
  if ((av === undefined) !== (bv === undefined)) {
    throw new ConfigError(`Invalid configuration:\n  ${av === undefined ? a : b}: required when ${av === undefined ? b : a} is set`);
  }
}

/**
 * A platform is real when its configuration is given, simulated when not (outside production), and disabled
 * in production when not configured.
 */
function resolvePlatforms(raw: RawConfig): Platforms {
  const simulate = raw.NODE_ENV !== 'production';
  const sim = raw.SIM_BASE_URL.replace(/\/$/, '');
  const out: Platforms = {};

  requireBoth('PLATFORM_V_BASE_URL', raw.PLATFORM_V_BASE_URL, 'PLATFORM_V_API_KEY', raw.PLATFORM_V_API_KEY);
  if (raw.PLATFORM_V_BASE_URL && raw.PLATFORM_V_API_KEY) {
    out.V = { baseUrl: raw.PLATFORM_V_BASE_URL, apiKey: raw.PLATFORM_V_API_KEY, simulated: false };
  } else if (simulate) {
    out.V = { baseUrl: `${sim}/api/v3`, apiKey: SIM_CREDENTIALS.V.apiKey, simulated: true };
  }

  requireBoth('PLATFORM_B_BASE_URL', raw.PLATFORM_B_BASE_URL, 'PLATFORM_B_API_KEY', raw.PLATFORM_B_API_KEY);
  if (raw.PLATFORM_B_BASE_URL && raw.PLATFORM_B_API_KEY) {
    out.B = { baseUrl: raw.PLATFORM_B_BASE_URL, apiKey: raw.PLATFORM_B_API_KEY, simulated: false };
  } else if (simulate) {
    out.B = { baseUrl: sim, apiKey: SIM_CREDENTIALS.B.apiKey, simulated: true };
  }

  requireBoth('PLATFORM_T_SECRET_ID', raw.PLATFORM_T_SECRET_ID, 'PLATFORM_T_SECRET_KEY', raw.PLATFORM_T_SECRET_KEY);
  if (raw.PLATFORM_T_SECRET_ID && raw.PLATFORM_T_SECRET_KEY) {
    out.T = {
      endpoint: raw.PLATFORM_T_ENDPOINT ?? 'https://vod.tencentcloudapi.com',
      secretId: raw.PLATFORM_T_SECRET_ID,
      secretKey: raw.PLATFORM_T_SECRET_KEY,
      subAppId: raw.PLATFORM_T_SUBAPP_ID,
      region: raw.PLATFORM_T_REGION,
      simulated: false,
    };
  } else if (simulate) {
    out.T = {
      endpoint: raw.PLATFORM_T_ENDPOINT ?? sim,
      secretId: SIM_CREDENTIALS.T.secretId,
      secretKey: SIM_CREDENTIALS.T.secretKey,
      subAppId: SIM_CREDENTIALS.T.subAppId,
      simulated: true,
    };
  }
  return out;
}

export function enabledPlatforms(config: Config): Set<Platform> {
  return new Set(Object.keys(config.platforms) as Platform[]);
}
