/**
 * The reconciliation workflow (workflows/reconciliation.ts) on the time-skipping test server, its activities scripted:
 * yesterday by default from the workflow's own clock; the accounts one after another, each once; an account whose
 * reconciliation fails for good is named in the result, and the accounts after it are still reconciled.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import type { ReconcileDayInput, ReconcileDayOutcome, ReconcileTarget } from '../../core/reconciliation';
import { useTimeSkipping } from '../support/time-skipping';

jest.setTimeout(120_000);

const ts = useTimeSkipping();
let counter = 0;

async function run(input: Record<string, unknown>, fails: ReadonlySet<string> = new Set()) {
  const taskQueue = `reconciliation-${++counter}`;
  const calls: ReconcileDayInput[] = [];
  const targets: ReconcileTarget[] = [
    { platform: 'B', account: 'default' },
    { platform: 'V', account: 'one' },
    { platform: 'V', account: 'two' },
  ];
  const worker = await Worker.create({
    connection: ts.env.nativeConnection,
    taskQueue,
    workflowBundle: ts.bundle,
    activities: {
      async reconciliationTargets(platform?: string, account?: string): Promise<ReconcileTarget[]> {
        return targets.filter(
          (t) => (platform === undefined || t.platform === platform) && (account === undefined || t.account === account),
        );
      },
      async reconcileAccountDay(i: ReconcileDayInput): Promise<ReconcileDayOutcome> {
        calls.push(i);
        if (fails.has(i.account)) throw ApplicationFailure.nonRetryable(`account ${i.account} refused the listing`, 'upstream_auth');
        return { reportId: `rec_${i.platform}_${i.day}_${i.account}`, written: true, status: 'complete' };
      },
    },
  });
  const result = await worker.runUntil(
    ts.env.client.workflow.execute('reconciliationWorkflow', { taskQueue, workflowId: `reconciliation-test-${counter}`, args: [input] }),
  );
  return { result, calls };
}

test('by default yesterday (UTC, by the workflow clock), every account once, one after another', async () => {
  const now = await ts.env.currentTimeMs();
  const yesterday = new Date(now - 86_400_000).toISOString().slice(0, 10);
  const { result, calls } = await run({});
  expect(calls.map((c) => `${c.platform}/${c.account}/${c.day}`)).toEqual([
    `B/default/${yesterday}`,
    `V/one/${yesterday}`,
    `V/two/${yesterday}`,
  ]);
  expect(result).toMatchObject({ day: yesterday, failed: [] });
});

test('a day, a platform and an account narrow the run', async () => {
  const { calls } = await run({ day: '2026-11-01', only: { platform: 'V', account: 'two' } });
  expect(calls).toEqual([{ platform: 'V', account: 'two', day: '2026-11-01' }]);
});

test('an account that fails for good is named, and the accounts after it are still reconciled', async () => {
  const { result, calls } = await run({ day: '2026-11-02', only: { platform: 'V' } }, new Set(['one']));
  expect(calls.map((c) => c.account)).toEqual(['one', 'two']);
  expect(result).toMatchObject({
    reports: [{ reportId: 'rec_V_2026-11-02_two' }],
    failed: [{ platform: 'V', account: 'one', error: expect.stringMatching(/refused the listing/) }],
  });
});
