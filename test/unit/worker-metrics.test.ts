/**
 * The worker's metrics: adapters decorated with timing and error counting (by platform, operation and a bounded
 * reason), task outcomes from the interceptor's sink, and the /metrics endpoint serving them over HTTP.
 */
import type { Server } from 'node:http';
import type { PlatformAdapter } from '../../activities/adapter';
import { final, retryable } from '../../activities/errors';
import { boundPort, errorReason, instrumentAdapters, serveMetrics, WorkerMetrics } from '../../worker/metrics';

function fakeAdapter(poll: () => Promise<never> | Promise<{ state: 'running' }>): PlatformAdapter {
  return {
    submit: async () => ({ upstreamTaskId: 'up-1' }),
    poll,
    cancel: async () => undefined,
  };
}

async function value(metrics: WorkerMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  const match = metric.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return match?.value ?? 0;
}

describe('instrumentAdapters', () => {
  it('times successful calls and passes their results through', async () => {
    const metrics = new WorkerMetrics();
    const adapters = instrumentAdapters({ V: fakeAdapter(async () => ({ state: 'running' })) }, metrics);
    await expect(adapters.V!.submit({} as never, {} as never, 'task-1')).resolves.toEqual({ upstreamTaskId: 'up-1' });
    await expect(adapters.V!.poll('video', 'up-1')).resolves.toEqual({ state: 'running' });
    await adapters.V!.poll('video', 'up-1');
    const counts = (await metrics.registry.getSingleMetric('mediagate_upstream_request_duration_seconds')!.get()).values.filter(
      (v) => (v as { metricName?: string }).metricName === 'mediagate_upstream_request_duration_seconds_count',
    );
    expect(counts.map((c) => [c.labels.operation, c.labels.result, c.value]).sort()).toEqual([
      ['poll', 'ok', 2],
      ['submit', 'ok', 1],
    ]);
  });

  it('counts failures by reason and rethrows them unchanged', async () => {
    const metrics = new WorkerMetrics();
    const refused = final('content_policy', 'refused');
    let calls = 0;
    const adapters = instrumentAdapters(
      {
        B: fakeAdapter(async () => {
          calls += 1;
          throw calls === 1 ? retryable('503 from upstream') : refused;
        }),
      },
      metrics,
    );
    await expect(adapters.B!.poll('image', 'x')).rejects.toThrow('503 from upstream');
    await expect(adapters.B!.poll('image', 'x')).rejects.toBe(refused);
    expect(await value(metrics, 'mediagate_upstream_errors_total', { platform: 'B', operation: 'poll', reason: 'upstream_unavailable' })).toBe(1);
    expect(await value(metrics, 'mediagate_upstream_errors_total', { platform: 'B', operation: 'poll', reason: 'content_policy' })).toBe(1);
  });

  it('labels anything that is not an UpstreamError as unexpected', () => {
    expect(errorReason(new TypeError('boom'))).toBe('unexpected');
    expect(errorReason(final('insufficient_balance', 'no credit'))).toBe('insufficient_balance');
  });
});

describe('task outcome sink', () => {
  it('counts outcomes by platform and reason', async () => {
    const metrics = new WorkerMetrics();
    const { completed } = metrics.sinks().taskMetrics;
    const info = {} as never;
    completed.fn(info, 'V', 'success', 'none');
    completed.fn(info, 'V', 'failed', 'deadline_exceeded');
    completed.fn(info, 'V', 'failed', 'deadline_exceeded');
    expect(await value(metrics, 'mediagate_tasks_completed_total', { platform: 'V', outcome: 'success', reason: 'none' })).toBe(1);
    expect(await value(metrics, 'mediagate_tasks_completed_total', { platform: 'V', outcome: 'failed', reason: 'deadline_exceeded' })).toBe(2);
  });
});

describe('serveMetrics', () => {
  let server: Server;
  const metrics = new WorkerMetrics();

  beforeAll(async () => {
    server = await serveMetrics(metrics.registry, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('serves the Prometheus text at GET /metrics, and nothing else', async () => {
    metrics.tasksCompleted.inc({ platform: 'T', outcome: 'success', reason: 'none' });
    const base = `http://127.0.0.1:${boundPort(server)}`;
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('mediagate_tasks_completed_total{platform="T",outcome="success",reason="none"} 1');
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect((await fetch(`${base}/`)).status).toBe(404);
  });
});
