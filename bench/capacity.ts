/**
 * Part `capacity`: the gateway in front of capped platform accounts. Two accounts of platform V (the simulator's
 * `sim-v-key-a` and `sim-v-key-b`), each limited to 10 jobs at once in the simulator (SIM_V_MAX_CONCURRENT, enforced
 * as Ark does: 429 InflightBatchsizeExceeded, sim/capacity.ts); a burst of `--tasks` (2,000) async tasks from one
 * key, and `--second` (20) from a second key once half the first key's were accepted; every job takes `--job-ms`
 * (8,000) upstream.
 *
 * Two runs (`--runs configured,learned`), each on a fresh stack whose lane worker reads PLATFORM_V_ACCOUNTS_FILE
 * with the two accounts: "configured" gives each entry `"max_concurrent": 10`, "learned" leaves it out, so the
 * gateway has only the platform's answers to go by. Push is on (PUBLIC_BASE_URL, CALLBACK_SECRET: Ark calls back on
 * every status change) and polling is production's (first read at 3 s, then every 5 s).
 *
 * Figures per run: tasks succeeded / failed / still open at the bound; refused creates (the simulator's count, and
 * as a % of tasks); each account's peak of jobs at once; slot utilisation while the backlog waits (each account's job
 * time, from the simulator's intervals, over limit × the span from the first create to the creation of the first
 * key's last job); the second key's wait from its task's accept to its job's create (p50, p99, as a multiple of one
 * job's duration); and every 5 s during the run the lane worker's and API's RSS and the Temporal server's CPU, so
 * "flat" can be judged.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { freePort, TEST_KEYS, type Proc } from '../test/support/stack';
import { temporalClient } from '../test/support/temporal';
import { cpuBetween, cpuSnapshot, type CpuSnapshot } from './cpu';
import { benchStack, percentile, pool, round, rssMiB, sleep, VIDEO_MODEL } from './support';

export type CapacityRunName = 'configured' | 'learned';

export interface CapacityOptions {
  runs: CapacityRunName[];
  tasks: number;
  second: number;
  jobMs: number;
}

export const CAPACITY_DEFAULTS: CapacityOptions = { runs: ['configured', 'learned'], tasks: 2_000, second: 20, jobMs: 8_000 };

/** The simulated accounts and their limit (the workload: two accounts of one platform, 10 each). */
const ACCOUNTS = [
  { id: 'a', key: 'sim-v-key-a' },
  { id: 'b', key: 'sim-v-key-b' },
] as const;
const LIMIT = 10;
const SUBMITTERS = 16;
const SAMPLE_MS = 5_000;
const CALLBACK_SECRET = 'bench-capacity-callback-secret-0123456789';

export interface CapacityRow {
  run: CapacityRunName;
  tasks: number;
  succeeded: number;
  failed: number;
  open: number;
  refusedCreates: number;
  refusedPctOfTasks: number;
  peakA: number;
  peakB: number;
  utilisationA: number;
  utilisationB: number;
  secondWaitP50ms: number;
  secondWaitP99ms: number;
  secondWaitP99xJob: number;
  secondNeverCreated: number;
  seconds: number;
  error?: string;
}

export interface CapacitySample {
  t_s: number;
  workerRssMiB: number;
  apiRssMiB: number;
  temporalCpuPct: number;
  openTasks: number;
}

/** One accepted task: its id, which key, when the gateway accepted it (epoch ms), and its prompt (to find its job). */
interface Accepted {
  id: string;
  key: 'first' | 'second';
  acceptedAt: number;
  prompt: string;
}

function accountsFile(simUrl: string, configured: boolean): string {
  const file = join(mkdtempSync(join(tmpdir(), 'bench-capacity-')), 'v-accounts.json');
  const entries = ACCOUNTS.map((a) => ({
    id: a.id,
    api_key: a.key,
    base_url: `${simUrl}/api/v3`,
    ...(configured ? { max_concurrent: LIMIT } : {}),
  }));
  writeFileSync(file, JSON.stringify(entries, null, 2));
  return file;
}

/** A stack with the simulator's V accounts limited, and a lane (worker + API, push on) reading the accounts file. */
async function capacityStack(run: CapacityRunName, jobMs: number) {
  const stack = await benchStack(`capacity-${run}`, {
    simJobDurationMs: jobMs,
    env: { SIM_V_MAX_CONCURRENT: String(LIMIT), POLL_FIRST_DELAY_MS: '3000', POLL_INTERVAL_VIDEO_MS: '5000', CALLBACK_SECRET },
  });
  try {
    const port = await freePort();
    const env = {
      TEMPORAL_TASK_QUEUE: `${stack.taskQueue}-capacity`,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      CALLBACK_SECRET,
      PLATFORM_V_ACCOUNTS_FILE: accountsFile(stack.simUrl, run === 'configured'),
    };
    const worker = await stack.startWorker(env);
    const api = await stack.startApi(port, env);
    return { stack, worker, api, apiUrl: `http://127.0.0.1:${port}`, queue: env.TEMPORAL_TASK_QUEUE };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

async function submit(apiUrl: string, secret: string, prompt: string): Promise<string> {
  const r = await fetch(`${apiUrl}/v1/async/videos/generations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: VIDEO_MODEL, prompt, duration: 5 }),
  });
  const body = (await r.json()) as { task_id?: string };
  if (r.status !== 200 || !body.task_id) throw new Error(`submit failed: ${r.status} ${JSON.stringify(body)}`);
  return body.task_id;
}

/** The burst: the first key's tasks from SUBMITTERS clients; the second key's start once half the first's are in. */
async function burst(apiUrl: string, run: CapacityRunName, opts: CapacityOptions): Promise<Accepted[]> {
  const accepted: Accepted[] = [];
  let firstIn = 0;
  let releaseSecond!: () => void;
  const halfway = new Promise<void>((resolve) => (releaseSecond = resolve));
  const one = async (key: Accepted['key'], i: number) => {
    const prompt = `capbench ${run} ${key} ${i}`;
    const id = await submit(apiUrl, key === 'first' ? TEST_KEYS.alice.secret : TEST_KEYS.bob.secret, prompt);
    accepted.push({ id, key, acceptedAt: Date.now(), prompt });
    if (key === 'first' && ++firstIn === Math.ceil(opts.tasks / 2)) releaseSecond();
  };
  if (opts.tasks === 0) releaseSecond();
  const first = pool(
    Array.from({ length: opts.tasks }, (_, i) => i),
    SUBMITTERS,
    (i) => one('first', i),
  );
  const second = halfway.then(() =>
    pool(
      Array.from({ length: opts.second }, (_, i) => i),
      4,
      (i) => one('second', i),
    ),
  );
  await Promise.all([first, second]);
  return accepted;
}

/** Samples the lane's memory and the Temporal server's CPU every SAMPLE_MS until `done` resolves. */
function sampler(worker: Proc, api: Proc, client: Client, queue: string, start: number) {
  const samples: CapacitySample[] = [];
  let stopped = false;
  const loop = (async () => {
    let before: CpuSnapshot = cpuSnapshot();
    let at = Date.now();
    while (!stopped) {
      await sleep(SAMPLE_MS);
      const now = cpuSnapshot();
      const elapsed = Date.now() - at;
      const temporalMs = cpuBetween(before, now).temporal ?? 0;
      [before, at] = [now, Date.now()];
      const open = await client.workflow
        .count(`TaskQueue = '${queue}' AND ExecutionStatus = 'Running'`)
        .then((c) => c.count)
        .catch(() => NaN);
      samples.push({
        t_s: Math.round((Date.now() - start) / 1000),
        workerRssMiB: rssMiB(worker.child.pid),
        apiRssMiB: rssMiB(api.child.pid),
        temporalCpuPct: round((temporalMs / elapsed) * 100),
        openTasks: open,
      });
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** Waits until no task of the lane runs, at most `boundMs`; the count still running. */
async function drained(client: Client, queue: string, boundMs: number): Promise<number> {
  const deadline = Date.now() + boundMs;
  const running = async () => (await client.workflow.count(`TaskQueue = '${queue}' AND ExecutionStatus = 'Running'`)).count;
  let open = await running();
  while (open > 0 && Date.now() < deadline) {
    await sleep(2_000);
    open = await running();
  }
  return open;
}

/** Each task's final status, as its client reads it. */
async function statuses(apiUrl: string, accepted: Accepted[]): Promise<string[]> {
  return pool(accepted, 8, async (t) => {
    const secret = t.key === 'first' ? TEST_KEYS.alice.secret : TEST_KEYS.bob.secret;
    const r = await fetch(`${apiUrl}/v1/generations/${t.id}`, { headers: { Authorization: `Bearer ${secret}` } });
    return ((await r.json()) as { status?: string }).status ?? `http_${r.status}`;
  });
}

interface SimJobRecord {
  id: string;
  createdAt: number;
  meta: { apiKey?: string; request?: { content?: { type: string; text?: string }[] } };
}

interface SimCapacityView {
  accounts: { account: string; max_concurrent: number | null; peak_running: number; refused_creates: number }[];
}

/** What the simulator saw: its V jobs (with their prompts), each account's counters and job intervals. */
async function simulatorFigures(simUrl: string) {
  const jobs = (await (await fetch(`${simUrl}/_sim/jobs?platform=V`)).json()) as SimJobRecord[];
  const capacity = (await (await fetch(`${simUrl}/_sim/v/capacity`)).json()) as SimCapacityView;
  const intervals = Object.fromEntries(
    await Promise.all(
      ACCOUNTS.map(async (a) => {
        const r = await fetch(`${simUrl}/_sim/v/capacity/intervals?account=${a.key}`);
        return [a.key, (await r.json()) as { start_ms: number; end_ms: number | null }[]] as const;
      }),
    ),
  );
  const promptOf = (j: SimJobRecord) => j.meta.request?.content?.find((c) => c.type === 'text')?.text ?? '';
  return { jobs: jobs.map((j) => ({ createdAt: j.createdAt, prompt: promptOf(j) })), capacity, intervals };
}

/** Busy share of `limit` slots over [from, to]: the job time inside the window over limit × its length. */
function utilisation(intervals: { start_ms: number; end_ms: number | null }[], from: number, to: number, limit: number): number {
  if (!(to > from)) return NaN;
  const busy = intervals.reduce((sum, i) => sum + Math.max(0, Math.min(i.end_ms ?? to, to) - Math.max(i.start_ms, from)), 0);
  return round((busy / (limit * (to - from))) * 100);
}

/** The run's figures from what was accepted, what the tasks ended as, and what the simulator saw. */
function figures(
  run: CapacityRunName,
  opts: CapacityOptions,
  accepted: Accepted[],
  final: string[],
  open: number,
  sim: Awaited<ReturnType<typeof simulatorFigures>>,
): Omit<CapacityRow, 'seconds'> {
  const firstJobAt = new Map<string, number>();
  for (const j of [...sim.jobs].sort((x, y) => x.createdAt - y.createdAt))
    if (!firstJobAt.has(j.prompt)) firstJobAt.set(j.prompt, j.createdAt);
  const firstKeyJobs = accepted.filter((t) => t.key === 'first').map((t) => firstJobAt.get(t.prompt) ?? NaN);
  const burstStart = Math.min(...sim.jobs.map((j) => j.createdAt));
  const backlogEnd = Math.max(...firstKeyJobs.filter((t) => !Number.isNaN(t)));
  const second = accepted.filter((t) => t.key === 'second');
  const waits = second.filter((t) => firstJobAt.has(t.prompt)).map((t) => firstJobAt.get(t.prompt)! - t.acceptedAt);
  const account = (key: string) => sim.capacity.accounts.find((a) => a.account === key);
  const refused = ACCOUNTS.reduce((n, a) => n + (account(a.key)?.refused_creates ?? 0), 0);
  const p99 = percentile(waits, 99);
  return {
    run,
    tasks: accepted.length,
    succeeded: final.filter((s) => s === 'success').length,
    failed: final.filter((s) => s === 'failed').length,
    open,
    refusedCreates: refused,
    refusedPctOfTasks: round((refused / Math.max(1, accepted.length)) * 100, 2),
    peakA: account(ACCOUNTS[0].key)?.peak_running ?? 0,
    peakB: account(ACCOUNTS[1].key)?.peak_running ?? 0,
    utilisationA: utilisation(sim.intervals[ACCOUNTS[0].key] ?? [], burstStart, backlogEnd, LIMIT),
    utilisationB: utilisation(sim.intervals[ACCOUNTS[1].key] ?? [], burstStart, backlogEnd, LIMIT),
    secondWaitP50ms: Math.round(percentile(waits, 50)),
    secondWaitP99ms: Math.round(p99),
    secondWaitP99xJob: round(p99 / opts.jobMs, 2),
    secondNeverCreated: second.length - waits.length,
  };
}

/** One run on a stack of its own: the burst, the wait for every task, the figures. */
async function oneRun(run: CapacityRunName, opts: CapacityOptions): Promise<{ row: CapacityRow; samples: CapacitySample[] }> {
  const t0 = Date.now();
  const { stack, worker, api, apiUrl, queue } = await capacityStack(run, opts.jobMs);
  const { client, close } = await temporalClient(stack.temporalAddress);
  try {
    await fetch(`${stack.simUrl}/_sim/v/capacity/stats`, { method: 'DELETE' });
    const start = Date.now();
    const sampling = sampler(worker, api, client, queue, start);
    const accepted = await burst(apiUrl, run, opts);
    console.log(`[capacity] ${run}: ${accepted.length} tasks accepted in ${round((Date.now() - start) / 1000)} s`);
    // Ideal: the tasks one after another on the 20 slots; the bound leaves the gateway four times that, and 5 minutes.
    const ideal = Math.ceil((opts.tasks + opts.second) / (LIMIT * ACCOUNTS.length)) * opts.jobMs;
    const open = await drained(client, queue, Math.max(300_000, 4 * ideal));
    await sampling.stop();
    const final = await statuses(apiUrl, accepted);
    const row = {
      ...figures(run, opts, accepted, final, open, await simulatorFigures(stack.simUrl)),
      seconds: Math.round((Date.now() - t0) / 1000),
    };
    return { row, samples: sampling.samples };
  } finally {
    await close();
    await stack.stop();
  }
}

/** At most `n` samples, evenly spaced (the first and the last kept), for the printed series. */
export function thinned<T>(samples: T[], n = 24): T[] {
  if (samples.length <= n) return samples;
  return Array.from({ length: n }, (_, i) => samples[Math.round((i * (samples.length - 1)) / (n - 1))]!);
}

export async function runCapacity(
  opts: CapacityOptions,
): Promise<{ rows: CapacityRow[]; series: Record<string, CapacitySample[]>; notes: string[] }> {
  const rows: CapacityRow[] = [];
  const series: Record<string, CapacitySample[]> = {};
  for (const run of opts.runs) {
    try {
      const r = await oneRun(run, opts);
      rows.push(r.row);
      series[run] = r.samples;
    } catch (err) {
      // A stack that could not start (say, a gateway that does not take the accounts file's max_concurrent yet)
      // is a row naming why, and the other run still runs.
      const why = (err as Error).message
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .slice(0, 4)
        .join(' / ');
      rows.push({ run, error: why } as CapacityRow);
    }
    console.log(`[capacity] ${JSON.stringify(rows.at(-1))}`);
  }
  return {
    rows,
    series,
    notes: [
      `${opts.tasks} tasks from one key + ${opts.second} from a second once half were accepted; 2 V accounts limited to ${LIMIT} each in the simulator; jobs ${opts.jobMs} ms; push on, polling at 3 s then every 5 s; 1 API + 1 worker (the lane), Temporal dev server (SQLite), on one host`,
      "utilisation: each account's job time between the first create and the first key's last create, over limit × that span; second-key wait: accept → its job created upstream",
    ],
  };
}
