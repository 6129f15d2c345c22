/**
 * Webhook settings. The signing secrets and the private-origin allowlist are read by the API (request checks,
 * GET /v1/webhooks/default/secret) and the worker (deliveries) alike, and must be the same on every process; the
 * retry and timeout settings are the worker's.
 */
import { z } from 'zod';
import { optionalString, parseOriginList, positiveMs } from '../core/config';

export const webhookSharedSchema = z.object({
  /**
   * The gateway's master secret: a key without its own `webhook_secret` signs with one derived from it
   * (webhooks/signing.ts). At least 32 characters, the same on every API and worker.
   */
  WEBHOOK_SIGNING_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  /** The master secret being rotated out: deliveries carry a signature with each until it is removed. */
  WEBHOOK_SIGNING_SECRET_PREVIOUS: optionalString,
  /** Comma-separated origins whose webhook URLs may name a private or local host (test receivers, an internal relay). */
  WEBHOOK_ALLOW_PRIVATE_ORIGINS: optionalString,
});

export const webhookDeliverySchema = z.object({
  /** One delivery attempt's bound (connect, send, answer): 10–15 s is what a receiver can expect of a sender. */
  WEBHOOK_ATTEMPT_TIMEOUT_MS: positiveMs(10_000),
  /** The wait before the first retry; doubled after each failed attempt up to WEBHOOK_RETRY_MAX_INTERVAL_MS. */
  WEBHOOK_RETRY_INITIAL_MS: positiveMs(5_000),
  WEBHOOK_RETRY_MAX_INTERVAL_MS: positiveMs(60 * 60_000),
  /** How long an event is retried before it is given up (`expired`): 72 hours. */
  WEBHOOK_RETRY_FOR_MS: positiveMs(72 * 60 * 60_000),
});

/**
 * Outside production without WEBHOOK_SIGNING_SECRET, keys sign with secrets derived from this public constant, so
 * that a development API and worker agree (npm start keeps a generated one in data/ instead). Production has no
 * default: a key then needs its own `webhook_secret`.
 */
const DEVELOPMENT_MASTER_SECRET = 'mediagate-development-webhook-secret-not-for-production';

export function webhookMasterSecret(config: z.infer<typeof webhookSharedSchema> & { NODE_ENV: string }): string | undefined {
  return config.WEBHOOK_SIGNING_SECRET ?? (config.NODE_ENV === 'production' ? undefined : DEVELOPMENT_MASTER_SECRET);
}

export function webhookAllowedOrigins(config: z.infer<typeof webhookSharedSchema>): Set<string> {
  return parseOriginList('WEBHOOK_ALLOW_PRIVATE_ORIGINS', config.WEBHOOK_ALLOW_PRIVATE_ORIGINS);
}
