/**
 * The slot store: how many jobs each platform account runs, and the tasks waiting for one, in PostgreSQL — the state
 * every worker and API replica shares (docs/architecture.md, "Capacity").
 *
 * - A task takes a slot (`take`) on the first of its candidate accounts with room, before its create. With none, it
 *   joins the queue and its workflow waits for a signal on nothing but its own deadline timer.
 * - It gives the slot back (`release`) as soon as its job can no longer be running; the freed slot goes, in the same
 *   transaction, to the waiting key with the smallest share in use (weighted), first in first out within a key
 *   (`grantFreed`). The caller signals the granted tasks after the commit (capacity/dispatcher.ts).
 * - A slot is the row of its task id: taken twice it is the same slot, given back twice it is gone once. A task that
 *   crashed anywhere finds its slot again by its id; one whose workflow closed without giving it back is found by the
 *   sweep (capacity/dispatcher.ts).
 * - An account's limit is the one configured, or the one learned from the platform's concurrency refusals (lowered
 *   to the jobs it was running when it refused, raised by one after enough jobs were created without a refusal).
 *
 * Every decision on an account runs under its row's lock (accounts locked in one order), so two workers never grant
 * the same slot twice.
 */
import type { Transaction } from 'kysely' with { 'resolution-mode': 'import' };
import type { CreatedOnSlot, SlotAnswer, SlotCandidate, SlotRelease, SlotRequest } from '../core/capacity';
import type { LedgerDatabase } from '../ledger/database';
import type { LedgerSchema } from '../ledger/schema';

/** An account's limit as configured (null: none); what the worker's configuration says at start. */
export interface ConfiguredLimit {
  platform: string;
  account: string;
  limit: number | null;
}

/** A slot granted to a waiting task: the task to signal, and how long it waited. */
export interface Grant {
  taskId: string;
  platform: string;
  account: string;
  waitedMs: number;
}

/** A slot held past its task's end, with the job that holds it. */
export interface HeldJob {
  taskId: string;
  platform: string;
  account: string;
  kind: string;
  upstreamTaskId: string;
}

/** One account's capacity as the console and the metrics show it. */
export interface AccountCapacity {
  platform: string;
  account: string;
  configured: number | null;
  learned: number | null;
  /** The limit in force: the learned one where there is one, else the configured one; null: unlimited. */
  limit: number | null;
  inUse: number;
  waiting: number;
  /** When the longest-waiting task that could take a slot here began to wait. */
  oldestWaitingSince: Date | null;
}

export interface SlotStoreOptions {
  /**
   * How many jobs must be created on an account after its learned limit last changed before it is raised by one
   * (default: max(20, 5 × the limit)). Slow on purpose: each raise above the platform's real limit costs one refusal.
   */
  raiseAfter?: (limit: number) => number;
}

type Tx = Transaction<LedgerSchema>;

const accountKey = (c: { platform: string; account: string }) => `${c.platform}/${c.account}`;
const defaultRaiseAfter = (limit: number) => Math.max(20, 5 * limit);

interface AccountRow {
  platform: string;
  account: string;
  configured_limit: number | null;
  learned_limit: number | null;
}

/** The slot a task holds, as `take` finds it. */
interface HeldLease {
  platform: string;
  account: string;
  member: number;
  state: 'granted' | 'active';
}

const limitOf = (row: AccountRow | undefined): number | null => row?.learned_limit ?? row?.configured_limit ?? null;

export class SlotStore {
  private readonly raiseAfter: (limit: number) => number;
  /** Accounts whose row this process has seen: their rows exist (lockAccounts). */
  private readonly knownAccounts = new Set<string>();

  constructor(
    private readonly ledger: LedgerDatabase,
    options: SlotStoreOptions = {},
  ) {
    this.raiseAfter = options.raiseAfter ?? defaultRaiseAfter;
  }

  /**
   * The worker's configured limits, written at its start (every worker of a fleet has the same accounts file). A
   * learned limit above a new configured one comes down to it. Returns the slots the change freed.
   */
  async configure(limits: readonly ConfiguredLimit[]): Promise<Grant[]> {
    const grants: Grant[] = [];
    for (const l of limits) {
      grants.push(
        ...(await this.ledger.db.transaction().execute(async (tx) => {
          await this.lockAccounts(tx, [l]);
          await this.sql`
            UPDATE capacity_accounts
               SET configured_limit = ${l.limit},
                   learned_limit = CASE WHEN ${l.limit}::int IS NOT NULL AND learned_limit > ${l.limit}::int THEN ${l.limit}::int ELSE learned_limit END,
                   updated_at = now()
             WHERE platform = ${l.platform} AND account = ${l.account}`.execute(tx);
          return this.grantFreed(tx, l);
        })),
      );
    }
    return grants;
  }

  /**
   * A slot for the task: the one it holds already (a retried submit, a task its grant woke), else one on the first
   * candidate with room. With none: `waiting` (the task is queued; its place is kept across calls) where the caller
   * can wait for a grant, else `full`.
   */
  async take(request: SlotRequest, opts: { mayWait: boolean }): Promise<SlotAnswer> {
    const candidates = request.candidates;
    return this.ledger.db.transaction().execute(async (tx) => {
      const accounts = await this.lockAccounts(tx, candidates);
      // Under the accounts' locks: a grant made meanwhile on one of them is seen here.
      const { held, queuedAt, inUse } = await this.takerState(tx, request.taskId, candidates);
      if (held) {
        if (held.state !== 'active')
          await tx.updateTable('capacity_leases').set({ state: 'active' }).where('task_id', '=', request.taskId).execute();
        if (queuedAt) await tx.deleteFrom('capacity_waiters').where('task_id', '=', request.taskId).execute();
        return { granted: { platform: held.platform, account: held.account, member: held.member } };
      }
      const free = candidates.find((c) => {
        const limit = limitOf(accounts.get(accountKey(c)));
        return limit === null || (inUse.get(accountKey(c)) ?? 0) < limit;
      });
      if (free) {
        await tx
          .insertInto('capacity_leases')
          .values({
            task_id: request.taskId,
            platform: free.platform,
            account: free.account,
            member: free.member,
            owner: request.owner,
            state: 'active',
            waited_since: queuedAt,
          })
          .execute();
        if (queuedAt) await tx.deleteFrom('capacity_waiters').where('task_id', '=', request.taskId).execute();
        return { granted: free };
      }
      if (!opts.mayWait) return { full: true };
      return { waiting: { since: await this.enqueue(tx, request) } };
    });
  }

  /**
   * What `take` decides on, read under the candidates' locks in one statement (one round trip of the task's submit,
   * not three): the slot the task holds, since when it is queued, and the slots in use on each candidate.
   */
  private async takerState(
    tx: Tx,
    taskId: string,
    candidates: readonly SlotCandidate[],
  ): Promise<{ held: HeldLease | undefined; queuedAt: Date | null; inUse: Map<string, number> }> {
    const wanted = uniqueAccounts(candidates).map(accountKey);
    const rows = await this.sql<{ held: HeldLease | null; queued_at: Date | null; in_use: Record<string, string | number> }>`
      SELECT
        (SELECT json_build_object('platform', platform, 'account', account, 'member', member, 'state', state)
           FROM capacity_leases WHERE task_id = ${taskId}) AS held,
        (SELECT enqueued_at FROM capacity_waiters WHERE task_id = ${taskId}) AS queued_at,
        (SELECT coalesce(json_object_agg(key, n), '{}'::json) FROM (
           SELECT platform || '/' || account AS key, count(*) AS n FROM capacity_leases
            WHERE platform || '/' || account = ANY(${wanted}::text[]) GROUP BY 1) counted) AS in_use`.execute(tx);
    const row = rows.rows[0]!;
    return {
      held: row.held ?? undefined,
      queuedAt: row.queued_at,
      inUse: new Map(Object.entries(row.in_use).map(([key, n]) => [key, Number(n)])),
    };
  }

  /** The task's place in the queue (kept, with its order, when it was queued before): since when it waits. */
  private async enqueue(tx: Tx, request: SlotRequest): Promise<number> {
    const { candidates } = request;
    const row = await tx
      .insertInto('capacity_waiters')
      .values({
        task_id: request.taskId,
        owner: request.owner,
        weight: request.weight,
        candidates: JSON.stringify(candidates),
        accounts: candidates.map(accountKey),
      })
      .onConflict((oc) =>
        oc.column('task_id').doUpdateSet((eb) => ({ candidates: eb.ref('excluded.candidates'), accounts: eb.ref('excluded.accounts') })),
      )
      .returning('enqueued_at')
      .executeTakeFirstOrThrow();
    return new Date(row.enqueued_at).getTime();
  }

  /**
   * The task's job was created on its slot: the slot counts towards the account's learned limit from now on, and an
   * account with a learned limit is raised by one after enough creates. Returns the slots a raise freed.
   */
  async created(taskId: string, job?: CreatedOnSlot): Promise<Grant[]> {
    // One statement: the lease marked created and, where the account has a learned limit, its count of creates since
    // the limit last changed (no row: the task holds no slot; a null limit: nothing learned, nothing to raise).
    const marked = await this.sql<{
      platform: string;
      account: string;
      learned_limit: number | null;
      configured_limit: number | null;
      created_since_change: number | null;
    }>`
      WITH lease AS (
        UPDATE capacity_leases
           SET state = 'active', created = true,
               kind = coalesce(${job?.kind ?? null}::text, kind),
               upstream_task_id = coalesce(${job?.upstreamTaskId ?? null}::text, upstream_task_id)
         WHERE task_id = ${taskId}
         RETURNING platform, account
      ), counted AS (
        UPDATE capacity_accounts a SET created_since_change = a.created_since_change + 1
          FROM lease WHERE a.platform = lease.platform AND a.account = lease.account AND a.learned_limit IS NOT NULL
         RETURNING a.learned_limit, a.configured_limit, a.created_since_change
      )
      SELECT lease.platform, lease.account, counted.learned_limit, counted.configured_limit, counted.created_since_change
        FROM lease LEFT JOIN counted ON true`.execute(this.ledger.db);
    const row = marked.rows[0];
    if (!row || row.learned_limit === null || row.created_since_change === null) return [];
    const learned = row.learned_limit;
    if (row.created_since_change < this.raiseAfter(learned)) return [];
    if (row.configured_limit !== null && learned >= row.configured_limit) return [];
    const lease = { platform: row.platform, account: row.account };
    return this.ledger.db.transaction().execute(async (tx) => {
      await this.lockAccounts(tx, [lease]);
      await this.sql`
        UPDATE capacity_accounts
           SET learned_limit = learned_limit + 1, created_since_change = 0, learned_at = now(), updated_at = now()
         WHERE platform = ${lease.platform} AND account = ${lease.account}
           AND learned_limit = ${learned} AND created_since_change >= ${this.raiseAfter(learned)}`.execute(tx);
      return this.grantFreed(tx, lease);
    });
  }

  /**
   * The task gives its slot back (and leaves the queue, if it was waiting): the slot goes to the next waiting task at
   * once. `overCapacity`: the platform refused for the account's concurrency, so its limit is learned as the jobs it
   * was running. Safe to call again: a slot already given back is not given twice.
   */
  async release(taskId: string, why: SlotRelease = {}): Promise<Grant[]> {
    if (why.jobRunsOn) {
      // Held until the platform says the job has ended (jobsRunningOn, the sweep); a slot without a known job is freed.
      const kept = await this.ledger.db
        .updateTable('capacity_leases')
        .set({ task_ended: true, checked_at: new Date() })
        .where('task_id', '=', taskId)
        .where('upstream_task_id', 'is not', null)
        .returning('task_id')
        .executeTakeFirst();
      if (kept) return [];
    }
    return this.ledger.db.transaction().execute(async (tx) => {
      const lease = await this.dropLease(tx, taskId, undefined, { leaveQueue: true });
      if (!lease) return [];
      if (why.overCapacity) await this.learnFromRefusal(tx, lease);
      return this.grantFreed(tx, lease);
    });
  }

  /**
   * The platform announced that `upstreamTaskId`, the job of `taskId` on `platform`, has ended: its slot goes to the next
   * waiting task now, before the task has polled. Only the slot held by that very job is given back — a task that has
   * since made another job keeps that one's — so a late or repeated announcement frees nothing else.
   */
  async releaseEndedJob(platform: string, taskId: string, upstreamTaskId: string): Promise<Grant[]> {
    return this.ledger.db.transaction().execute(async (tx) => {
      const lease = await this.dropLease(tx, taskId, { platform, upstreamTaskId });
      return lease ? this.grantFreed(tx, lease) : [];
    });
  }

  /**
   * Deletes the task's lease (only the one held by `job`, when given) under its account's lock, and with `leaveQueue`
   * its place in the queue; returns the lease's account, or undefined when there was none (already given back: given
   * back twice, it is gone once).
   */
  private async dropLease(
    tx: Tx,
    taskId: string,
    job?: { platform: string; upstreamTaskId: string },
    opts: { leaveQueue?: boolean } = {},
  ): Promise<{ platform: string; account: string } | undefined> {
    // Leaving the queue rides on the lease's lookup: a data-modifying WITH runs whether or not the SELECT reads it.
    const found = await this.sql<{ platform: string; account: string }>`
      WITH left_queue AS (
        DELETE FROM capacity_waiters WHERE ${opts.leaveQueue === true} AND task_id = ${taskId}
      )
      SELECT platform, account FROM capacity_leases
       WHERE task_id = ${taskId}
         AND (${job === undefined} OR (platform = ${job?.platform ?? null}::text AND upstream_task_id = ${job?.upstreamTaskId ?? null}::text))`.execute(
      tx,
    );
    const lease = found.rows[0];
    if (!lease) return undefined;
    await this.lockAccounts(tx, [lease]);
    const gone = await tx
      .deleteFrom('capacity_leases')
      .where('task_id', '=', taskId)
      .$if(job !== undefined, (q) => q.where('upstream_task_id', '=', job!.upstreamTaskId))
      .returning('task_id')
      .executeTakeFirst();
    return gone ? lease : undefined;
  }

  /** Slots granted a while ago whose task has not come for them (its signal may have been lost): signalled again. */
  async unclaimedGrants(olderThanMs: number, limit = 200): Promise<string[]> {
    const rows = await this.sql<{ task_id: string }>`
      UPDATE capacity_leases SET granted_at = now()
       WHERE task_id IN (
         SELECT task_id FROM capacity_leases
          WHERE state = 'granted' AND granted_at < now() - make_interval(secs => ${olderThanMs / 1000})
          ORDER BY granted_at LIMIT ${limit})
       RETURNING task_id`.execute(this.ledger.db);
    return rows.rows.map((r) => r.task_id);
  }

  /**
   * The tasks holding a slot or waiting that no sweep has seen open for `olderThanMs`: the sweep asks Temporal whether
   * each is still open (a task terminated by an operator never gives its slot back itself). Marked as checked now.
   */
  async dueForCheck(olderThanMs: number, limit = 200): Promise<string[]> {
    const secs = olderThanMs / 1000;
    const leases = await this.sql<{ task_id: string }>`
      UPDATE capacity_leases SET checked_at = now()
       WHERE task_id IN (
         SELECT task_id FROM capacity_leases
          WHERE NOT task_ended AND coalesce(checked_at, granted_at) < now() - make_interval(secs => ${secs})
          ORDER BY coalesce(checked_at, granted_at) LIMIT ${limit})
       RETURNING task_id`.execute(this.ledger.db);
    const waiters = await this.sql<{ task_id: string }>`
      UPDATE capacity_waiters SET checked_at = now()
       WHERE task_id IN (
         SELECT task_id FROM capacity_waiters
          WHERE coalesce(checked_at, enqueued_at) < now() - make_interval(secs => ${secs})
          ORDER BY coalesce(checked_at, enqueued_at) LIMIT ${limit})
       RETURNING task_id`.execute(this.ledger.db);
    return [...leases.rows, ...waiters.rows].map((r) => r.task_id);
  }

  /** Slots held past their task's end for a job that ran on, not looked at for `olderThanMs`: marked as looked at now. */
  async heldPastTheirTask(olderThanMs: number, limit = 200): Promise<HeldJob[]> {
    const rows = await this.sql<HeldJob & { task_id: string; upstream_task_id: string }>`
      UPDATE capacity_leases SET checked_at = now()
       WHERE task_id IN (
         SELECT task_id FROM capacity_leases
          WHERE task_ended AND coalesce(checked_at, granted_at) < now() - make_interval(secs => ${olderThanMs / 1000})
          ORDER BY coalesce(checked_at, granted_at) LIMIT ${limit})
       RETURNING task_id AS "taskId", platform, account, kind, upstream_task_id AS "upstreamTaskId"`.execute(this.ledger.db);
    return rows.rows.map((r) => ({
      taskId: r.taskId,
      platform: r.platform,
      account: r.account,
      kind: r.kind,
      upstreamTaskId: r.upstreamTaskId,
    }));
  }

  /** Every account with room and a queue gets its slots granted (after a crash between a release and its grants). */
  async grantAll(): Promise<Grant[]> {
    const accounts = await this.ledger.db.selectFrom('capacity_accounts').select(['platform', 'account']).execute();
    const grants: Grant[] = [];
    for (const a of accounts)
      grants.push(
        ...(await this.ledger.db.transaction().execute(async (tx) => {
          await this.lockAccounts(tx, [a]);
          return this.grantFreed(tx, a);
        })),
      );
    return grants;
  }

  /** Every known account's limits, slots in use and queue (the console's Accounts page, the metrics). */
  async view(): Promise<AccountCapacity[]> {
    const rows = await this.sql<{
      platform: string;
      account: string;
      configured_limit: number | null;
      learned_limit: number | null;
      in_use: string;
      waiting: string;
      oldest: Date | null;
    }>`
      SELECT a.platform, a.account, a.configured_limit, a.learned_limit,
             (SELECT count(*) FROM capacity_leases l WHERE l.platform = a.platform AND l.account = a.account) AS in_use,
             (SELECT count(*) FROM capacity_waiters w WHERE w.accounts @> ARRAY[a.platform || '/' || a.account]) AS waiting,
             (SELECT min(w.enqueued_at) FROM capacity_waiters w WHERE w.accounts @> ARRAY[a.platform || '/' || a.account]) AS oldest
        FROM capacity_accounts a ORDER BY a.platform, a.account`.execute(this.ledger.db);
    return rows.rows.map((r) => ({
      platform: r.platform,
      account: r.account,
      configured: r.configured_limit,
      learned: r.learned_limit,
      limit: limitOf(r),
      inUse: Number(r.in_use),
      waiting: Number(r.waiting),
      oldestWaitingSince: r.oldest ? new Date(r.oldest) : null,
    }));
  }

  /** Tasks waiting now, every platform. */
  async waitingCount(): Promise<number> {
    const row = await this.ledger.db
      .selectFrom('capacity_waiters')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Tasks waiting, per key. */
  async waitingByOwner(): Promise<{ owner: string; waiting: number }[]> {
    const rows = await this.ledger.db
      .selectFrom('capacity_waiters')
      .select((eb) => ['owner', eb.fn.countAll<string>().as('n')])
      .groupBy('owner')
      .execute();
    return rows.map((r) => ({ owner: r.owner, waiting: Number(r.n) }));
  }

  private get sql() {
    return this.ledger.k.sql;
  }

  private async ensureAccounts(tx: Tx, accounts: readonly { platform: string; account: string }[]): Promise<void> {
    const rows = uniqueAccounts(accounts);
    if (rows.length === 0) return;
    await tx
      .insertInto('capacity_accounts')
      .values(rows.map((a) => ({ platform: a.platform, account: a.account })))
      .onConflict((oc) => oc.columns(['platform', 'account']).doNothing())
      .execute();
  }

  /**
   * Locks the accounts' rows, always in the same order (no deadlock between two tasks' overlapping candidates). An
   * account this process has not seen yet is written first, before any lock is taken: two tasks' first takes on a new
   * account then wait on each other's insert only while neither holds a lock. Rows are never deleted, so that costs
   * one statement more once per account and process, not per task; a row found missing all the same (its insert
   * rolled back) is written again.
   */
  private async lockAccounts(tx: Tx, accounts: readonly { platform: string; account: string }[]): Promise<Map<string, AccountRow>> {
    const wanted = uniqueAccounts(accounts);
    if (wanted.some((a) => !this.knownAccounts.has(accountKey(a)))) await this.ensureAccounts(tx, wanted);
    let locked = await this.lockRows(tx, wanted);
    if (locked.size < wanted.length) {
      await this.ensureAccounts(tx, wanted);
      locked = await this.lockRows(tx, wanted);
    }
    for (const key of locked.keys()) this.knownAccounts.add(key);
    return locked;
  }

  private async lockRows(tx: Tx, accounts: readonly { platform: string; account: string }[]): Promise<Map<string, AccountRow>> {
    const rows = await this.sql<AccountRow>`
      SELECT platform, account, configured_limit, learned_limit FROM capacity_accounts
       WHERE platform || '/' || account = ANY(${accounts.map(accountKey)}::text[])
       ORDER BY platform, account FOR UPDATE`.execute(tx);
    return new Map(rows.rows.map((r) => [accountKey(r), r]));
  }

  /**
   * The platform refused for concurrency: the account runs as many jobs at once as it had created and still running
   * then (at least one), never more than its configured limit. The count restarts for the next raise.
   */
  private async learnFromRefusal(tx: Tx, a: { platform: string; account: string }): Promise<void> {
    await this.sql`
      UPDATE capacity_accounts
         SET learned_limit = GREATEST(1, LEAST(
               coalesce(configured_limit, 2147483647),
               (SELECT count(*) FROM capacity_leases l WHERE l.platform = ${a.platform} AND l.account = ${a.account} AND l.created)::int)),
             created_since_change = 0, learned_at = now(), updated_at = now()
       WHERE platform = ${a.platform} AND account = ${a.account}`.execute(tx);
  }

  /**
   * Grants the account's free slots to the waiting tasks that can use it, one at a time, each to the head of the queue
   * of the key with the smallest share of the platform's slots in use for its weight (the oldest head on a tie).
   * Runs under the account's lock.
   */
  private async grantFreed(tx: Tx, a: { platform: string; account: string }): Promise<Grant[]> {
    const key = accountKey(a);
    const grants: Grant[] = [];
    let contended = 0;
    for (let i = 0; i < 1_000; i++) {
      // The account's room and whether anybody waits for it, in one statement: a release with nobody waiting (the
      // usual one) ends here.
      const state = await this.sql<{ limit: number | null; in_use: string; waiting: boolean }>`
        SELECT coalesce(learned_limit, configured_limit) AS limit,
               (SELECT count(*) FROM capacity_leases l WHERE l.platform = ${a.platform} AND l.account = ${a.account}) AS in_use,
               EXISTS (SELECT 1 FROM capacity_waiters w WHERE w.accounts @> ARRAY[${key}]::text[]) AS waiting
          FROM capacity_accounts WHERE platform = ${a.platform} AND account = ${a.account}`.execute(tx);
      const row = state.rows[0];
      if (!row || !row.waiting || (row.limit !== null && Number(row.in_use) >= row.limit)) break;
      const next = await this.sql<{ task_id: string; owner: string; candidates: SlotCandidate[] | string; enqueued_at: Date }>`
        WITH used AS (
          SELECT owner, count(*) AS n FROM capacity_leases WHERE platform = ${a.platform} GROUP BY owner
        ), heads AS (
          SELECT DISTINCT ON (owner) task_id, owner, weight, seq FROM capacity_waiters
           WHERE accounts @> ARRAY[${key}]::text[] ORDER BY owner, seq
        ), chosen AS (
          SELECT h.task_id FROM heads h LEFT JOIN used u USING (owner)
           ORDER BY coalesce(u.n, 0) / h.weight, h.seq LIMIT 1
        )
        DELETE FROM capacity_waiters w USING chosen c WHERE w.task_id = c.task_id
        RETURNING w.task_id, w.owner, w.candidates, w.enqueued_at`.execute(tx);
      const waiter = next.rows[0];
      if (!waiter) {
        // The chosen waiter was granted a slot on another account meanwhile (its row was gone once our delete could
        // lock it): choose again while waiters remain (the next turn's first statement), a few times at most.
        if (++contended > 5) break;
        continue;
      }
      const candidates = (typeof waiter.candidates === 'string' ? JSON.parse(waiter.candidates) : waiter.candidates) as SlotCandidate[];
      const member = candidates.find((c) => accountKey(c) === key)?.member ?? 0;
      await tx
        .insertInto('capacity_leases')
        .values({
          task_id: waiter.task_id,
          platform: a.platform,
          account: a.account,
          member,
          owner: waiter.owner,
          state: 'granted',
          waited_since: waiter.enqueued_at,
        })
        .onConflict((oc) => oc.column('task_id').doNothing())
        .execute();
      grants.push({
        taskId: waiter.task_id,
        platform: a.platform,
        account: a.account,
        waitedMs: Math.max(0, Date.now() - new Date(waiter.enqueued_at).getTime()),
      });
    }
    return grants;
  }
}

function uniqueAccounts<T extends { platform: string; account: string }>(accounts: readonly T[]): { platform: string; account: string }[] {
  const seen = new Map<string, { platform: string; account: string }>();
  for (const a of accounts) seen.set(accountKey(a), { platform: a.platform, account: a.account });
  return [...seen.values()].sort((x, y) => accountKey(x).localeCompare(accountKey(y)));
}
