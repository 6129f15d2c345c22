/**
 * A webhook signing secret's form (Standard Webhooks: `whsec_` and the secret's bytes in base64), and what a key
 * record keeps of its own. Here, below the keys and the ledger, because both store a key's secret; signing with it
 * is webhooks/signing.ts.
 */
import { randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A key's explicit webhook secrets, as a key record carries them (keys/api-keys.ts ApiKey). */
export interface ExplicitWebhookSecret {
  secret?: string;
  /** The secret being rotated out: deliveries are signed with both until the operator removes it. */
  previousSecret?: string;
}

export function isWebhookSecret(s: string): boolean {
  if (!s.startsWith(WEBHOOK_SECRET_PREFIX)) return false;
  const bytes = Buffer.from(s.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  // Standard Webhooks: between 24 and 64 bytes.
  return bytes.length >= 24 && bytes.length <= 64 && bytes.toString('base64') === s.slice(WEBHOOK_SECRET_PREFIX.length);
}

/** A fresh `whsec_` secret of 32 random bytes. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}
