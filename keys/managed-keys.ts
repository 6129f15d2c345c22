/**
 * The admin API's keys on this API replica: written to the database, then read back by every replica on a short
 * poll (KEYS_REFRESH_MS, 2 s by default), so a revocation or a changed limit takes effect everywhere within a few
 * seconds and without a restart. The replica that made a change reads at once, so its own next request sees it.
 * A failed read keeps the last set (the database restarting must not lock every client out) and is logged.
 *
 * A key made on another replica is known here only from the next poll, so a secret this replica does not know is
 * looked up in the database before it is refused (`lookUp`): a client that makes a key and uses it at once, on
 * whichever replica the balancer picks, is served. A secret the database does not know either is remembered as
 * unknown for NEGATIVE_TTL_MS, so a flood of wrong keys costs at most one indexed read per distinct secret per
 * interval. Only live keys are found, so a revocation still takes effect everywhere within KEYS_REFRESH_MS.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../core/logger';
import type { LedgerDatabase } from '../ledger/database';
import { newWebhookSecret } from '../core/webhook-secret';
import {
  findKey,
  insertKey,
  liveKeyByDigest,
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
    ...(row.weight !== undefined && row.weight !== 1 ? { weight: row.weight } : {}),
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

/** How long a secret the database did not know is refused without asking it again. */
export const NEGATIVE_TTL_MS = 2_000;
/** The most unknown secrets remembered: past it the memory is started afresh (a flood cannot grow it). */
const NEGATIVE_MAX = 10_000;

export class ManagedKeys {
  private timer?: NodeJS.Timeout;
  private createdAt = new Map<string, Date>();
  /** Digests (hex) of secrets the database did not know, with when that answer expires. */
  private unknown = new Map<string, number>();
  /** Lookups under way, by digest: concurrent requests with one new key read the database once. */
  private lookups = new Map<string, Promise<ApiKey | undefined>>();

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

  /**
   * The live key of a secret this replica does not know yet (made on another replica since the last poll), read
   * from the database; undefined when there is none, or it was looked for within NEGATIVE_TTL_MS. A found key
   * joins the store at once (the full set is read again).
   */
  async lookUp(presented: string): Promise<ApiKey | undefined> {
    const digest = sha256(presented);
    const hex = digest.toString('hex');
    const until = this.unknown.get(hex);
    if (until !== undefined && until > Date.now()) return undefined;
    let lookup = this.lookups.get(hex);
    if (!lookup) {
      lookup = this.readByDigest(digest, hex).finally(() => this.lookups.delete(hex));
      this.lookups.set(hex, lookup);
    }
    return lookup;
  }

  private async readByDigest(digest: Buffer, hex: string): Promise<ApiKey | undefined> {
    const row = await liveKeyByDigest(this.ledger, digest);
    if (!row) {
      if (this.unknown.size >= NEGATIVE_MAX) this.unknown.clear();
      this.unknown.set(hex, Date.now() + NEGATIVE_TTL_MS);
      return undefined;
    }
    await this.refresh();
    return keyFromRow(row);
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
