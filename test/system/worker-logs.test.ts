/**
 * Logs a person can read, read from a real worker process's output: a short line for the
 * workflow bundle instead of webpack's multi-kilobyte stats report, no activity task tokens, and one line per task
 * transition at info with the task, platform, model, status, upstream job and elapsed time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ApiClient, SimClient } from '../support/client';
import { unique } from '../support/prompts';
import { freePort, REPO, Stack } from '../support/stack';

jest.setTimeout(240_000);

interface LogLine {
  level?: number;
  msg?: string;
  [field: string]: unknown;
}

let stack: Stack;
let worker: ChildProcess;
const output: string[] = [];
let alice: ApiClient;
let sim: SimClient;

/** Waits until a line of the worker's output matches. */
async function lineMatching(re: RegExp, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = output.find((l) => re.test(l));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no worker line matching ${re}; last lines:\n${output.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const parsed = (): LogLine[] =>
  output.flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });

/** The transition lines the worker logged for one task, in order. */
const transitionsOf = (taskId: string) =>
  parsed().filter((l) => l.taskId === taskId && typeof l.status === 'string' && typeof l.elapsedMs === 'number');

beforeAll(async () => {
  // No worker of the stack's own: this test starts the one whose every line it reads.
  stack = await Stack.start({ name: 'worker-logs', workers: 0, simJobDurationMs: 1_500 });
  const [metricsPort, sdkMetricsPort] = [await freePort(), await freePort()];
  worker = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'worker/main.ts')], {
    cwd: REPO,
    env: {
      ...process.env,
      ...stack.env,
      WORKER_METRICS_HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(metricsPort),
      WORKER_SDK_METRICS_PORT: String(sdkMetricsPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [worker.stdout!, worker.stderr!]) createInterface({ input: stream }).on('line', (line) => output.push(line));
  await lineMatching(/Worker state changed.*RUNNING|"state":"RUNNING"/, 180_000);
  alice = new ApiClient(stack.apiUrl, 'alice');
  sim = new SimClient(stack.simUrl);
}, 240_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((r) => worker.once('exit', r));
    worker.kill('SIGTERM');
    await exited;
  }
  await stack?.stop();
});

test('the workflow bundle is one short line (size and time), and no start-up line is kilobytes long', async () => {
  const bundle = await lineMatching(/Workflow bundle built/, 1_000);
  expect(bundle.length).toBeLessThan(300);
  expect(JSON.parse(bundle)).toMatchObject({
    level: 30,
    msg: expect.stringMatching(/^Workflow bundle built: \d+\.\d MiB in \d+\.\d s$/),
    bundleBytes: expect.any(Number),
    bundleMs: expect.any(Number),
  });
  // Webpack's stats report (it names every module it bundled) is not logged.
  expect(output.filter((l) => /orphan modules|webpack \d|\.\/workflows\/generation\.ts/.test(l))).toEqual([]);
  const startUp = output.slice(0, output.findIndex((l) => /Worker started/.test(l)) + 1);
  expect(startUp.length).toBeGreaterThan(0);
  expect(startUp.filter((l) => l.length > 1_000)).toEqual([]);
});

test('a task that succeeds: one info line per transition with its fields; no line carries a task token', async () => {
  const created = await alice.post('/v1/async/videos/generations', {
    model: 'vendor-video-1-0-pro-250528',
    prompt: unique('a kestrel hovering'),
    duration: 5,
  });
  expect(created.status).toBe(200);
  const taskId = created.body.task_id as string;
  expect((await alice.waitForTask(taskId)).status).toBe('success');
  await lineMatching(new RegExp(`Task ${taskId} success`), 10_000);

  const lines = transitionsOf(taskId);
  expect(lines.map((l) => l.status)).toEqual(['pending', 'running', 'success']);
  const upstreamIds = (await sim.jobs('V')).map((j) => j.id);
  for (const line of lines) {
    expect(line).toMatchObject({ level: 30, taskId, platform: 'V', model: 'vendor-video-1-0-pro-250528' });
    expect(line.msg).toMatch(
      new RegExp(
        `^Task ${taskId} ${String(line.status)}: platform V, model vendor-video-1-0-pro-250528, upstream \\S+, after \\d+\\.\\d s$`,
      ),
    );
  }
  // Known from the first poll on; the first line is written before the job is submitted.
  expect(lines[0]!.upstreamTaskId).toBe('-');
  for (const line of lines.slice(1)) expect(upstreamIds).toContain(line.upstreamTaskId);
  const elapsed = lines.map((l) => l.elapsedMs as number);
  expect([...elapsed].sort((a, b) => a - b)).toEqual(elapsed);

  // The activities of this task did log (at least the submit), without the SDK's base64 task token.
  expect(parsed().some((l) => l.workflowId === taskId && l.activityType === 'submitGeneration')).toBe(true);
  expect(output.filter((l) => /taskToken/i.test(l))).toEqual([]);
});

test('a task that fails: its failed line names the reason', async () => {
  const created = await alice.post('/v1/async/videos/generations', {
    model: 'vendor-video-1-0-pro-250528',
    prompt: unique('[sim:fail=content_policy] a storm'),
    duration: 5,
  });
  expect(created.status).toBe(200);
  const taskId = created.body.task_id as string;
  expect((await alice.waitForTask(taskId)).status).toBe('failed');
  await lineMatching(new RegExp(`Task ${taskId} failed`), 10_000);

  const lines = transitionsOf(taskId);
  expect(lines[0]).toMatchObject({ status: 'pending' });
  expect(lines.at(-1)).toMatchObject({ level: 30, taskId, platform: 'V', status: 'failed', reason: 'content_policy' });
  expect(lines.at(-1)!.msg).toMatch(new RegExp(`^Task ${taskId} failed \\(content_policy\\): platform V`));
  expect(lines.filter((l) => l.status === 'failed')).toHaveLength(1);
  expect(output.filter((l) => /taskToken/i.test(l))).toEqual([]);
});
