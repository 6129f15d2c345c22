/**
 * The result store's configuration, in three slices by who reads them:
 *
 * - the store itself — API (reads) and workers (write): RESULTS_DIR, or RESULTS_S3_* for an S3-compatible store;
 * - the client's links — API only: PUBLIC_BASE_URL, RESULT_URL_SECRET, RESULT_URL_TTL, RESULT_LINKS;
 * - the copy and retention — workers only: RESULTS_MAX_BYTES, the timeouts, RESULT_RETENTION_DAYS, and which
 *   private origins a copy may fetch from.
 *
 * The API and worker schemas (api/api-config.ts, worker/worker-config.ts) extend themselves with these, so
 * test/unit/env-docs.test.ts and scripts/check-compose.ts see every variable.
 */
import { z } from 'zod';
import { configError, optionalString, optionalUrl, parseOriginList, positiveMs } from '../core/config';
import { DirectoryResultStore } from './directory-store';
import type { ResultStore } from './result-store';
import { S3ResultStore } from './s3-store';

/** Where results are kept: a directory, unless RESULTS_S3_BUCKET names a bucket. */
export const resultStoreSchema = z.object({
  /** The embedded store's directory (API and workers must share it, e.g. one volume). */
  RESULTS_DIR: z.string().default('data/results'),
  /** Set: results go to this S3-compatible bucket instead of RESULTS_DIR. */
  RESULTS_S3_BUCKET: optionalString,
  /** A non-AWS endpoint (MinIO, Ceph, R2…), e.g. http://minio:9000; path-style addressing is used with it. */
  RESULTS_S3_ENDPOINT: optionalUrl,
  RESULTS_S3_REGION: z.string().default('us-east-1'),
  /** Key prefix inside the bucket (e.g. `mediagate/`): retention deletes only below it. */
  RESULTS_S3_PREFIX: optionalString.pipe(
    z
      .string()
      .regex(/^([A-Za-z0-9_.-]+\/)+$/, 'must be path segments ending with "/", e.g. mediagate/results/')
      .optional(),
  ),
  /** Read by the AWS SDK (with a profile, web identity or instance role as alternatives); listed so deployments can pass them. */
  AWS_ACCESS_KEY_ID: optionalString,
  AWS_SECRET_ACCESS_KEY: optionalString,
});
export type ResultStoreConfig = z.infer<typeof resultStoreSchema>;

/** `7d`, `12h`, `30m`, `90s`, or a number of seconds. */
const DURATION = /^(\d+)\s*(s|m|h|d)?$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };
export function durationSeconds(v: string): number {
  const m = DURATION.exec(v.trim());
  if (!m) throw new Error(`not a duration: ${v}`);
  return Number(m[1]) * UNIT_SECONDS[m[2] ?? 's']!;
}

/** The client's links to stored results (API). */
export const resultLinksSchema = z.object({
  /** The gateway's public base URL (e.g. https://api.example.com); unset: from each request's Host (X-Forwarded-* with TRUST_PROXY). */
  PUBLIC_BASE_URL: optionalUrl,
  /** HMAC key of the gateway's signed result links (≥ 32 characters); required in production whenever links are gateway links. */
  RESULT_URL_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 48`)').optional()),
  /** How long an issued link works: `7d` (the spec's promise), `12h`, `30m`, `90s` or seconds. A fresh link is issued on every read. */
  RESULT_URL_TTL: z
    .string()
    .default('7d')
    .refine(
      (v) => DURATION.test(v.trim()) && durationSeconds(v) > 0,
      'must be a positive duration such as 7d, 12h, 30m, 90s or a number of seconds',
    ),
  /**
   * `gateway`: links to GET /v1/generations/:id/content with a signed token; `presigned`: S3 presigned GETs
   * (S3 only; clients must reach the endpoint); `auto`: presigned on S3, gateway on a directory.
   */
  RESULT_LINKS: z.enum(['auto', 'gateway', 'presigned']).default('auto'),
});
export type ResultLinksConfig = z.infer<typeof resultLinksSchema>;

/** The copy into the store and the retention of what it keeps (workers). */
export const resultCopySchema = z.object({
  /** Largest output kept (bytes, default 2 GiB); a larger one keeps the platform's link (stored: false). */
  RESULTS_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 ** 3),
  RESULTS_CONNECT_TIMEOUT_MS: positiveMs(10_000),
  /** No byte from the platform for this long fails the copy attempt. */
  RESULTS_IDLE_TIMEOUT_MS: positiveMs(30_000),
  /** One copy attempt of one output, start to end. */
  RESULTS_COPY_TIMEOUT_MS: positiveMs(5 * 60_000),
  /** Attempts per output inside the activity before it gives up with `stored: false` (transient failures only). */
  RESULTS_COPY_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /**
   * Origins (scheme://host:port, comma-separated) a copy may fetch from although they resolve to private or
   * loopback addresses. Outside production the simulator's (SIM_BASE_URL) is allowed without being listed.
   */
  RESULTS_ALLOW_PRIVATE_ORIGINS: optionalString,
  /** Stored results are deleted this many days after they were written (daily Temporal Schedule); 0 keeps them forever. */
  RESULT_RETENTION_DAYS: z.coerce.number().int().nonnegative().default(7),
});
export type ResultCopyConfig = z.infer<typeof resultCopySchema>;

export function createResultStore(config: ResultStoreConfig): ResultStore {
  if (config.RESULTS_S3_BUCKET) {
    return new S3ResultStore({
      bucket: config.RESULTS_S3_BUCKET,
      endpoint: config.RESULTS_S3_ENDPOINT,
      region: config.RESULTS_S3_REGION,
      prefix: config.RESULTS_S3_PREFIX,
    });
  }
  if (config.RESULTS_S3_ENDPOINT) throw configError('RESULTS_S3_BUCKET', 'RESULTS_S3_ENDPOINT is set but no bucket is named');
  return new DirectoryResultStore(config.RESULTS_DIR);
}

/** SigV4 presigned URLs live at most 7 days. */
export const MAX_PRESIGN_SECONDS = 7 * 86_400;

export interface ResolvedLinks {
  mode: 'gateway' | 'presigned';
  ttlSeconds: number;
  /** Absent outside production when none is configured: the caller makes one up for this process (and warns). */
  secret?: string;
  publicBaseUrl?: string;
}

/** The link settings, checked against the store; fails naming the variable, e.g. RESULT_URL_SECRET in production. */
export function resolveLinks(config: ResultLinksConfig & ResultStoreConfig & { NODE_ENV: string }): ResolvedLinks {
  const onS3 = Boolean(config.RESULTS_S3_BUCKET);
  const mode = config.RESULT_LINKS === 'auto' ? (onS3 ? 'presigned' : 'gateway') : config.RESULT_LINKS;
  if (mode === 'presigned' && !onS3) throw configError('RESULT_LINKS', 'presigned links need an S3 store (RESULTS_S3_BUCKET)');
  const ttlSeconds = durationSeconds(config.RESULT_URL_TTL);
  if (mode === 'presigned' && ttlSeconds > MAX_PRESIGN_SECONDS) {
    throw configError('RESULT_URL_TTL', `S3 presigned links live at most 7 days (${MAX_PRESIGN_SECONDS} s); got ${ttlSeconds} s`);
  }
  if (mode === 'gateway' && !config.RESULT_URL_SECRET && config.NODE_ENV === 'production') {
    throw configError(
      'RESULT_URL_SECRET',
      'required in production: it signs the links to stored results (at least 32 random characters, the same on every API replica)',
    );
  }
  return { mode, ttlSeconds, secret: config.RESULT_URL_SECRET, publicBaseUrl: config.PUBLIC_BASE_URL?.replace(/\/+$/, '') };
}

/** RESULTS_ALLOW_PRIVATE_ORIGINS as a set of origins; a malformed entry fails naming the variable. */
export function allowedPrivateOrigins(config: ResultCopyConfig, extra: string[] = []): Set<string> {
  return parseOriginList('RESULTS_ALLOW_PRIVATE_ORIGINS', config.RESULTS_ALLOW_PRIVATE_ORIGINS, extra);
}
