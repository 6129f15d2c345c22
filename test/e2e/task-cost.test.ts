/**
 * Each task's usage and cost over the real stack: an extra API priced by PRICES_FILE (V has no
 * public price) shows a V task's estimate while it runs, and its final cost from the tokens the simulator
 * reported it billed; a failed task costs zero; the list and the sync answer carry the same figures.
 */
import { taskRecordSchema } from '../../api/response-schemas';
import { ApiClient } from '../support/client';
import { startExtraApi } from '../support/extra-api';
import { writeJsonFile } from '../support/json-file';
import { unique } from '../support/prompts';
import { sharedStack } from '../support/shared-stack';
import { temporalClient, upstreamIdOf, type TemporalTestClient } from '../support/temporal';
import { until } from '../system/faults-support';

const MODEL = 'vendor-video-1-0-pro-250528';
/** 15 CNY per million tokens; 720p estimated at its largest frame (21:9, 1504 × 640 × 24 fps / 1024 tokens a second). */
const PRICES = { [MODEL]: { currency: 'CNY', source: 'e2e', per_token: { per_million: 15, tokens_per_second: { '720p': 22560 } } } };

let extra: Awaited<ReturnType<typeof startExtraApi>>;
let alice: ApiClient;
let temporal: TemporalTestClient;
const { sim, temporalAddress } = sharedStack();

beforeAll(async () => {
  extra = await startExtraApi({ PRICES_FILE: writeJsonFile(PRICES, 'prices.json') });
  alice = new ApiClient(extra.url, 'alice');
  temporal = await temporalClient(temporalAddress);
});
afterAll(async () => {
  await temporal?.close();
  await extra?.proc.stop();
});

test("a V task's estimate while it runs, then its final cost from the tokens the simulator reported, never above the estimate", async () => {
  // 1:1 at 720p is 960 × 960: more tokens than 16:9 would bill, fewer than the largest frame the estimate assumes.
  const body = { model: MODEL, prompt: unique('a red fox [sim:duration=4000]'), duration: 5, resolution: '720p', ratio: '1:1' };
  const started = await alice.post('/v1/async/videos/generations', body);
  expect(started.status).toBe(200);

  const running = await alice.get(`/v1/generations/${started.body.task_id}`);
  expect(running.body.status).toMatch(/pending|running/);
  expect(running.body.usage).toEqual({ seconds: 5, tokens: 112_800 });
  expect(running.body.cost).toEqual({ amount: 1.692, currency: 'CNY', estimated: true });

  const done = await alice.waitForTask(started.body.task_id);
  taskRecordSchema.parse(done);
  expect(done.status).toBe('success');
  // What the simulator reported (Ark's task `usage`), kept raw and read as the billed tokens.
  const reported = done.usage.completion_tokens as number;
  expect(reported).toBe(Math.round((960 * 960 * 24 * 5) / 1024));
  expect(done.usage).toMatchObject({ seconds: 5, tokens: reported });
  expect(done.cost).toEqual({ amount: (reported * 15) / 1_000_000, currency: 'CNY', estimated: false });
  // What a budget reserved for it covers what it was billed.
  expect(done.cost.amount).toBeLessThanOrEqual(running.body.cost.amount);

  const listed = await alice.get(`/v1/tasks?model=${MODEL}&page_size=50`);
  const item = (listed.body.data as { task_id: string; cost: unknown }[]).find((t) => t.task_id === started.body.task_id);
  expect(item?.cost).toEqual(done.cost);
});

test('a task that failed costs zero', async () => {
  const started = await alice.post('/v1/async/videos/generations', {
    model: MODEL,
    prompt: unique('a heron [sim:fail=error]'),
    duration: 5,
    resolution: '720p',
  });
  const done = await alice.waitForTask(started.body.task_id);
  expect(done.status).toBe('failed');
  expect(done.cost).toEqual({ amount: 0, currency: 'CNY', estimated: false });
  expect(done.usage).toEqual({ seconds: 0, tokens: 0 });
});

describe('a cancelled V task', () => {
  /** Starts a task of `durationMs` upstream and waits until its job exists; returns the task id and its job's id. */
  async function started(durationMs: number): Promise<{ taskId: string; job: string }> {
    const r = await alice.post('/v1/async/videos/generations', {
      model: MODEL,
      prompt: unique(`a kestrel [sim:duration=${durationMs}]`),
      duration: 5,
      resolution: '720p',
    });
    expect(r.status).toBe(200);
    let job: string | undefined;
    await until('its job exists upstream', async () => (job = await upstreamIdOf(temporal.client, r.body.task_id)) !== undefined, 30_000);
    return { taskId: r.body.task_id, job: job! };
  }
  const stateOf = async (job: string) => (await sim.jobs('V')).find((j) => j.id === job)?.view.state;

  test('while its job is queued: V accepts the cancel, the job never runs, the task costs 0', async () => {
    // Queued for the first quarter of its 40 s.
    const { taskId, job } = await started(40_000);
    const r = await alice.post(`/v1/generations/${taskId}/cancel`, {});
    expect(r.status).toBe(200);
    expect(await stateOf(job)).toBe('cancelled');
    expect(r.body).toMatchObject({
      status: 'failed',
      error: { code: 'cancelled' },
      usage: { seconds: 0, tokens: 0 },
      cost: { amount: 0, currency: 'CNY', estimated: false },
    });
  });

  test('once its job runs: V cannot cancel it, the job runs to its end and is billed, the task costs its estimate', async () => {
    const { taskId, job } = await started(8_000);
    await until('the job runs', async () => (await stateOf(job)) === 'running', 30_000);
    const estimate = (await alice.get(`/v1/generations/${taskId}`)).body.cost;
    const r = await alice.post(`/v1/generations/${taskId}/cancel`, {});
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'failed',
      error: { code: 'cancelled' },
      usage: { seconds: 5, tokens: 112_800 },
      cost: { ...estimate, estimated: false },
    });
    expect(await stateOf(job)).toMatch(/running|succeeded/);
  });
});

test('the sync answer carries the final usage and cost', async () => {
  const r = await alice.post('/v1/videos/generations', { model: MODEL, prompt: unique('a lighthouse'), duration: 4, resolution: '720p' });
  expect(r.status).toBe(200);
  const tokens = r.body.usage.completion_tokens as number;
  expect(r.body.usage).toMatchObject({ seconds: 4, tokens });
  expect(r.body.cost).toEqual({ amount: (tokens * 15) / 1_000_000, currency: 'CNY', estimated: false });
});

test('the shared API (no PRICES_FILE) shows the same usage with a null cost: V has no public price', async () => {
  const shared = new ApiClient(process.env.MEDIAGATE_TEST_API_URL!, 'alice');
  const started = await shared.post('/v1/async/videos/generations', {
    model: MODEL,
    prompt: unique('a quiet pond'),
    duration: 5,
    resolution: '720p',
  });
  const record = await shared.get(`/v1/generations/${started.body.task_id}`);
  expect(record.body.usage).toEqual({ seconds: 5 });
  expect(record.body.cost).toBeNull();
});
