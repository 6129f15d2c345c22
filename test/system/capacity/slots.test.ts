/**
 * The slot store (capacity/slots.ts) against a real PostgreSQL: an account never holds more slots than its limit, even
 * with takes racing; a slot is the task's row (taken twice it is one, given back twice it is gone once); a freed slot
 * goes to the waiting key with the smallest weighted share, first in first out within a key; a route's candidate with
 * room is taken before the queue; a concurrency refusal teaches the account its limit, raised again after enough
 * creates; a job announced ended frees only its own slot; first takes racing on accounts nobody configured all answer.
 */
import type { SlotCandidate, SlotRequest } from '../../../core/capacity';
import { openLedgerDatabase, type LedgerDatabase } from '../../../ledger/database';
import { SlotStore } from '../../../capacity/slots';
import { usePostgres } from '../../support/postgres';

const postgres = usePostgres();
let ledger: LedgerDatabase;
beforeEach(async () => {
  ledger = await openLedgerDatabase(await postgres.pg.freshDatabase());
});
afterEach(() => ledger.close());

const on = (account: string, platform = 'V', member = 0): SlotCandidate => ({ platform, account, member });
const ask = (taskId: string, owner: string, candidates: SlotCandidate[], weight = 1): SlotRequest => ({
  taskId,
  owner,
  weight,
  candidates,
});

test('an account with a limit holds at most that many slots, however many tasks race for it', async () => {
  const store = new SlotStore(ledger);
  await store.configure([{ platform: 'V', account: 'a', limit: 3 }]);
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => store.take(ask(`t${i}`, 'k1', [on('a')]), { mayWait: true })));
  expect(answers.filter((a) => 'granted' in a)).toHaveLength(3);
  expect(answers.filter((a) => 'waiting' in a)).toHaveLength(9);
  expect((await store.view()).find((c) => c.account === 'a')).toMatchObject({ limit: 3, inUse: 3, waiting: 9 });
});

test("first takes racing on accounts no worker configured, from two workers: every take answers, each account's row is written once", async () => {
  // Two stores are two worker processes; neither has seen the accounts, so each writes their rows before locking them.
  const stores = [new SlotStore(ledger), new SlotStore(ledger)];
  const candidates = [on('new-a'), on('new-b', 'V', 1)];
  const answers = await Promise.all(
    Array.from({ length: 16 }, (_, i) =>
      stores[i % 2]!.take(ask(`t${i}`, 'k1', i % 3 === 0 ? [...candidates].reverse() : candidates), { mayWait: true }),
    ),
  );
  // No limit configured or learned: every task is granted a slot on its first candidate (a reversed list every third).
  expect(answers.every((a) => 'granted' in a)).toBe(true);
  const view = await stores[0]!.view();
  expect(view.map((c) => `${c.account}:${c.inUse}:${c.limit}`).sort()).toEqual(['new-a:10:null', 'new-b:6:null']);
  // Given back, every slot is gone; the accounts stay.
  for (let i = 0; i < 16; i++) await stores[(i + 1) % 2]!.release(`t${i}`);
  expect((await stores[1]!.view()).map((c) => c.inUse)).toEqual([0, 0]);
});

test('a slot is its task: taken again it is the same one, given back twice it frees one place', async () => {
  const store = new SlotStore(ledger);
  await store.configure([{ platform: 'V', account: 'a', limit: 1 }]);
  expect(await store.take(ask('t1', 'k1', [on('a')]), { mayWait: true })).toEqual({ granted: on('a') });
  expect(await store.take(ask('t1', 'k1', [on('a')]), { mayWait: true })).toEqual({ granted: on('a') });
  expect('waiting' in (await store.take(ask('t2', 'k1', [on('a')]), { mayWait: true }))).toBe(true);
  expect('waiting' in (await store.take(ask('t3', 'k1', [on('a')]), { mayWait: true }))).toBe(true);
  const first = await store.release('t1');
  expect(first.map((g) => g.taskId)).toEqual(['t2']);
  expect(await store.release('t1')).toEqual([]);
  // t2's grant waits for t2; t3 still waits: the account holds one slot, as its limit says.
  expect((await store.view())[0]).toMatchObject({ inUse: 1, waiting: 1 });
  expect(await store.take(ask('t2', 'k1', [on('a')]), { mayWait: true })).toEqual({ granted: on('a') });
});

test('a freed slot goes to the key with the smallest share in use, weighted; within a key, first in first out', async () => {
  const store = new SlotStore(ledger);
  await store.configure([{ platform: 'V', account: 'a', limit: 4 }]);
  // The busy key holds all four slots, and has a backlog.
  for (let i = 0; i < 4; i++) await store.take(ask(`busy-run-${i}`, 'busy', [on('a')]), { mayWait: true });
  for (let i = 0; i < 5; i++) await store.take(ask(`busy-${i}`, 'busy', [on('a')]), { mayWait: true });
  // Then a quiet key's two tasks arrive, behind the backlog.
  await store.take(ask('quiet-0', 'quiet', [on('a')]), { mayWait: true });
  await store.take(ask('quiet-1', 'quiet', [on('a')]), { mayWait: true });
  const order: string[] = [];
  for (let i = 0; i < 4; i++) order.push(...(await store.release(`busy-run-${i}`)).map((g) => g.taskId));
  // quiet (0 in use) first; then busy (3 in use) and quiet (1 in use): quiet again; then busy in its own order.
  expect(order).toEqual(['quiet-0', 'quiet-1', 'busy-0', 'busy-1']);
});

test('weight: a key of weight 3 gets three slots for every one of a key of weight 1', async () => {
  const store = new SlotStore(ledger);
  await store.configure([{ platform: 'V', account: 'a', limit: 4 }]);
  for (let i = 0; i < 4; i++) await store.take(ask(`filler-${i}`, 'filler', [on('a')]), { mayWait: true });
  for (let i = 0; i < 6; i++) {
    await store.take(ask(`heavy-${i}`, 'heavy', [on('a')], 3), { mayWait: true });
    await store.take(ask(`light-${i}`, 'light', [on('a')], 1), { mayWait: true });
  }
  await store.release('filler-0');
  await store.release('filler-1');
  await store.release('filler-2');
  await store.release('filler-3');
  const leases = (await store.view())[0]!;
  expect(leases.inUse).toBe(4);
  const rows = await ledger.db.selectFrom('capacity_leases').select(['owner']).execute();
  expect(rows.filter((r) => r.owner === 'heavy')).toHaveLength(3);
  expect(rows.filter((r) => r.owner === 'light')).toHaveLength(1);
});

test("a route's member with a free slot is taken before waiting on a full one", async () => {
  const store = new SlotStore(ledger);
  await store.configure([
    { platform: 'T', account: 'default', limit: 1 },
    { platform: 'B', account: 'default', limit: null },
  ]);
  await store.take(ask('t-busy', 'k1', [on('default', 'T', 0)]), { mayWait: true });
  const routed = await store.take(ask('routed', 'k1', [on('default', 'T', 0), on('default', 'B', 1)]), { mayWait: true });
  expect(routed).toEqual({ granted: on('default', 'B', 1) });
});

test('without the ability to wait, a full account answers full and queues nothing', async () => {
  const store = new SlotStore(ledger);
  await store.configure([{ platform: 'T', account: 'default', limit: 1 }]);
  await store.take(ask('t1', 'k1', [on('default', 'T')]), { mayWait: false });
  expect(await store.take(ask('t2', 'k1', [on('default', 'T')]), { mayWait: false })).toEqual({ full: true });
  expect(await store.waitingCount()).toBe(0);
});

test("a concurrency refusal sets the account's learned limit to the jobs it runs; enough creates raise it by one", async () => {
  const store = new SlotStore(ledger, { raiseAfter: () => 3 });
  await store.configure([{ platform: 'V', account: 'a', limit: null }]);
  for (let i = 0; i < 3; i++) {
    await store.take(ask(`t${i}`, 'k1', [on('a')]), { mayWait: true });
    await store.created(`t${i}`);
  }
  // A fourth is granted (no limit yet), and the platform refuses it for concurrency: the account runs 3.
  expect('granted' in (await store.take(ask('t3', 'k1', [on('a')]), { mayWait: true }))).toBe(true);
  await store.release('t3', { overCapacity: true });
  expect((await store.view())[0]).toMatchObject({ learned: 3, limit: 3, inUse: 3 });
  expect('waiting' in (await store.take(ask('t3', 'k1', [on('a')]), { mayWait: true }))).toBe(true);
  // Three more creates without a refusal: the limit goes up by one, and the waiting task gets the new slot.
  const grants: string[] = [];
  for (let i = 0; i < 3; i++) {
    grants.push(...(await store.release(`t${i}`)).map((g) => g.taskId));
    if (i === 0) await store.created('t3');
  }
  expect(grants[0]).toBe('t3');
  for (let i = 10; i < 13; i++) {
    await store.take(ask(`t${i}`, 'k1', [on('a')]), { mayWait: true });
    await store.created(`t${i}`);
  }
  expect((await store.view())[0]!.learned).toBe(4);
});

test('a configured limit caps the learned one; configuring lower brings a learned limit down', async () => {
  const store = new SlotStore(ledger, { raiseAfter: () => 1 });
  await store.configure([{ platform: 'V', account: 'a', limit: 2 }]);
  await store.take(ask('t0', 'k1', [on('a')]), { mayWait: true });
  await store.created('t0');
  await store.take(ask('t1', 'k1', [on('a')]), { mayWait: true });
  await store.release('t1', { overCapacity: true });
  expect((await store.view())[0]).toMatchObject({ learned: 1, configured: 2 });
  await store.take(ask('t2', 'k1', [on('a')]), { mayWait: true });
  await store.release('t0');
  await store.take(ask('t2', 'k1', [on('a')]), { mayWait: true });
  await store.created('t2');
  expect((await store.view())[0]!.learned).toBe(2);
  await store.take(ask('t3', 'k1', [on('a')]), { mayWait: true });
  await store.created('t3');
  // Never above the configured 2.
  expect((await store.view())[0]!.learned).toBe(2);
});

test('a job announced ended frees its own slot for the next task; an announcement of another job frees nothing', async () => {
  const store = new SlotStore(ledger);
  await store.configure([{ platform: 'V', account: 'a', limit: 1 }]);
  await store.take(ask('t1', 'k1', [on('a')]), { mayWait: true });
  await store.created('t1', { kind: 'video', upstreamTaskId: 'job-1' });
  await store.take(ask('t2', 'k1', [on('a')]), { mayWait: true });
  // Not t1's job, not t1's platform, not t1: its slot stays.
  expect(await store.releaseEndedJob('V', 't1', 'job-0')).toEqual([]);
  expect(await store.releaseEndedJob('T', 't1', 'job-1')).toEqual([]);
  expect(await store.releaseEndedJob('V', 't2', 'job-1')).toEqual([]);
  expect((await store.view())[0]).toMatchObject({ inUse: 1, waiting: 1 });
  expect((await store.releaseEndedJob('V', 't1', 'job-1')).map((g) => g.taskId)).toEqual(['t2']);
  // Announced again, then given back by t1's own poll: t2's slot is not touched.
  expect(await store.releaseEndedJob('V', 't1', 'job-1')).toEqual([]);
  expect(await store.release('t1')).toEqual([]);
  expect((await store.view())[0]).toMatchObject({ inUse: 1, waiting: 0 });
  expect(await store.take(ask('t2', 'k1', [on('a')]), { mayWait: true })).toEqual({ granted: on('a') });
});
