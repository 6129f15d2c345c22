/**
 * The admin API's keys on this API replica: written to the database, then read back by every replica on a short
 * poll (KEYS_REFRESH_MS, 2 s by default), so a revocation or a changed limit takes effect everywhere within a few
 * seconds and without a restart. The replica that made a change reads at once, so its own next request sees it.
 * A failed read keeps the last set (the database restarting must not lock every client out) and is logged.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../core/logger';
import type { LedgerDatabase } from '../ledger/database';
import { newWebhookSecret } from '../core/webhook-signing';
import {
  findKey,
  insertKey,
  liveKeys,
  revokedKeys,
  revokeKey,
  rotateWebhookSecret,
  updateKey,
  webhookSecretOfRow,
  type KeyFields,
  type KeyRow,
} from '../ledger/keys';
import { sha256, type ApiKey, type KeyStore } from './api-keys';

/** A stored key as the record every part of the API reads (the same type a bootstrap key is). */
export function keyFromRow(row: KeyRow): ApiKey {
  return {
    id: row.id,
    digest: row.digest,
    models: row.models ? new Set(row.models) : undefined,
    rateLimitRps: row.rate_limit_rps ?? undefined,
    maxInflight: row.max_inflight ?? undefined,
    maxStreams: row.max_streams ?? undefined,
    budget:
      row.budget_micros !== null && row.budget_currency && row.budget_period
        ? { micros: Number(row.budget_micros), currency: row.budget_currency, period: row.budget_period }
        : undefined,
    ...(row.allow_unpriced ? { allowUnpriced: true } : {}),
    source: 'admin',
    ...(row.webhook_url ? { webhookUrl: row.webhook_url } : {}),
    ...(row.webhook_secret ? { webhookSecret: webhookSecretOfRow(row) } : {}),
  };
}

/** A new key's secret: 32 random bytes, prefixed like the keys `npm start` makes. */
export const newKeySecret = () => `sk-${randomBytes(32).toString('base64url')}`;

export class ManagedKeys {
  private timer?: NodeJS.Timeout;
  private createdAt = new Map<string, Date>();

  constructor(
    readonly ledger: LedgerDatabase,
    private readonly store: KeyStore,
    private readonly log: Logger,
  ) {}

  /** Reads the live keys again and hands them to the key store. */
  async refresh(): Promise<void> {
    const rows = await liveKeys(this.ledger);
    this.createdAt = new Map(rows.map((r) => [r.id, r.created_at]));
    this.store.replaceManaged(rows.map(keyFromRow));
  }

  /** Reads now, then every `intervalMs`. */
  async start(intervalMs: number): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch((err: Error) =>
        this.log.warn({ err: err.message }, 'Could not read the API keys from the database; keeping the last set'),
      );
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** When a stored key was made (for the admin API's views). */
  createdAtOf(id: string): Date | undefined {
    return this.createdAt.get(id);
  }

  /** Stores a new key; its secret is returned once and only its digest is kept. Undefined: the id is taken. */
  async create(id: string, fields: KeyFields): Promise<{ key: ApiKey; secret: string; createdAt: Date } | undefined> {
    const secret = newKeySecret();
    if (!(await insertKey(this.ledger, id, sha256(secret), fields))) return undefined;
    await this.refresh();
    const row = await findKey(this.ledger, id);
    if (!row) return undefined;
    return { key: keyFromRow(row), secret, createdAt: row.created_at };
  }

  async update(id: string, fields: KeyFields): Promise<ApiKey | undefined> {
    const row = await updateKey(this.ledger, id, fields);
    await this.refresh();
    return row ? keyFromRow(row) : undefined;
  }

  /**
   * A new webhook signing secret for the key; the one it signed with (`signingUntilNow`, when it had none of its
   * own) keeps signing too for `overlapMs`. The secret is never returned here: the key reads it at
   * GET /v1/webhooks/default/secret.
   */
  async rotateWebhookSecret(id: string, signingUntilNow: string | undefined, overlapMs: number): Promise<ApiKey | undefined> {
    const row = await rotateWebhookSecret(this.ledger, id, {
      newSecret: newWebhookSecret(),
      signingUntilNow: signingUntilNow ?? null,
      overlapUntil: new Date(Date.now() + overlapMs),
    });
    await this.refresh();
    return row ? keyFromRow(row) : undefined;
  }

  /** The revoked keys (never authenticated against), each with when it was made and revoked. */
  async revoked(): Promise<{ key: ApiKey; createdAt: Date; revokedAt: Date }[]> {
    const rows = await revokedKeys(this.ledger);
    return rows.map((r) => ({ key: keyFromRow(r), createdAt: r.created_at, revokedAt: r.revoked_at! }));
  }

  async revoke(id: string): Promise<boolean> {
    const revoked = await revokeKey(this.ledger, id);
    await this.refresh();
    return revoked;
  }
}
