/**
 * Keys made through the admin API, as rows. The API turns them into the same ApiKey record a bootstrap key is
 * (keys/managed-keys.ts); this file only reads and writes the table.
 */
import type { Selectable } from 'kysely' with { 'resolution-mode': 'import' };
import type { ExplicitWebhookSecret } from '../core/webhook-secret';
import type { LedgerDatabase } from './database';
import type { ApiKeysTable, BudgetPeriod, Currency } from './schema';

export type KeyRow = Selectable<ApiKeysTable>;

export interface BudgetSetting {
  micros: number;
  currency: Currency;
  period: BudgetPeriod;
}

export interface KeyFields {
  models?: string[] | null;
  rateLimitRps?: number | null;
  maxInflight?: number | null;
  maxStreams?: number | null;
  /** The key's share of free platform slots (ApiKeysTable.weight); null: back to 1. */
  weight?: number | null;
  budget?: BudgetSetting | null;
  /** Whether the budget lets through tasks it cannot price (ApiKeysTable.allow_unpriced). */
  allowUnpriced?: boolean;
  /** The key's default webhook URL (already checked as a request's webhook_url is); null clears it. */
  webhookUrl?: string | null;
}

function columns(fields: KeyFields) {
  return {
    ...(fields.models !== undefined ? { models: fields.models } : {}),
    ...(fields.rateLimitRps !== undefined ? { rate_limit_rps: fields.rateLimitRps } : {}),
    ...(fields.maxInflight !== undefined ? { max_inflight: fields.maxInflight } : {}),
    ...(fields.maxStreams !== undefined ? { max_streams: fields.maxStreams } : {}),
    ...(fields.weight !== undefined ? { weight: fields.weight ?? 1 } : {}),
    ...(fields.budget !== undefined
      ? {
          budget_micros: fields.budget?.micros ?? null,
          budget_currency: fields.budget?.currency ?? null,
          budget_period: fields.budget?.period ?? null,
        }
      : {}),
    ...(fields.allowUnpriced !== undefined ? { allow_unpriced: fields.allowUnpriced } : {}),
    ...(fields.webhookUrl !== undefined ? { webhook_url: fields.webhookUrl } : {}),
  };
}

/** Inserts a key; false when the id is taken (by a live or a revoked key: ids are never reused). */
export async function insertKey(ledger: LedgerDatabase, id: string, digest: Buffer, fields: KeyFields): Promise<boolean> {
  const inserted = await ledger.db
    .insertInto('api_keys')
    .values({ id, digest, ...columns(fields) })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Every live key (revoked ones excluded): what the API authenticates against. */
export function liveKeys(ledger: LedgerDatabase): Promise<KeyRow[]> {
  return ledger.db.selectFrom('api_keys').selectAll().where('revoked_at', 'is', null).orderBy('id').execute();
}

/** The revoked keys, by id: the admin API lists them (with when) so an operator sees why an id cannot be reused. */
export function revokedKeys(ledger: LedgerDatabase): Promise<KeyRow[]> {
  return ledger.db.selectFrom('api_keys').selectAll().where('revoked_at', 'is not', null).orderBy('id').execute();
}

export function findKey(ledger: LedgerDatabase, id: string): Promise<KeyRow | undefined> {
  return ledger.db.selectFrom('api_keys').selectAll().where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
}

/** The live key whose secret has this SHA-256 digest (the column is unique, so an index lookup). */
export function liveKeyByDigest(ledger: LedgerDatabase, digest: Buffer): Promise<KeyRow | undefined> {
  return ledger.db.selectFrom('api_keys').selectAll().where('digest', '=', digest).where('revoked_at', 'is', null).executeTakeFirst();
}

/** Changes a live key's fields; undefined when there is none with that id. */
export async function updateKey(ledger: LedgerDatabase, id: string, fields: KeyFields): Promise<KeyRow | undefined> {
  return ledger.db
    .updateTable('api_keys')
    .set({ ...columns(fields), updated_at: new Date() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Revokes a live key; false when there is none with that id. */
export async function revokeKey(ledger: LedgerDatabase, id: string): Promise<boolean> {
  const now = new Date();
  const row = await ledger.db
    .updateTable('api_keys')
    .set({ revoked_at: now, updated_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The key's own webhook secrets as a row holds them: the previous one only while its overlap lasts (`now` before
 * `webhook_secret_previous_until`); undefined when the key has none of its own (it signs with a derived one).
 */
export function webhookSecretOfRow(
  row: Pick<KeyRow, 'webhook_secret' | 'webhook_secret_previous' | 'webhook_secret_previous_until'>,
  now = new Date(),
): ExplicitWebhookSecret | undefined {
  if (!row.webhook_secret) return undefined;
  const overlapping = row.webhook_secret_previous && row.webhook_secret_previous_until && row.webhook_secret_previous_until > now;
  return { secret: row.webhook_secret, ...(overlapping ? { previousSecret: row.webhook_secret_previous! } : {}) };
}

/**
 * A key's own webhook secrets by id, read at send time by the worker. Revoked keys are read too: the events of
 * the tasks a key started before its revocation are still signed with its secret.
 */
export async function keyWebhookSecret(ledger: LedgerDatabase, id: string): Promise<ExplicitWebhookSecret | undefined> {
  const row = await ledger.db
    .selectFrom('api_keys')
    .select(['webhook_secret', 'webhook_secret_previous', 'webhook_secret_previous_until'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && webhookSecretOfRow(row);
}

/**
 * Gives a live key a new webhook signing secret in one statement. The one it signed with until now — its own, or
 * `signingUntilNow` (the secret derived from WEBHOOK_SIGNING_SECRET) when it had none — keeps signing beside the
 * new one until `overlapUntil`, so receivers can switch without losing a delivery. Undefined: no such live key.
 */
export async function rotateWebhookSecret(
  ledger: LedgerDatabase,
  id: string,
  rotation: { newSecret: string; signingUntilNow: string | null; overlapUntil: Date },
): Promise<KeyRow | undefined> {
  const { sql } = ledger.k;
  return ledger.db
    .updateTable('api_keys')
    .set({
      webhook_secret: rotation.newSecret,
      webhook_secret_previous: sql<string | null>`coalesce(webhook_secret, ${rotation.signingUntilNow})`,
      webhook_secret_previous_until: rotation.overlapUntil,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
