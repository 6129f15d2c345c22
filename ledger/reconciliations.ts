/**
 * Reconciliation reports in the ledger's database: one per platform, account and UTC day, written with its
 * differences in one transaction, so a report is either whole or absent; its unique key (platform, account, day)
 * makes a second write of the same day a no-op. Read back for the admin API, the console and the metrics.
 */
import type { Selectable } from 'kysely' with { 'resolution-mode': 'import' };
import type { LedgerDatabase } from './database';
import type { DifferenceKind, ReconciliationDifferencesTable, ReconciliationReportsTable } from './schema';

export interface Difference {
  kind: DifferenceKind;
  upstreamTaskId?: string;
  taskId?: string;
  model?: string;
  /** When the job (or task) was created (ms since the epoch). */
  at?: number;
  /** What differs: the two sides' figures, the tolerance, the platform's status… */
  details: Record<string, unknown>;
}

export interface NewReport {
  platform: string;
  account: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  status: 'complete' | 'not_available';
  source: string;
  note?: string;
  platformJobs: number;
  ledgerTasks: number;
  differences: Difference[];
}

/** A report as its table holds it (ledger/schema.ts). */
export type ReportRow = Selectable<ReconciliationReportsTable>;

/** A difference as its table holds it, without its own and its report's ids. */
export type DifferenceRow = Omit<Selectable<ReconciliationDifferencesTable>, 'id' | 'report_id'>;

/** The report's id: readable, and the same for the same platform, account and day. */
export function reportId(platform: string, account: string, day: string): string {
  return `rec_${platform}_${day}_${account}`;
}

const count = (d: Difference[], kind: DifferenceKind) => d.filter((x) => x.kind === kind).length;

/**
 * Writes a report and its differences, once: true when this call wrote it, false when the day's report was
 * already there (a second run, or a retried activity whose first attempt committed before it died).
 */
export async function writeReport(ledger: LedgerDatabase, r: NewReport): Promise<boolean> {
  const id = reportId(r.platform, r.account, r.day);
  return ledger.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('reconciliation_reports')
      .values({
        id,
        platform: r.platform,
        account: r.account,
        day: r.day,
        status: r.status,
        source: r.source,
        note: r.note ?? null,
        platform_jobs: r.platformJobs,
        ledger_tasks: r.ledgerTasks,
        orphans: count(r.differences, 'orphan'),
        missing: count(r.differences, 'missing'),
        usage_differences: count(r.differences, 'usage'),
        total_differences: count(r.differences, 'total'),
      })
      .onConflict((oc) => oc.columns(['platform', 'account', 'day']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return false;
    if (r.differences.length > 0) {
      await trx
        .insertInto('reconciliation_differences')
        .values(
          r.differences.map((d) => ({
            report_id: id,
            kind: d.kind,
            upstream_task_id: d.upstreamTaskId ?? null,
            task_id: d.taskId ?? null,
            model: d.model ?? null,
            at: d.at === undefined ? null : new Date(d.at),
            details: JSON.stringify(d.details),
          })),
        )
        .execute();
    }
    return true;
  });
}

const REPORT_COLUMNS = [
  'id',
  'platform',
  'account',
  'status',
  'source',
  'note',
  'platform_jobs',
  'ledger_tasks',
  'orphans',
  'missing',
  'usage_differences',
  'total_differences',
  'created_at',
] as const;

/** Whether the day's report of the account exists already. */
export async function reportExists(ledger: LedgerDatabase, platform: string, account: string, day: string): Promise<boolean> {
  const row = await ledger.db
    .selectFrom('reconciliation_reports')
    .select('id')
    .where('id', '=', reportId(platform, account, day))
    .executeTakeFirst();
  return row !== undefined;
}

/** Reports, newest day first (then platform and account), a page at a time; optionally of one day or platform. */
export async function listReports(
  ledger: LedgerDatabase,
  q: { day?: string; platform?: string; limit: number; offset: number },
): Promise<{ rows: ReportRow[]; total: number }> {
  const { sql } = ledger.k;
  let base = ledger.db.selectFrom('reconciliation_reports');
  if (q.day) base = base.where(sql<boolean>`day = ${q.day}::date`);
  if (q.platform) base = base.where('platform', '=', q.platform);
  const [rows, total] = await Promise.all([
    base
      .select([...REPORT_COLUMNS, sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day')])
      .orderBy('day', 'desc')
      .orderBy('platform')
      .orderBy('account')
      .limit(q.limit)
      .offset(q.offset)
      .execute(),
    base.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as ReportRow[], total: Number(total.n) };
}

/** One report with its differences (orphans first), or undefined. */
export async function readReport(
  ledger: LedgerDatabase,
  id: string,
): Promise<{ report: ReportRow; differences: DifferenceRow[] } | undefined> {
  const { sql } = ledger.k;
  const report = await ledger.db
    .selectFrom('reconciliation_reports')
    .select([...REPORT_COLUMNS, sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day')])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!report) return undefined;
  const differences = await ledger.db
    .selectFrom('reconciliation_differences')
    .select(['kind', 'upstream_task_id', 'task_id', 'model', 'at', 'details'])
    .where('report_id', '=', id)
    .orderBy(sql`array_position(ARRAY['orphan', 'missing', 'usage', 'total'], kind)`)
    .orderBy('id')
    .execute();
  return { report: report as ReportRow, differences: differences as DifferenceRow[] };
}

/** The orphans of each account's latest report (for the metrics and their alert). */
export async function latestOrphans(ledger: LedgerDatabase): Promise<{ platform: string; account: string; orphans: number }[]> {
  const rows = await ledger.db
    .selectFrom('reconciliation_reports')
    .distinctOn(['platform', 'account'])
    .select(['platform', 'account', 'orphans'])
    .orderBy('platform')
    .orderBy('account')
    .orderBy('day', 'desc')
    .execute();
  return rows.map((r) => ({ platform: r.platform, account: r.account, orphans: Number(r.orphans) }));
}

/** What the ledger holds of these tasks: how each ended and what it used. */
export async function ledgerEntriesOf(
  ledger: LedgerDatabase,
  taskIds: readonly string[],
): Promise<
  Map<
    string,
    {
      state: string;
      outcome: string | null;
      finalMicros: number;
      tokens: number | null;
      seconds: number | null;
      images: number | null;
      model: string;
      currency: string;
      unpriced: string | null;
    }
  >
> {
  if (taskIds.length === 0) return new Map();
  const rows = await ledger.db
    .selectFrom('ledger_entries')
    .select(['task_id', 'state', 'outcome', 'final_micros', 'tokens', 'seconds', 'images', 'served_model', 'model', 'currency', 'unpriced'])
    .where('task_id', 'in', [...taskIds])
    .execute();
  return new Map(
    rows.map((r) => [
      r.task_id,
      {
        state: r.state,
        outcome: r.outcome,
        finalMicros: Number(r.final_micros ?? 0),
        tokens: r.tokens === null ? null : Number(r.tokens),
        seconds: r.seconds,
        images: r.images,
        model: r.served_model ?? r.model,
        currency: r.currency,
        unpriced: r.unpriced,
      },
    ]),
  );
}
