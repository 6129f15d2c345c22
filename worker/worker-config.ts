/**
 * The worker's configuration: its own settings, polling and deadlines (read here, where they are used), and
 * each enabled platform's worker slice (endpoints, credentials). Parsed once at start; a bad or missing value
 * fails with a message naming the variable.
 */
import { quietForwardLookingNodeWarning } from '../results/aws-sdk-node-warning';
import { z } from 'zod';
import { pricesEnv, type TaskPricing } from '../pricing/price-table';
import type { Catalogue } from '../core/catalogue';
import { loadTaskPricing } from '../tasks/billing';
import { UPSTREAM_LOST_GRACE_MS } from '../activities';
import { LOST_ANSWER_SEARCH_MS } from '../activities/submit';
import { ACCOUNT_COOLDOWN_MS, ACCOUNT_THROTTLE_MS } from '../activities/accounts';
import {
  callbackSchema,
  commonSchema,
  ConfigError,
  localOrigin,
  ms,
  optionalString,
  optionalUrl,
  parseEnv,
  port,
  positiveMs,
  temporalSchema,
} from '../core/config';
import type { Kind, PollTiming } from '../core/task';
import { ledgerSchema } from '../ledger/ledger-config';
import { ACTIVITY_ATTEMPT_TIMEOUT_MS, ATTEMPT_HEADROOM_MS, MAX_TASK_DEADLINE_MS } from '../core/timeouts';
import {
  buildCatalogue,
  loadEnabledPlatforms,
  PLATFORM_DEFINITIONS,
  platformsPublicEnv,
  platformsWorkerEnv,
  type WorkerPlatform,
} from '../platforms';
import { resultCopySchema, resultLinksSchema, resultStoreSchema } from '../results/results-config';
import { webhookDeliverySchema, webhookSharedSchema } from '../webhooks/config';

/** A task deadline: positive, at most MAX_TASK_DEADLINE_MS (the bound a first submit runs under, core/timeouts.ts). */
const taskDeadline = (def: number) => z.coerce.number().int().positive().max(MAX_TASK_DEADLINE_MS).default(def);

export const workerOwnSchema = z.object({
  /** How long a stopping worker lets in-flight activities finish before handing them back. */
  WORKER_SHUTDOWN_GRACE_MS: positiveMs(30_000),
  /**
   * How many workflows each of the worker's two Temporal workers keeps in memory between their workflow tasks. A task
   * waiting for platform capacity holds no timer or activity but its deadline, so a backlog of thousands would otherwise
   * keep thousands of idle workflows cached (the SDK's default scales with the heap): past the bound the least recently
   * used is evicted and replayed from its short history when its slot is granted.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(500),
  /**
   * Offline-tier jobs (V's `service_tier: "flex"`) against their account's concurrency limit: `counted` like any
   * job (a flex task can wait, its deadline is hours), or `apart` (not limited by the gateway). No platform page says
   * which is true (docs/platforms/v.md "The offline tier").
   */
  CAPACITY_FLEX_JOBS: z.enum(['counted', 'apart']).default('counted'),
  /** A prebuilt workflow bundle (`npm run build` writes dist/workflow-bundle.js); unset: bundled at start. */
  WORKFLOW_BUNDLE_PATH: optionalString,
  /** Interface of the worker's two metrics endpoints; 0.0.0.0 so a scraper in another container reaches them. */
  WORKER_METRICS_HOST: z.string().default('0.0.0.0'),
  /** The worker's own metrics (upstream calls, task outcomes, process) at GET /metrics. */
  WORKER_METRICS_PORT: port(9464),
  /** The Temporal SDK's runtime metrics (the Runtime's Prometheus exporter) at GET /metrics. */
  WORKER_SDK_METRICS_PORT: port(9465),

  // Polling and deadlines (docs/api.md "Polling"); tests shorten them.
  POLL_FIRST_DELAY_MS: ms(3_000),
  POLL_INTERVAL_IMAGE_MS: positiveMs(3_000),
  POLL_INTERVAL_VIDEO_MS: positiveMs(5_000),
  /** Image jobs: 15 min, well past the spec's 2-minute client window and the 10-minute sync wait. At most a day. */
  TASK_DEADLINE_IMAGE_MS: taskDeadline(15 * 60_000),
  /** Video jobs: 60 min, well past the spec's 5-minute client window; queues upstream can be long. At most a day. */
  TASK_DEADLINE_VIDEO_MS: taskDeadline(60 * 60_000),
  /**
   * The poll interval while a platform's callbacks are arriving (push configured and seen in the last
   * PUSH_HEALTH_WINDOW_MS): callbacks wake tasks at once, this timer is the safety net for a lost one.
   */
  POLL_FALLBACK_INTERVAL_MS: positiveMs(30_000),
  /**
   * While a task's platform keeps sending callbacks, its fallback waits double from POLL_FALLBACK_INTERVAL_MS up to
   * this: a long job is polled a few times rather than every 30 s, and a lost final callback is noticed within this.
   */
  POLL_FALLBACK_MAX_INTERVAL_MS: positiveMs(120_000),
  /** How recently a platform's callbacks must have been seen for its tasks to use the fallback interval. */
  PUSH_HEALTH_WINDOW_MS: positiveMs(10 * 60_000),
  /**
   * How long after its submit a job the platform says it does not know is polled again rather than failed as
   * `upstream_lost` (a platform's reads may lag its writes; none documents this).
   */
  UPSTREAM_LOST_GRACE_MS: ms(UPSTREAM_LOST_GRACE_MS),
  /** How long a submit looks for a job its platform refused to create again (dedup key) before upstream_lost. */
  LOST_ANSWER_SEARCH_MS: ms(LOST_ANSWER_SEARCH_MS),
  /**
   * Several accounts per platform (PLATFORM_<X>_ACCOUNTS_FILE): how long an account whose credentials or balance
   * were refused stays out of the rotation before a create probes it again.
   */
  ACCOUNT_COOLDOWN_MS: positiveMs(ACCOUNT_COOLDOWN_MS),
  /** How long a throttled account (a 429 that created nothing) keeps a quarter of its weight, without a Retry-After. */
  ACCOUNT_THROTTLE_MS: positiveMs(ACCOUNT_THROTTLE_MS),

  /** Outbound HTTP to the platforms; together at most 43 s, inside the 45 s activity attempt (core/timeouts.ts). */
  UPSTREAM_CONNECT_TIMEOUT_MS: positiveMs(10_000),
  UPSTREAM_RESPONSE_TIMEOUT_MS: positiveMs(30_000),
  /**
   * Where workers reach the simulator, which serves every enabled but unconfigured platform outside production.
   * Unset: derived from the simulator's own SIM_HOST and SIM_PORT (simulatorUrl), so moving the simulator to
   * another port moves the worker with it.
   */
  SIM_BASE_URL: optionalUrl,
  /** The simulator's listen address and port (sim/sim-config.ts reads the same two): SIM_BASE_URL's default. */
  SIM_HOST: z.string().default('127.0.0.1'),
  SIM_PORT: port(8090),
  /**
   * The API's keys file, read by the worker for the keys' own webhook secrets only (`webhook_secret`,
   * `webhook_secret_previous`); without it every key signs with the secret derived from WEBHOOK_SIGNING_SECRET.
   */
  API_KEYS_FILE: optionalString,
});

/**
 * The simulator's URL as a worker calls it: SIM_BASE_URL when set (another host, a container name), otherwise
 * the address the simulator listens on (SIM_HOST:SIM_PORT), with a wildcard listen address reached on loopback.
 * Without a trailing slash: platforms append their paths to it.
 */
export function simulatorUrl(env: { SIM_BASE_URL?: string; SIM_HOST: string; SIM_PORT: number }): string {
  if (env.SIM_BASE_URL) return env.SIM_BASE_URL.replace(/\/$/, '');
  return localOrigin(env.SIM_HOST, env.SIM_PORT);
}

/** The worker's settings outside the platforms' slices (which each platform parses itself, platforms/<id>/config.ts). */
// Webhook deliveries carry the task record as a GET shows it, so the worker renders result links like the API
// (resultLinksSchema) and signs with the same secrets (webhookSharedSchema).
const workerBaseSchema = commonSchema
  .extend(temporalSchema.shape)
  .extend(workerOwnSchema.shape)
  .extend(ledgerSchema.shape)
  .extend(resultStoreSchema.shape)
  .extend(resultCopySchema.shape)
  .extend(resultLinksSchema.shape)
  .extend(webhookSharedSchema.shape)
  .extend(webhookDeliverySchema.shape)
  // The records a webhook carries show their cost, priced as the API prices them.
  .extend(pricesEnv.shape);

/** Everything a worker reads, for documentation and checks (test/unit/env-docs.test.ts, scripts/check-compose.ts). */
export const workerConfigSchema = workerBaseSchema
  .extend(callbackSchema.shape)
  .extend(platformsPublicEnv.shape)
  .extend(platformsWorkerEnv.shape);

export type WorkerConfig = Omit<z.infer<typeof workerBaseSchema>, 'SIM_BASE_URL'> & {
  /** Resolved: the variable, or the URL derived from SIM_HOST and SIM_PORT (simulatorUrl). */
  SIM_BASE_URL: string;
  PLATFORMS_ENABLED: Set<string>;
  /** The enabled platforms, each real or simulated. */
  platforms: Record<string, WorkerPlatform>;
  timing: Record<Kind, PollTiming>;
  /** The models every platform offers, for the activities, the settlement and the webhooks' records. */
  catalogue: Catalogue;
  /** What tasks cost (PRICES_FILE read once, at start). */
  pricing: TaskPricing;
};

/** An upstream call must end before Temporal gives up on its attempt and starts another (core/timeouts.ts). */
function checkUpstreamTimeouts(raw: z.infer<typeof workerOwnSchema>): void {
  const bound = raw.UPSTREAM_CONNECT_TIMEOUT_MS + raw.UPSTREAM_RESPONSE_TIMEOUT_MS;
  const limit = ACTIVITY_ATTEMPT_TIMEOUT_MS - ATTEMPT_HEADROOM_MS;
  if (bound > limit) {
    throw new ConfigError(
      `Invalid configuration:\n  UPSTREAM_CONNECT_TIMEOUT_MS + UPSTREAM_RESPONSE_TIMEOUT_MS: ${bound} ms exceeds ${limit} ms, the activity attempt timeout less its headroom`,
    );
  }
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const base = parseEnv(workerBaseSchema, env);
  // The result store's S3 client reads this switch from the process's environment (results/aws-sdk-node-warning.ts).
  quietForwardLookingNodeWarning(process.env);
  checkUpstreamTimeouts(base);
  const PLATFORMS_ENABLED = loadEnabledPlatforms(env);
  const simulate = base.NODE_ENV !== 'production';
  const simBaseUrl = simulatorUrl(base);
  const platforms: Record<string, WorkerPlatform> = {};
  for (const p of PLATFORM_DEFINITIONS) {
    if (PLATFORMS_ENABLED.has(p.id)) platforms[p.id] = p.worker(env, { simulate, simBaseUrl });
  }
  const timing = (interval: number, deadline: number): PollTiming => ({
    firstPollDelayMs: base.POLL_FIRST_DELAY_MS,
    pollIntervalMs: interval,
    deadlineMs: deadline,
  });
  const catalogue = buildCatalogue(env);
  return {
    ...base,
    catalogue,
    pricing: loadTaskPricing(catalogue, env),
    SIM_BASE_URL: simBaseUrl,
    PLATFORMS_ENABLED,
    platforms,
    timing: {
      video: timing(base.POLL_INTERVAL_VIDEO_MS, base.TASK_DEADLINE_VIDEO_MS),
      image: timing(base.POLL_INTERVAL_IMAGE_MS, base.TASK_DEADLINE_IMAGE_MS),
    },
  };
}
