/**
 * Each task's usage and cost over the real stack (issue 20 §4): an extra API priced by PRICES_FILE (V has no
 * public price) shows a V task's estimate while it runs, and its final cost from the tokens the simulator
 * reported it billed; a failed task costs zero; the list and the sync answer carry the same figures.
 */
import { taskRecordSchema } from '../../api/response-schemas';
import { ApiClient } from '../support/client';
import { startExtraApi } from '../support/extra-api';
import { writeJsonFile } from '../support/json-file';
import { unique } from '../support/prompts';

const MODEL = 'vendor-video-1-0-pro-250528';
/** 15 CNY per million tokens; 720p estimated at its largest frame (21:9, 1504 × 640 × 24 fps / 1024 tokens a second). */
const PRICES = { [MODEL]: { currency: 'CNY', source: 'e2e', per_token: { per_million: 15, tokens_per_second: { '720p': 22560 } } } };

let extra: Awaited<ReturnType<typeof startExtraApi>>;
let alice: ApiClient;

beforeAll(async () => {
  extra = await startExtraApi({ PRICES_FILE: writeJsonFile(PRICES, 'prices.json') });
  alice = new ApiClient(extra.url, 'alice');
});
afterAll(async () => {
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
  const started = await alice.post('/v1/async/videos/generations', { model: MODEL, prompt: unique('a heron [sim:fail=error]'), duration: 5, resolution: '720p' });
  const done = await alice.waitForTask(started.body.task_id);
  expect(done.status).toBe('failed');
  expect(done.cost).toEqual({ amount: 0, currency: 'CNY', estimated: false });
  expect(done.usage).toEqual({ seconds: 0, tokens: 0 });
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
  const started = await shared.post('/v1/async/videos/generations', { model: MODEL, prompt: unique('a quiet pond'), duration: 5, resolution: '720p' });
  const record = await shared.get(`/v1/generations/${started.body.task_id}`);
  expect(record.body.usage).toEqual({ seconds: 5 });
  expect(record.body.cost).toBeNull();
});
