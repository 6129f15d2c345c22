/**
 * The platforms' accounts as the workers see them, shared through the database: each worker writes its view of every
 * account (in the rotation or out, why and until when, throttled) every few seconds, and the refusals it met; any
 * API replica reads them (GET /admin/v1/accounts). A worker's rows older than a few of its intervals are a worker
 * that stopped: readers leave them out.
 */
import type { LedgerDatabase } from './database';
import type { AccountRefusalsTable, AccountStatesTable } from './schema';

export type AccountStateRow = Omit<AccountStatesTable, 'updated_at' | 'out_detail'> & { updated_at?: Date; out_detail?: string | null };

export interface AccountRefusal {
  workerId: string;
  platform: string;
  account: string;
  kind: 'refused' | 'throttled';
  reason: string;
  at: Date;
}

/** How many refusals per account are kept: the console shows the recent ones, not a history. */
export const REFUSALS_KEPT_PER_ACCOUNT = 50;

/** One worker's view of its accounts, replacing what it wrote before. */
export async function publishAccountStates(ledger: LedgerDatabase, rows: readonly AccountStateRow[], now = new Date()): Promise<void> {
  if (rows.length === 0) return;
  await ledger.db
    .insertInto('account_states')
    .values(rows.map((r) => ({ ...r, out_detail: r.out_detail ?? null, updated_at: now })))
    .onConflict((oc) =>
      oc.columns(['worker_id', 'platform', 'account']).doUpdateSet((eb) => ({
        weight: eb.ref('excluded.weight'),
        in_rotation: eb.ref('excluded.in_rotation'),
        out_reason: eb.ref('excluded.out_reason'),
        out_detail: eb.ref('excluded.out_detail'),
        out_since: eb.ref('excluded.out_since'),
        out_until: eb.ref('excluded.out_until'),
        throttled_until: eb.ref('excluded.throttled_until'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

/** Refusals a worker met since its last write; older ones beyond REFUSALS_KEPT_PER_ACCOUNT are dropped. */
export async function recordRefusals(ledger: LedgerDatabase, refusals: readonly AccountRefusal[]): Promise<void> {
  if (refusals.length === 0) return;
  await ledger.db
    .insertInto('account_refusals')
    .values(
      refusals.map((r) => ({ worker_id: r.workerId, platform: r.platform, account: r.account, kind: r.kind, reason: r.reason, at: r.at })),
    )
    .execute();
  const { sql } = ledger.k;
  await sql`
    DELETE FROM account_refusals WHERE id IN (
      SELECT id FROM (
        SELECT id, row_number() OVER (PARTITION BY platform, account ORDER BY at DESC, id DESC) AS n FROM account_refusals
      ) ranked WHERE n > ${REFUSALS_KEPT_PER_ACCOUNT}
    )`.execute(ledger.db);
}

/** Every worker's view written since `freshSince` (older rows are workers that stopped). */
export function accountStates(ledger: LedgerDatabase, freshSince: Date): Promise<(AccountStateRow & { updated_at: Date })[]> {
  return ledger.db
    .selectFrom('account_states')
    .selectAll()
    .where('updated_at', '>=', freshSince)
    .orderBy('platform')
    .orderBy('account')
    .orderBy('worker_id')
    .execute();
}

/** The latest refusals of every account, newest first, at most `perAccount` each. */
export async function recentRefusals(ledger: LedgerDatabase, perAccount: number): Promise<AccountRefusal[]> {
  const { sql } = ledger.k;
  const { rows } = await sql<Omit<AccountRefusalsTable, 'id'>>`
    SELECT worker_id, platform, account, kind, reason, at FROM (
      SELECT *, row_number() OVER (PARTITION BY platform, account ORDER BY at DESC, id DESC) AS n FROM account_refusals
    ) ranked WHERE n <= ${perAccount} ORDER BY platform, account, at DESC`.execute(ledger.db);
  return rows.map((r) => ({ workerId: r.worker_id, platform: r.platform, account: r.account, kind: r.kind, reason: r.reason, at: r.at }));
}

/** An operator's request to probe an account now: every worker acts on it at its next write (worker/account-states.ts). */
export async function requestProbe(ledger: LedgerDatabase, platform: string, account: string): Promise<{ id: string; requestedAt: Date }> {
  const row = await ledger.db
    .insertInto('account_probes')
    .values({ platform, account })
    .returning(['id', 'requested_at'])
    .executeTakeFirstOrThrow();
  return { id: String(row.id), requestedAt: row.requested_at };
}

/** The probe requests after the one numbered `afterId` (all: '0'), oldest first. */
export function probeRequestsAfter(ledger: LedgerDatabase, afterId: string): Promise<{ id: string; platform: string; account: string }[]> {
  return ledger.db.selectFrom('account_probes').select(['id', 'platform', 'account']).where('id', '>', afterId).orderBy('id').execute();
}

/** The number of the latest probe request ('0': none yet): a worker starting acts only on requests made after it. */
export async function latestProbeId(ledger: LedgerDatabase): Promise<string> {
  const { sql } = ledger.k;
  const row = await ledger.db
    .selectFrom('account_probes')
    .select(sql<string>`coalesce(max(id), 0)::text`.as('id'))
    .executeTakeFirst();
  return row?.id ?? '0';
}
