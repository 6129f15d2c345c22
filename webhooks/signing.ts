/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/, "Signature scheme"): the receiver checks
 * `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`
 * with the secret's bytes (the base64 after `whsec_`, core/webhook-secret.ts) as the key. Several signatures are sent while a secret is
 * being rotated: a receiver that knows either secret accepts the message.
 *
 * Secrets are looked up by key id at send time (WebhookSecrets), so none is ever in a workflow's input, history,
 * memo or search attributes, nor in a log line.
 */
import { createHmac } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX, type ExplicitWebhookSecret } from '../core/webhook-secret';

/** The key's signing secrets: `current` (what GET /v1/webhooks/default/secret shows) first, then any being rotated out. */
export interface WebhookSigningKeys {
  current: string;
  previous: string[];
}

/**
 * Where a key's webhook secrets come from. One small interface, so any key store (API_KEYS_FILE entries, keys kept
 * in a database) can supply them: an explicit secret per key, else one derived from the gateway's master secret.
 */
export interface WebhookSecrets {
  /** The key's secrets, or undefined when the gateway has none for it (no explicit secret and no master secret). */
  forKey(keyId: string): Promise<WebhookSigningKeys | undefined>;
}

/**
 * A key's secret derived from the gateway's master secret (WEBHOOK_SIGNING_SECRET): HMAC-SHA256(master,
 * "webhook-secret:" + key id), so every API and worker derives the same one and nothing per key is stored.
 */
export function derivedWebhookSecret(masterSecret: string, keyId: string): string {
  return WEBHOOK_SECRET_PREFIX + createHmac('sha256', masterSecret).update(`webhook-secret:${keyId}`).digest('base64');
}

/**
 * The secrets of every key: an explicit one from its key record where set, else derived from the master secret
 * (and from the previous master secret too while that is configured, for a rotation with overlap).
 */
export function webhookSecrets(options: {
  masterSecret?: string;
  previousMasterSecret?: string;
  explicit: (keyId: string) => Promise<ExplicitWebhookSecret | undefined>;
}): WebhookSecrets {
  return {
    async forKey(keyId) {
      const own = await options.explicit(keyId);
      if (own?.secret) return { current: own.secret, previous: own.previousSecret ? [own.previousSecret] : [] };
      if (!options.masterSecret) return undefined;
      const previous = [
        own?.previousSecret,
        options.previousMasterSecret && derivedWebhookSecret(options.previousMasterSecret, keyId),
      ].filter((s): s is string => Boolean(s));
      return { current: derivedWebhookSecret(options.masterSecret, keyId), previous };
    },
  };
}

/** The `webhook-signature` header: one `v1,<signature>` per secret, space separated. */
export function webhookSignature(keys: WebhookSigningKeys, webhookId: string, timestampSeconds: number, body: string): string {
  return [keys.current, ...keys.previous]
    .map((secret) => {
      const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
      return `v1,${createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
