/**
 * The platforms' accounts as the workers publish them (worker/account-states.ts) and the API reads them
 * (api/account-states.ts), against a real PostgreSQL: one state per account merged over the live workers (out if one
 * has it out, with why and since when), a silent worker left out, the recent refusals newest first and bounded.
 */
import { AccountStates } from '../../../api/account-states';
import { AccountPool } from '../../../activities/accounts';
import { createLogger } from '../../../core/logger';
import { REFUSALS_KEPT_PER_ACCOUNT, recordRefusals } from '../../../ledger/account-states';
import { openLedgerDatabase, type LedgerDatabase } from '../../../ledger/database';
import type { PlatformAdapter } from '../../../platforms/platform';
import { AccountStatePublisher } from '../../../worker/account-states';
import { usePostgres } from '../../support/postgres';

const postgres = usePostgres();
const logger = createLogger('test', 'silent');
let ledger: LedgerDatabase;
beforeAll(async () => {
  ledger = await openLedgerDatabase(await postgres.pg.freshDatabase());
});
afterAll(() => ledger.close());

const adapter = {} as PlatformAdapter;
const pool = (now: () => number) =>
  new AccountPool(
    'V',
    [
      { id: 'main', weight: 3, adapter },
      { id: 'spare', weight: 1, adapter },
    ],
    { now, cooldownMs: 60_000, throttleMs: 10_000 },
  );

test('each account merged over the workers: out on one worker is out, with why and since when; throttled; in rotation', async () => {
  const t0 = Date.now();
  const one = pool(() => t0);
  const two = pool(() => t0);
  const first = new AccountStatePublisher(ledger, { V: one }, logger);
  const second = new AccountStatePublisher(ledger, { V: two }, logger, 'worker-two');
  one.refused('main', 'insufficient_balance');
  first.refusal('V', 'main', 'refused', 'insufficient_balance');
  two.throttled('spare', 20_000);
  second.refusal('V', 'spare', 'throttled', '429: slowed for 20 s');
  await first.publish();
  await second.publish();

  const inFlight: string[] = [];
  const states = new AccountStates(
    ledger,
    async (platform, account) => (inFlight.push(`${platform}/${account}`), account === 'main' ? 2 : 0),
  );
  const [main, spare] = await states.list();
  expect(main).toMatchObject({
    platform: 'V',
    account: 'main',
    state: 'out',
    weight: 3,
    out_reason: 'insufficient_balance',
    out_since: new Date(t0).toISOString(),
    out_until: new Date(t0 + 60_000).toISOString(),
    jobs_in_flight: 2,
    recent_refusals: [{ kind: 'refused', reason: 'insufficient_balance', worker: first.workerId }],
  });
  expect(main!.workers.map((w) => w.state).sort()).toEqual(['in_rotation', 'out']);
  expect(spare).toMatchObject({
    account: 'spare',
    state: 'throttled',
    throttled_until: new Date(t0 + 20_000).toISOString(),
    out_reason: null,
  });
  expect(inFlight.sort()).toEqual(['V/main', 'V/spare']);

  // A worker silent for longer than the staleness bound is a worker that stopped: its view is left out.
  await ledger.db
    .updateTable('account_states')
    .set({ updated_at: new Date(Date.now() - 60_000) })
    .where('worker_id', '=', 'worker-two')
    .execute();
  const [, spareLater] = await states.list();
  expect(spareLater).toMatchObject({ state: 'in_rotation', workers: [{ worker: first.workerId }] });
});

test('refusals are kept newest first, at most REFUSALS_KEPT_PER_ACCOUNT per account', async () => {
  const base = Date.now();
  await recordRefusals(
    ledger,
    Array.from({ length: REFUSALS_KEPT_PER_ACCOUNT + 20 }, (_, i) => ({
      workerId: 'w',
      platform: 'T',
      account: 'busy',
      kind: 'throttled' as const,
      reason: `n${i}`,
      at: new Date(base + i),
    })),
  );
  const kept = await ledger.db.selectFrom('account_refusals').select('reason').where('account', '=', 'busy').execute();
  expect(kept).toHaveLength(REFUSALS_KEPT_PER_ACCOUNT);
  expect(kept.map((r) => r.reason)).not.toContain('n0');
  expect(kept.map((r) => r.reason)).toContain(`n${REFUSALS_KEPT_PER_ACCOUNT + 19}`);
});
