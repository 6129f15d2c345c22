/**
 * Keys made through the admin API, as rows. The API turns them into the same ApiKey record a bootstrap key is
 * (api/managed-keys.ts); this file only reads and writes the table.
 */
import type { Selectable } from 'kysely' with { 'resolution-mode': 'import' };
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
  budget?: BudgetSetting | null;
}

function columns(fields: KeyFields) {
  return {
    ...(fields.models !== undefined ? { models: fields.models } : {}),
    ...(fields.rateLimitRps !== undefined ? { rate_limit_rps: fields.rateLimitRps } : {}),
    ...(fields.maxInflight !== undefined ? { max_inflight: fields.maxInflight } : {}),
    ...(fields.budget !== undefined
      ? {
          budget_micros: fields.budget?.micros ?? null,
          budget_currency: fields.budget?.currency ?? null,
          budget_period: fields.budget?.period ?? null,
        }
      : {}),
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

export function findKey(ledger: LedgerDatabase, id: string): Promise<KeyRow | undefined> {
  return ledger.db.selectFrom('api_keys').selectAll().where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
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
