/**
 * The ledger against the platforms' own records, one platform account's UTC day at a time (docs/guides/operate.md
 * "Reconciliation"). Our side is what Temporal's visibility says each task's job was (`GenerationUpstreamTaskId`
 * on `UpstreamAccount`) and what the ledger says it billed and used; the platform's side is its record
 * (PlatformAdapter.records: V's task list), or its day totals where it keeps none job by job (PlatformAdapter.dayTotals:
 * T's AIGC usage statistics, B's resource bill; tasks/reconciliation-totals.ts). Four kinds of difference:
 * - `orphan`: a job the platform ran that no task of ours owns (an outage's lost answer, a manual console run, a
 *   second gateway on the same account), with its id, time, model and usage;
 * - `missing`: a task we billed whose job the platform has no record of;
 * - `usage`: a job both sides know whose usage (tokens, seconds, images) or billing differs;
 * - `total`: a day total that differs beyond the stated tolerance (TOTAL_TOLERANCE; platforms that only give day
 *   totals, whose reports say in their note that no job can be named).
 * A platform whose record the gateway cannot read gets a report `not_available` that says why, never a guess.
 *
 * The report is computed whole, then written in one transaction; the day's report is written once (ledger/
 * reconciliations.ts), so a second run and a retried activity add nothing. Requests to the platform are paced at
 * its billing API's documented rate (RECORDS_RATE_PER_SECOND), per run.
 */
import { WorkflowIdReusePolicy, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import {
  RECONCILIATION_SCHEDULE_ID,
  RECONCILIATION_WORKFLOW_TYPE,
  type ReconcileDayInput,
  type ReconcileDayOutcome,
  type ReconcileTarget,
  type Reconciliation,
  type ReconciliationInput,
} from '../core/reconciliation';
import { SA } from '../core/search-attributes';
import { WORKFLOW_TYPE } from '../core/task';
import type { LedgerDatabase } from '../ledger/database';
import { ledgerEntriesOf, reportExists, reportId, writeReport, type Difference } from '../ledger/reconciliations';
import type { PlatformAdapter, PlatformDayTotals, PlatformJobRecord, PlatformRecords } from '../platforms/platform';
import { compareTotals, ledgerTotals, TOTALS_LIMITATION } from './reconciliation-totals';

/**
 * Requests a second to each platform's records: the billing APIs' documented limits (Volcengine's 5, Tencent
 * Cloud's 5 — its DescribeAigcUsageData page states 20, the lower figure is kept —, Baidu AI Cloud's 20;
 * docs/platforms/<x>.md "Reconciliation"), kept for every call reconciliation makes.
 */
export const RECORDS_RATE_PER_SECOND: Readonly<Record<string, number>> = { V: 5, T: 5, B: 20 };

const DAY_MS = 86_400_000;
/** Task ids and upstream ids are safe to put in a visibility query only when they are plain. */
const PLAIN_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/** `pace()` before every request: at most `perSecond` of them a second. */
export function pacer(
  perSecond: number,
  sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)),
  clock: () => number = Date.now,
): () => Promise<void> {
  const gap = 1000 / perSecond;
  let next = 0;
  return async () => {
    const now = clock();
    const at = Math.max(now, next);
    next = at + gap;
    if (at > now) await sleep(at - now);
  };
}

/** Before each request to a platform's records: a heartbeat, then the wait its billing API's rate asks. */
function pacedRequests(platform: string, heartbeat: () => void): () => Promise<void> {
  const pace = pacer(RECORDS_RATE_PER_SECOND[platform] ?? 5);
  return async () => {
    heartbeat();
    await pace();
  };
}

export interface ReconcilerDeps {
  ledger: LedgerDatabase;
  client: Client;
  /** Each platform's accounts and their adapters (one `default` account where no accounts file is given). */
  accounts: Readonly<Record<string, readonly { id: string; adapter: PlatformAdapter }[]>>;
  /** Called with each report written (metrics). */
  onReport?: (r: { platform: string; account: string; day: string; differences: Difference[] }) => void;
}

interface OurTask {
  taskId: string;
  upstreamTaskId: string;
  startedAt: number;
}

export class Reconciler implements Reconciliation {
  constructor(private readonly deps: ReconcilerDeps) {}

  targets(platform?: string, account?: string): ReconcileTarget[] {
    return Object.entries(this.deps.accounts)
      .filter(([p]) => platform === undefined || p === platform)
      .sort(([a], [b]) => a.localeCompare(b))
      .flatMap(([p, accounts]) =>
        accounts.filter((a) => account === undefined || a.id === account).map((a) => ({ platform: p, account: a.id })),
      );
  }

  async run(input: ReconcileDayInput, heartbeat: () => void): Promise<ReconcileDayOutcome> {
    const { platform, account, day } = input;
    const id = reportId(platform, account, day);
    if (await reportExists(this.deps.ledger, platform, account, day)) return { reportId: id, written: false, status: 'complete' };
    const adapter = this.deps.accounts[platform]?.find((a) => a.id === account)?.adapter;
    if (!adapter) throw new Error(`no account ${account} of platform ${platform} on this worker`);
    if (adapter.records) return this.runRecords(input, adapter, adapter.records, heartbeat);
    if (adapter.dayTotals) return this.runTotals(input, adapter.dayTotals, heartbeat);
    const written = await writeReport(this.deps.ledger, {
      platform,
      account,
      day,
      status: 'not_available',
      source: 'none',
      // V lists its tasks, T and B give day totals: only a platform added without either comes here.
      note: `platform ${platform} offers no record the gateway reads: not available`,
      platformJobs: 0,
      ledgerTasks: 0,
      differences: [],
    });
    return { reportId: id, written, status: 'not_available' };
  }

  /** The platform's record job by job (V's task list): orphans, missing tasks and usage differences. */
  private async runRecords(
    input: ReconcileDayInput,
    adapter: PlatformAdapter,
    source: PlatformRecords,
    heartbeat: () => void,
  ): Promise<ReconcileDayOutcome> {
    const { platform, account, day } = input;
    const id = reportId(platform, account, day);
    const paced = pacedRequests(platform, heartbeat);
    const from = Date.parse(`${day}T00:00:00Z`);
    const records = await source.jobs(from, from + DAY_MS, paced);
    const { differences, ledgerTasks } = await this.compare(input, records, adapter, paced);
    const written = await writeReport(this.deps.ledger, {
      platform,
      account,
      day,
      status: 'complete',
      source: `${platform} task list`,
      platformJobs: records.length,
      ledgerTasks,
      differences,
    });
    if (written) this.deps.onReport?.({ platform, account, day, differences });
    return { reportId: id, written, status: 'complete' };
  }

  /**
   * The platform's day totals (T's AIGC usage, B's bill) against the ledger's totals of the account's tasks started
   * that UTC day and billed: a `total` difference per quantity beyond TOTAL_TOLERANCE (tasks/reconciliation-totals.ts).
   */
  private async runTotals(input: ReconcileDayInput, source: PlatformDayTotals, heartbeat: () => void): Promise<ReconcileDayOutcome> {
    const { platform, account, day } = input;
    const from = Date.parse(`${day}T00:00:00Z`);
    const theirs = await source.day(from, pacedRequests(platform, heartbeat));
    const ofTheDay = await this.ourTasks(platform, account, from, from + DAY_MS);
    const entries = await ledgerEntriesOf(
      this.deps.ledger,
      ofTheDay.map((t) => t.taskId),
    );
    const settled = [...entries.values()].filter((e) => e.state !== 'reserved' && billed(e));
    const currency = theirs.find((t) => t.quantity === 'money')?.currency;
    const { differences, skipped } = compareTotals(day, source.quantities, theirs, ledgerTotals(settled, currency));
    const still = [...entries.values()].filter((e) => e.state === 'reserved').length;
    const written = await writeReport(this.deps.ledger, {
      platform,
      account,
      day,
      status: 'complete',
      source: source.source,
      note: [TOTALS_LIMITATION, ...skipped, ...(still > 0 ? [`${still} task(s) of the day still ran: not counted`] : [])].join('; '),
      platformJobs: theirs.reduce((n, t) => n + (t.count ?? 0), 0),
      ledgerTasks: ofTheDay.length,
      differences,
    });
    if (written) this.deps.onReport?.({ platform, account, day, differences });
    return { reportId: reportId(platform, account, day), written, status: 'complete' };
  }

  private async compare(
    { platform, account, day }: ReconcileDayInput,
    records: PlatformJobRecord[],
    adapter: PlatformAdapter,
    pace: () => Promise<void>,
  ): Promise<{ differences: Difference[]; ledgerTasks: number }> {
    const from = Date.parse(`${day}T00:00:00Z`);
    // Tasks started the day before or after may own a job created this day (a submit across midnight, a retry).
    const ours = await this.ourTasks(platform, account, from - DAY_MS, from + 2 * DAY_MS);
    const byUpstream = new Map(ours.map((t) => [t.upstreamTaskId, t]));
    const ofTheDay = ours.filter((t) => t.startedAt >= from && t.startedAt < from + DAY_MS);
    const entries = await ledgerEntriesOf(this.deps.ledger, [
      ...new Set([...ofTheDay.map((t) => t.taskId), ...records.flatMap((r) => byUpstream.get(r.upstreamTaskId)?.taskId ?? [])]),
    ]);
    const differences: Difference[] = [];
    for (const job of records) {
      const mine = byUpstream.get(job.upstreamTaskId) ?? (await this.ownerOf(job.upstreamTaskId));
      if (!mine) differences.push(orphan(job));
      else differences.push(...compared(entries.get(mine.taskId), mine, job));
    }
    const listed = new Set(records.map((r) => r.upstreamTaskId));
    for (const task of ofTheDay) {
      const entry = entries.get(task.taskId);
      if (!entry || entry.state === 'reserved' || !billed(entry) || listed.has(task.upstreamTaskId)) continue;
      // Not in the day's list: created across midnight, or gone. Asked by id before it is called missing.
      const job = await adapter.records!.job(task.upstreamTaskId, pace);
      differences.push(...(job ? compared(entry, task, job) : [missing(entry, task)]));
    }
    return { differences, ledgerTasks: ofTheDay.length };
  }

  /** Our tasks of the platform account started in [from, to), with the job each made (Temporal's visibility). */
  private async ourTasks(platform: string, account: string, from: number, to: number): Promise<OurTask[]> {
    const query = [
      `WorkflowType = '${WORKFLOW_TYPE}'`,
      `GenerationPlatform = '${platform}'`,
      `UpstreamAccount = '${account}'`,
      `StartTime >= '${new Date(from).toISOString()}'`,
      `StartTime < '${new Date(to).toISOString()}'`,
    ].join(' AND ');
    const out: OurTask[] = [];
    for await (const info of this.deps.client.workflow.list({ query, pageSize: 1000 })) {
      const upstreamTaskId = info.typedSearchAttributes.get(SA.upstreamTaskId);
      if (upstreamTaskId) out.push({ taskId: info.workflowId, upstreamTaskId, startedAt: info.startTime.getTime() });
    }
    return out;
  }

  /** The task that owns a job outside the window the day's tasks were read in, if any. */
  private async ownerOf(upstreamTaskId: string): Promise<OurTask | undefined> {
    if (!PLAIN_ID.test(upstreamTaskId)) return undefined;
    const query = `WorkflowType = '${WORKFLOW_TYPE}' AND GenerationUpstreamTaskId = '${upstreamTaskId}'`;
    for await (const info of this.deps.client.workflow.list({ query, pageSize: 1 })) {
      return { taskId: info.workflowId, upstreamTaskId, startedAt: info.startTime.getTime() };
    }
    return undefined;
  }
}

type Entry = Awaited<ReturnType<typeof ledgerEntriesOf>> extends Map<string, infer E> ? E : never;

/** Whether the ledger billed the task: it succeeded, or ended with a cost (a job that could not be stopped). */
function billed(entry: Entry): boolean {
  return entry.outcome === 'success' || entry.finalMicros > 0;
}

/** What differs between the ledger's figures and the platform's for one job, or undefined when they agree. */
function usageDifference(entry: Entry, job: PlatformJobRecord): Record<string, unknown> | undefined {
  const ours = billed(entry);
  if (ours !== job.billed) return { billed: { ledger: ours, platform: job.billed }, platform_status: job.status };
  if (!ours) return undefined;
  const diff: Record<string, unknown> = {};
  if (job.usage.tokens !== undefined && entry.tokens !== null && entry.tokens !== job.usage.tokens)
    diff.tokens = { ledger: entry.tokens, platform: job.usage.tokens };
  if (job.usage.seconds !== undefined && entry.seconds !== null && entry.seconds !== job.usage.seconds)
    diff.seconds = { ledger: entry.seconds, platform: job.usage.seconds };
  if (job.usage.images !== undefined && entry.images !== null && entry.images !== job.usage.images)
    diff.images = { ledger: entry.images, platform: job.usage.images };
  return Object.keys(diff).length > 0 ? diff : undefined;
}

/** A job no task of ours owns, with what the platform says of it. */
function orphan(job: PlatformJobRecord): Difference {
  return {
    kind: 'orphan',
    upstreamTaskId: job.upstreamTaskId,
    at: job.createdAt,
    ...(job.model ? { model: job.model } : {}),
    details: { status: job.status, billed: job.billed, usage: job.usage },
  };
}

/** A job both sides know: a usage difference, or none (also none while the task still runs on our side). */
function compared(entry: Entry | undefined, task: OurTask, job: PlatformJobRecord): Difference[] {
  if (!entry || entry.state === 'reserved') return [];
  const usage = usageDifference(entry, job);
  return usage
    ? [{ kind: 'usage', upstreamTaskId: job.upstreamTaskId, taskId: task.taskId, model: entry.model, at: job.createdAt, details: usage }]
    : [];
}

/** A task we billed whose job the platform has no record of. */
function missing(entry: Entry, task: OurTask): Difference {
  return {
    kind: 'missing',
    upstreamTaskId: task.upstreamTaskId,
    taskId: task.taskId,
    model: entry.model,
    at: task.startedAt,
    details: { ledger: { outcome: entry.outcome, tokens: entry.tokens, seconds: entry.seconds, images: entry.images } },
  };
}

/**
 * Daily at 04:30 UTC (± 15 min): the previous UTC day, once the platforms' records of it are complete (B's bill is
 * a day behind; V and T list at once). A run missed while Temporal was down is caught up within a day.
 */
export async function ensureReconciliationSchedule(client: Client, taskQueue: string): Promise<'created' | 'updated'> {
  const desired = {
    spec: { calendars: [{ hour: 4, minute: 30, comment: 'daily reconciliation of the previous UTC day' }], jitter: '15 minutes' },
    action: {
      type: 'startWorkflow' as const,
      workflowType: RECONCILIATION_WORKFLOW_TYPE,
      workflowId: RECONCILIATION_SCHEDULE_ID,
      taskQueue,
      args: [{} satisfies ReconciliationInput],
      workflowExecutionTimeout: '12 hours',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
  };
  try {
    await client.schedule.create({
      scheduleId: RECONCILIATION_SCHEDULE_ID,
      ...desired,
      state: { note: 'Managed by the mediagate worker' },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await client.schedule.getHandle(RECONCILIATION_SCHEDULE_ID).update((prev) => ({ ...prev, ...desired }));
  return 'updated';
}

/**
 * A run on demand (the admin API, the console): one workflow per day (and platform) at a time; asking again while it
 * runs answers the same run, and once it ended starts a new one, which writes only the reports still missing.
 */
export async function startReconciliation(
  client: Client,
  taskQueue: string,
  input: { day: string; platform?: string; account?: string },
): Promise<string> {
  const workflowId = [RECONCILIATION_SCHEDULE_ID, input.day, input.platform, input.account].filter(Boolean).join('-');
  const args: ReconciliationInput = {
    day: input.day,
    ...(input.platform ? { only: { platform: input.platform, ...(input.account ? { account: input.account } : {}) } } : {}),
  };
  try {
    await client.workflow.start(RECONCILIATION_WORKFLOW_TYPE, {
      workflowId,
      taskQueue,
      args: [args],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      workflowExecutionTimeout: '12 hours',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return workflowId;
}
