/**
 * Scale-out: two API processes and two workers against one Temporal server. The APIs are stateless (Temporal is
 * the system of record), so a task submitted through either is readable through the other; the workers share
 * one task queue, so both execute tasks. Which worker ran what is read from each worker's own /metrics: its
 * upstream calls (activities) and the outcomes its workflows reached.
 */
import { ApiClient } from '../support/client';
import { metric, scrape } from '../support/metrics';
import { useStack } from '../support/use-stack';

jest.setTimeout(240_000);

const MODEL = 'vendor-video-1-0-pro-250528';
const PER_API = 10;

const gw = useStack({ name: 'scale-out', workers: 2, apis: 2, simJobDurationMs: 1_000 });
let apis: [ApiClient, ApiClient];

beforeAll(() => {
  apis = [new ApiClient(`http://127.0.0.1:${gw.stack.apiPorts[0]}`), new ApiClient(`http://127.0.0.1:${gw.stack.apiPorts[1]}`)];
});

async function submit(api: ApiClient, prompt: string): Promise<string> {
  const r = await api.post('/v1/async/videos/generations', { model: MODEL, prompt, duration: 5 });
  expect(r.status).toBe(200);
  return r.body.task_id as string;
}

describe('two APIs and two workers on one Temporal server', () => {
  const submitted: { via: 0 | 1; taskId: string; fails: boolean }[] = [];

  beforeAll(async () => {
    // Submitted concurrently through both APIs, so both workers' pollers find work waiting.
    const jobs = ([0, 1] as const).flatMap((via) =>
      Array.from({ length: PER_API }, (_, i) => {
        const fails = i === 0; // one content-policy failure per API: outcomes by reason, not only successes
        const prompt = `scale-out ${via}-${i}${fails ? ' [sim:fail=content_policy]' : ''}`;
        return submit(apis[via], prompt).then((taskId) => submitted.push({ via, taskId, fails }));
      }),
    );
    await Promise.all(jobs);
  });

  it('reads every task through the API it was not submitted to, to its terminal state', async () => {
    expect(submitted).toHaveLength(2 * PER_API);
    for (const { via, taskId, fails } of submitted) {
      const other = apis[via === 0 ? 1 : 0];
      const first = await other.get(`/v1/generations/${taskId}`);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ task_id: taskId, model: MODEL });
      const done = await other.waitForTask(taskId, 90_000);
      expect(done.status).toBe(fails ? 'failed' : 'success');
    }
  });

  it('counts each task started on the API that started it', async () => {
    for (const via of [0, 1] as const) {
      const text = await scrape(`http://127.0.0.1:${gw.stack.apiPorts[via]}/metrics`);
      expect(metric(text, 'mediagate_tasks_started_total', { kind: 'video', model: MODEL, platform: 'V' })).toBe(PER_API);
    }
  });

  it('lists tasks from both APIs on either API', async () => {
    for (const api of apis) {
      const r = await api.get('/v1/tasks?page_size=100');
      expect(r.status).toBe(200);
      const ids = (r.body.data as { task_id: string }[]).map((t) => t.task_id).sort();
      expect(ids).toEqual(submitted.map((t) => t.taskId).sort());
    }
  });

  it('runs tasks on both workers, and counts every outcome exactly once across them', async () => {
    const texts = await Promise.all(gw.stack.workers.map((w) => scrape(w.metricsUrl)));
    for (const text of texts) {
      expect(metric(text, 'mediagate_upstream_request_duration_seconds_count', { platform: 'V', result: 'ok' })).toBeGreaterThan(0);
    }
    const outcomes = (labels: Record<string, string>) =>
      texts.reduce((sum, t) => sum + metric(t, 'mediagate_tasks_completed_total', { platform: 'V', ...labels }), 0);
    expect(outcomes({ outcome: 'success', reason: 'none' })).toBe(2 * PER_API - 2);
    expect(outcomes({ outcome: 'failed', reason: 'content_policy' })).toBe(2);
    const submits = texts.reduce(
      (sum, t) => sum + metric(t, 'mediagate_upstream_request_duration_seconds_count', { operation: 'submit' }),
      0,
    );
    expect(submits).toBe(2 * PER_API);
  });

  it('serves the Temporal SDK runtime metrics from each worker', async () => {
    for (const w of gw.stack.workers) {
      const text = await scrape(w.sdkMetricsUrl);
      expect(text).toMatch(/^temporal_\w+/m);
    }
  });
});
