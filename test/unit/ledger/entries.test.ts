/**
 * ledger/entries.ts without a database: the budget periods a moment falls in (pure), and what a reservation sends
 * and makes of the answers, with the real Kysely compiling the real statements over a node-postgres pool stand-in
 * that records them and answers as PostgreSQL would in each case. Which statements a case takes (one round trip for
 * a new id; a transaction for the rare cases) and the arithmetic of an over-budget answer are what is held here;
 * the statements' effect on real rows under concurrency is held by the PostgreSQL tests (test/system/tasks/).
 */
import type { LedgerDatabase } from '../../../ledger/database';
import { budgetView, committedMicros, periodKey, periodRange, reserveTask, type NewEntry } from '../../../ledger/entries';
import type { BudgetSetting } from '../../../ledger/keys';
import { loadKysely } from '../../../ledger/kysely';
import type { LedgerSchema } from '../../../ledger/schema';

describe('budget periods (UTC)', () => {
  test('the row a moment falls in: its UTC day, its UTC month, or the one row of a total budget', () => {
    const lateOnNewYearsEve = new Date('2026-12-31T23:59:59.999Z');
    expect(periodKey('day', lateOnNewYearsEve)).toBe('2026-12-31');
    expect(periodKey('month', lateOnNewYearsEve)).toBe('2026-12');
    expect(periodKey('total', lateOnNewYearsEve)).toBe('total');
    // The same instant written with an offset is the same UTC day.
    expect(periodKey('day', new Date('2027-01-01T01:00:00+02:00'))).toBe('2026-12-31');
  });

  test("a period's range is [start, next start): the month rolls over the year, February knows leap years", () => {
    expect(periodRange('day', new Date('2026-03-05T17:00:00Z'))).toEqual({
      from: new Date('2026-03-05T00:00:00Z'),
      to: new Date('2026-03-06T00:00:00Z'),
    });
    expect(periodRange('month', new Date('2026-12-15T08:00:00Z'))).toEqual({
      from: new Date('2026-12-01T00:00:00Z'),
      to: new Date('2027-01-01T00:00:00Z'),
    });
    expect(periodRange('month', new Date('2028-02-29T23:00:00Z'))).toEqual({
      from: new Date('2028-02-01T00:00:00Z'),
      to: new Date('2028-03-01T00:00:00Z'),
    });
    expect(periodRange('day', new Date('2028-02-28T12:00:00Z')).to).toEqual(new Date('2028-02-29T00:00:00Z'));
    expect(periodRange('total', new Date())).toEqual({});
  });
});

/** One statement as node-postgres received it. */
interface Sent {
  sql: string;
  params: unknown[];
}

/** How PostgreSQL answers each statement of a case: the rows of the first matching pattern (none: no rows). */
type Answers = [RegExp, Record<string, unknown>[]][];

/** The ledger over a node-postgres pool stand-in: every statement recorded and answered from `answers`. */
async function recordingLedger(answers: Answers): Promise<{ ledger: LedgerDatabase; sent: Sent[] }> {
  const k = await loadKysely();
  const sent: Sent[] = [];
  const client = {
    async query(sql: string, params: unknown[]) {
      sent.push({ sql, params });
      const rows = answers.find(([pattern]) => pattern.test(sql))?.[1] ?? [];
      return { command: sql.trim().split(/\s/)[0]!.toUpperCase(), rowCount: rows.length, rows };
    },
    release: () => undefined,
  };
  const pool = { connect: async () => client, end: async () => undefined };
  const db = new k.Kysely<LedgerSchema>({ dialect: new k.PostgresDialect({ pool: pool as never }) });
  return { ledger: { db, k, close: () => db.destroy() }, sent };
}

const NOW = new Date('2026-06-15T10:00:00Z');
const ENTRY: NewEntry = {
  taskId: 'task_1',
  keyId: 'alice',
  platform: 'T',
  model: 'VendorK-2.1',
  estimatedMicros: 2_000_000,
  currency: 'USD',
  seconds: 5,
  requestHash: 'fp-1',
};
const MONTHLY: BudgetSetting = { micros: 10_000_000, currency: 'USD', period: 'month' };

/** The statements' first words, transaction control included: which round trips a case took. */
const shapes = (sent: Sent[]) => sent.map((s) => s.sql.trim().replace(/\s+/g, ' ').slice(0, 30).toLowerCase());

describe('reserving a task', () => {
  test('without a budget: the entry is inserted in one statement, counted in no period', async () => {
    const { ledger, sent } = await recordingLedger([[/^insert into "ledger_entries"/, [{ task_id: 'task_1' }]]]);
    expect(await reserveTask(ledger, ENTRY, undefined, NOW)).toEqual({ reserved: true, replayed: false });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.sql).toMatch(/on conflict \("task_id"\) do nothing/);
    expect(sent[0]!.params).toEqual(expect.arrayContaining(['task_1', 'alice', 'VendorK-2.1', 2_000_000, 'reserved', 'fp-1']));
    expect(sent[0]!.sql).not.toContain('budget_usage');
  });

  test("a budget in another currency counts the estimate as zero: the same single insert, the budget's row untouched", async () => {
    const { ledger, sent } = await recordingLedger([[/^insert into "ledger_entries"/, [{ task_id: 'task_1' }]]]);
    const inYuan: BudgetSetting = { ...MONTHLY, currency: 'CNY' };
    expect(await reserveTask(ledger, ENTRY, inYuan, NOW)).toEqual({ reserved: true, replayed: false });
    expect(sent.map((s) => s.sql).join('\n')).not.toContain('budget_usage');
  });

  test("a counted budget, the estimate fits: one statement adds it to this month's row and inserts the entry", async () => {
    const { ledger, sent } = await recordingLedger([[/^\s*WITH counted/, [{ counted: true, claimed: true }]]]);
    expect(await reserveTask(ledger, ENTRY, MONTHLY, NOW)).toEqual({ reserved: true, replayed: false });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.sql).toContain('INSERT INTO budget_usage');
    expect(sent[0]!.params).toEqual(expect.arrayContaining(['alice', '2026-06', 'USD', 2_000_000, 10_000_000]));
    const row = JSON.parse(sent[0]!.params.find((p) => typeof p === 'string' && p.startsWith('{'))! as string);
    expect(row).toMatchObject({ task_id: 'task_1', budget_period: '2026-06', estimated_micros: 2_000_000, state: 'reserved' });
  });

  test.each([
    ['9.5 of 10 committed: 0.5 remains', '9500000', 500_000],
    ['more committed than a budget since lowered: nothing remains, never less', '12000000', 0],
  ])(
    'over budget (%s): nothing is written, and the answer says the period, what was spent and what remains',
    async (_case, committed, remaining) => {
      const { ledger, sent } = await recordingLedger([
        [/^\s*WITH counted/, [{ counted: false, claimed: false }]],
        [/^insert into "ledger_entries"/, [{ task_id: 'task_1' }]],
        [/^select "committed_micros"/, [{ committed_micros: committed }]],
      ]);
      expect(await reserveTask(ledger, ENTRY, MONTHLY, NOW)).toEqual({
        reserved: false,
        period: 'month',
        periodKey: '2026-06',
        budgetMicros: 10_000_000,
        spentMicros: Number(committed),
        remainingMicros: remaining,
        currency: 'USD',
      });
      // The one statement, then the transaction (its entry and its budget's upsert) rolled back, then the row read.
      expect(shapes(sent)).toEqual([
        expect.stringMatching(/^with counted/),
        'begin',
        expect.stringMatching(/^insert into "ledger_entries"/),
        expect.stringMatching(/^insert into budget_usage/),
        'rollback',
        expect.stringMatching(/^select "committed_micros"/),
      ]);
    },
  );

  test('a repeated task id: nothing reserved again, and the answer names the fingerprint of the request that reserved it', async () => {
    const { ledger, sent } = await recordingLedger([
      [/^\s*WITH counted/, [{ counted: false, claimed: false }]],
      [/^select "state"/, [{ state: 'reserved', outcome: null, request_hash: 'fp-first' }]],
    ]);
    expect(await reserveTask(ledger, ENTRY, MONTHLY, NOW)).toEqual({ reserved: true, replayed: true, requestHash: 'fp-first' });
    // The transaction finds the entry and adds nothing to the budget's row.
    expect(shapes(sent)).toEqual([
      expect.stringMatching(/^with counted/),
      'begin',
      expect.stringMatching(/^insert into "ledger_entries"/),
      expect.stringMatching(/^select "state"/),
      'commit',
    ]);
  });

  test('two requests under one new id at once: the one whose entry lost takes its estimate back from the row at once', async () => {
    const { ledger, sent } = await recordingLedger([
      [/^\s*WITH counted/, [{ counted: true, claimed: false }]],
      [/^select "state"/, [{ state: 'reserved', outcome: null, request_hash: 'fp-1' }]],
    ]);
    expect(await reserveTask(ledger, ENTRY, MONTHLY, NOW)).toEqual({ reserved: true, replayed: true, requestHash: 'fp-1' });
    const takeBack = sent.find((s) => s.sql.startsWith('UPDATE budget_usage'))!;
    expect(takeBack.params).toEqual([-2_000_000, 'alice', '2026-06', 'USD']);
  });
});

test("what a key has committed is its budget row's for the period, in the budget's currency; no row is zero", async () => {
  const found = await recordingLedger([[/^select "committed_micros"/, [{ committed_micros: '7250000' }]]]);
  expect(await committedMicros(found.ledger, 'alice', { period: 'day', currency: 'CNY' }, NOW)).toBe(7_250_000);
  expect(found.sent[0]!.params).toEqual(['alice', '2026-06-15', 'CNY']);
  const none = await recordingLedger([]);
  expect(await committedMicros(none.ledger, 'alice', MONTHLY, NOW)).toBe(0);
});

describe('the budget view: the one computation of spent and remaining', () => {
  const viewBudget = { micros: 5_000_000, currency: 'USD' as const, period: 'month' as const };
  const at = new Date('2026-03-14T10:00:00Z');

  test('what was committed in the period is spent; the rest of the budget remains', () => {
    expect(budgetView(viewBudget, 1_250_000, at)).toEqual({
      period: 'month',
      periodKey: '2026-03',
      budgetMicros: 5_000_000,
      currency: 'USD',
      spentMicros: 1_250_000,
      remainingMicros: 3_750_000,
    });
  });

  test('a final figure above its estimate can take the spent past the budget: nothing remains, never less than nothing', () => {
    expect(budgetView(viewBudget, 5_400_000, at)).toMatchObject({ spentMicros: 5_400_000, remainingMicros: 0 });
  });

  test.each([
    ['day', '2026-03-14'],
    ['total', 'total'],
  ] as const)('a %s budget counts the row %s', (period, periodKey) => {
    expect(budgetView({ ...viewBudget, period }, 0, at)).toMatchObject({ periodKey, remainingMicros: 5_000_000 });
  });
});
