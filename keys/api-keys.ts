/**
 * API keys: `Authorization: Bearer <secret>`. Keys are compared by their SHA-256 digest in constant time, over
 * every configured key, so neither timing nor early exit reveals which bytes matched. The secret itself is
 * never logged and never leaves this module: the rest of the gateway knows a key by its id.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../core/config';
import type { BudgetSetting } from '../ledger/keys';
import { isWebhookSecret, type ExplicitWebhookSecret } from '../core/webhook-secret';

export interface ApiKey {
  id: string;
  /** SHA-256 of the secret. */
  digest: Buffer;
  /** Models this key may use; undefined means all. */
  models?: ReadonlySet<string>;
  rateLimitRps?: number;
  maxInflight?: number;
  /** Open event streams on one API process (api/event-stream-slots.ts); undefined: KEY_MAX_STREAMS. */
  maxStreams?: number;
  /** The key's share of free platform slots relative to other waiting keys (capacity/slots.ts); undefined: 1. */
  weight?: number;
  /** What the key may spend per period (keys made through the admin API only); undefined: no budget. */
  budget?: BudgetSetting;
  /**
   * A budgeted key may start tasks its budget cannot price (no price, or a price in another currency) only when its
   * operator allows it; they then count at zero, and the budget's state says how many went through.
   */
  allowUnpriced?: boolean;
  /**
   * Where the key comes from: `bootstrap` (API_KEYS / API_KEYS_FILE, changed only there) or `admin` (the admin
   * API, kept in the database). Undefined is read as bootstrap.
   */
  source?: 'bootstrap' | 'admin';
  /** Where this key's tasks send their events when a request names no `webhook_url`. */
  webhookUrl?: string;
  /**
   * The key's own webhook signing secret (`whsec_…`) and the one being rotated out; absent: derived from
   * WEBHOOK_SIGNING_SECRET (webhooks/signing.ts). Read only through WebhookSecrets, never logged.
   */
  webhookSecret?: ExplicitWebhookSecret;
}

export const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

const keyIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;

const keysFileSchema = z.array(
  z
    .strictObject({
      id: z.string().regex(keyIdPattern),
      secret: z.string().min(16).optional(),
      sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/i)
        .optional(),
      models: z.array(z.string().min(1)).optional(),
      rate_limit_rps: z.number().nonnegative().optional(),
      max_inflight: z.number().int().nonnegative().optional(),
      max_streams: z.number().int().nonnegative().optional(),
      weight: z.number().positive().max(1_000_000).optional(),
      webhook_url: z.url({ protocol: /^https?$/ }).optional(),
      webhook_secret: z.string().refine(isWebhookSecret, 'must be whsec_ followed by the base64 of 24 to 64 bytes').optional(),
      webhook_secret_previous: z.string().refine(isWebhookSecret, 'must be whsec_ followed by the base64 of 24 to 64 bytes').optional(),
    })
    .refine((k) => (k.secret === undefined) !== (k.sha256 === undefined), { message: 'give exactly one of secret or sha256' }),
);

/** Parses `API_KEYS` (`id:secret,id:secret`). */
export function parseApiKeysEnv(value: string): ApiKey[] {
  return value
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair, i) => {
      const sep = pair.indexOf(':');
      const id = pair.slice(0, sep);
      const secret = pair.slice(sep + 1);
      if (sep <= 0 || !keyIdPattern.test(id) || secret.length < 16) {
        throw new ConfigError(
          `Invalid configuration:\n  API_KEYS: entry ${i + 1} must be id:secret with an id of [A-Za-z0-9_.-] and a secret of at least 16 characters`,
        );
      }
      return { id, digest: sha256(secret) };
    });
}

export function parseApiKeysFile(path: string): ApiKey[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  API_KEYS_FILE: cannot read ${path}: ${(err as Error).message}`);
  }
  const parsed = keysFileSchema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration:\n  API_KEYS_FILE: ${i.path.join('.')}: ${i.message}`);
  }
  return parsed.data.map((k) => ({
    id: k.id,
    digest: k.secret !== undefined ? sha256(k.secret) : Buffer.from(k.sha256!, 'hex'),
    models: k.models ? new Set(k.models) : undefined,
    rateLimitRps: k.rate_limit_rps,
    maxInflight: k.max_inflight,
    maxStreams: k.max_streams,
    ...(k.weight !== undefined ? { weight: k.weight } : {}),
    ...(k.webhook_url ? { webhookUrl: k.webhook_url } : {}),
    ...(k.webhook_secret || k.webhook_secret_previous
      ? { webhookSecret: { secret: k.webhook_secret, previousSecret: k.webhook_secret_previous } }
      : {}),
  }));
}

/**
 * The keys the API accepts: the bootstrap keys it was started with, fixed, and the admin API's keys, replaced as
 * a whole whenever the database's set is read again (keys/managed-keys.ts), so a revocation or a changed limit
 * reaches every replica without a restart.
 */
export class KeyStore {
  private readonly bootstrap: readonly ApiKey[];
  private managed: readonly ApiKey[] = [];
  /** Every key by id, and by the hex of its secret's digest: one lookup per request, however many keys there are. */
  private byIdMap = new Map<string, ApiKey>();
  private byDigest = new Map<string, ApiKey>();

  constructor(keys: readonly ApiKey[]) {
    const ids = new Set<string>();
    for (const k of keys) {
      if (ids.has(k.id)) throw new ConfigError(`Invalid configuration:\n  API_KEYS: duplicate key id '${k.id}'`);
      ids.add(k.id);
    }
    this.bootstrap = keys.map((k) => ({ ...k, source: 'bootstrap' as const }));
    this.index();
  }

  get size(): number {
    return this.bootstrap.length + this.managed.length;
  }

  /** The admin API's keys, as last read from the database; a bootstrap key's id wins over a stored one. */
  replaceManaged(keys: readonly ApiKey[]): void {
    const bootstrapIds = new Set(this.bootstrap.map((k) => k.id));
    this.managed = keys.filter((k) => !bootstrapIds.has(k.id)).map((k) => ({ ...k, source: 'admin' as const }));
    this.index();
  }

  /** Rebuilds the lookups (a new set replaces the old at once: a request sees one or the other). */
  private index(): void {
    const all = this.list();
    this.byIdMap = new Map(all.map((k) => [k.id, k]));
    // Bootstrap keys first: a stored key with a bootstrap key's secret never shadows it.
    this.byDigest = new Map();
    for (const k of all) if (!this.byDigest.has(k.digest.toString('hex'))) this.byDigest.set(k.digest.toString('hex'), k);
  }

  /** Every key, bootstrap keys first. */
  list(): readonly ApiKey[] {
    return [...this.bootstrap, ...this.managed];
  }

  find(id: string): ApiKey | undefined {
    return this.byIdMap.get(id);
  }

  isBootstrap(id: string): boolean {
    return this.byIdMap.get(id)?.source === 'bootstrap';
  }

  /** The key with this id (not an authentication: for the key's own settings, e.g. its webhook secret). */
  byId(id: string): ApiKey | undefined {
    return this.find(id);
  }

  /**
   * The key whose secret is `presented`. Looked up by the SHA-256 digest of what was presented, never by the secret:
   * how long the lookup takes depends on that digest, which tells nothing about any key's secret (finding a secret
   * from digests is SHA-256's preimage problem), and the match is confirmed by a constant-time comparison of the
   * digests.
   */
  authenticate(presented: string): ApiKey | undefined {
    const digest = sha256(presented);
    const candidate = this.byDigest.get(digest.toString('hex'));
    return candidate && timingSafeEqual(digest, candidate.digest) ? candidate : undefined;
  }
}

/** Extracts the token of `Authorization: Bearer <token>`. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}
