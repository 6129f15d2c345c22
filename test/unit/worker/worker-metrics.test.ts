/**
 * The adapter decorator and the worker's metrics: every adapter call timed and its failures counted (by platform,
 * operation and a bounded reason), operator alerts raised once per platform and code, a cancel that can no longer
 * succeed swallowed; task outcomes from the interceptor's sink; the /metrics endpoint serving them over HTTP.
 */
import type { Server } from 'node:http';
import pino from 'pino';
import { decorateAdapter } from '../../../activities/adapter-decorator';
import type { PlatformAdapter } from '../../../platforms/platform';
import { final, retryable } from '../../../platforms/upstream-error';
import { lostAnswerReporter } from '../../../worker/start-up';
import { boundPort, errorReason, metricsObserver, serveMetrics, WorkerMetrics } from '../../../worker/worker-metrics';

function fakeAdapter(poll: () => Promise<never> | Promise<{ state: 'running' }>, cancel?: () => Promise<boolean>): PlatformAdapter {
  return {
    submit: async () => ({ upstreamTaskId: 'up-1' }),
    poll,
    ...(cancel ? { cancel } : {}),
  };
}

async function value(metrics: WorkerMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  const match = metric.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return match?.value ?? 0;
}

const CTX = { taskId: 'task-1', dedupKey: 'task-1-run', deadlineAt: 0 };

describe('decorateAdapter with the metrics observer', () => {
  it('times successful calls and passes their results through', async () => {
    const metrics = new WorkerMetrics();
    const adapter = decorateAdapter(
      'V',
      fakeAdapter(async () => ({ state: 'running' })),
      metricsObserver(metrics, () => undefined),
    );
    await expect(adapter.submit({} as never, {} as never, CTX)).resolves.toEqual({ upstreamTaskId: 'up-1' });
    await expect(adapter.poll('video', 'up-1')).resolves.toEqual({ state: 'running' });
    await adapter.poll('video', 'up-1');
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
    const adapter = decorateAdapter(
      'B',
      fakeAdapter(async () => {
        calls += 1;
        throw calls === 1 ? retryable('503 from upstream') : refused;
      }),
      metricsObserver(metrics, () => undefined),
    );
    await expect(adapter.poll('image', 'x')).rejects.toThrow('503 from upstream');
    await expect(adapter.poll('image', 'x')).rejects.toBe(refused);
    expect(
      await value(metrics, 'mediagate_upstream_errors_total', { platform: 'B', operation: 'poll', reason: 'upstream_unavailable' }),
    ).toBe(1);
    expect(await value(metrics, 'mediagate_upstream_errors_total', { platform: 'B', operation: 'poll', reason: 'content_policy' })).toBe(1);
  });

  it('alerts the operator once per platform and code on credential and balance failures, from any platform', async () => {
    const alerts: string[] = [];
    const observer = metricsObserver(new WorkerMetrics(), (platform, code) => alerts.push(`${platform}:${code}`));
    for (const platform of ['T', 'V']) {
      const adapter = decorateAdapter(
        platform,
        fakeAdapter(async () => Promise.reject(final('upstream_auth', 'bad key', 'AuthFailure'))),
        observer,
      );
      await expect(adapter.poll('video', 'x')).rejects.toThrow('bad key');
      await expect(adapter.poll('video', 'x')).rejects.toThrow('bad key');
    }
    const broke = decorateAdapter(
      'B',
      fakeAdapter(async () => Promise.reject(final('insufficient_balance', 'no credit', 'Overdue'))),
      observer,
    );
    await expect(broke.poll('video', 'x')).rejects.toThrow('no credit');
    const busy = decorateAdapter(
      'B',
      fakeAdapter(async () => Promise.reject(retryable('busy'))),
      observer,
    );
    await expect(busy.poll('video', 'x')).rejects.toThrow('busy');
    expect(alerts).toEqual(['T:AuthFailure', 'V:AuthFailure', 'B:Overdue']);
  });

  it('a transient failure marked for the operator (a usage quota) gives a notice once per platform and code, never the alert; the call still fails retryably', async () => {
    const alerts: string[] = [];
    const notices: string[] = [];
    const observer = metricsObserver(
      new WorkerMetrics(),
      (p, code) => alerts.push(`${p}:${code}`),
      (p, code) => notices.push(`${p}:${code}`),
    );
    const quota = decorateAdapter(
      'V',
      fakeAdapter(async () => Promise.reject(retryable('quota', 'QuotaExceeded', { operatorNotice: true }))),
      observer,
    );
    for (let i = 0; i < 3; i++) await expect(quota.poll('video', 'x')).rejects.toMatchObject({ retryable: true });
    const throttled = decorateAdapter(
      'V',
      fakeAdapter(async () => Promise.reject(retryable('slow down', 'ModelAccountRpmRateLimitExceeded'))),
      observer,
    );
    await expect(throttled.poll('video', 'x')).rejects.toThrow('slow down');
    expect(notices).toEqual(['V:QuotaExceeded']);
    expect(alerts).toEqual([]);
  });

  it('a cancel the platform refuses for good resolves false; an accepted one true; a transient failure propagates; no cancel stays no cancel', async () => {
    const observer = metricsObserver(new WorkerMetrics(), () => undefined);
    const running = decorateAdapter(
      'V',
      fakeAdapter(
        async () => ({ state: 'running' }),
        async () => Promise.reject(final('invalid_request', 'not cancellable')),
      ),
      observer,
    );
    await expect(running.cancel!('video', 'x')).resolves.toBe(false);
    const queued = decorateAdapter(
      'V',
      fakeAdapter(
        async () => ({ state: 'running' }),
        async () => true,
      ),
      observer,
    );
    await expect(queued.cancel!('video', 'x')).resolves.toBe(true);
    const down = decorateAdapter(
      'V',
      fakeAdapter(
        async () => ({ state: 'running' }),
        async () => Promise.reject(retryable('503')),
      ),
      observer,
    );
    await expect(down.cancel!('video', 'x')).rejects.toThrow('503');
    expect(
      decorateAdapter(
        'T',
        fakeAdapter(async () => ({ state: 'running' })),
        observer,
      ).cancel,
    ).toBeUndefined();
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
    expect(await value(metrics, 'mediagate_tasks_completed_total', { platform: 'V', outcome: 'failed', reason: 'deadline_exceeded' })).toBe(
      2,
    );
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

describe('lostAnswerReporter: a task whose job could not be found', () => {
  it('counts mediagate_upstream_lost_total{platform,reason} and logs OPERATOR ACTION NEEDED with the facts, every time', async () => {
    const metrics = new WorkerMetrics();
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
    const report = lostAnswerReporter(metrics, logger);
    const facts = {
      platform: 'T',
      reason: 'not_found_after_refusal',
      taskId: 'task_1',
      account: 'SubAppId 7',
      dedupKey: 'task_1-run',
      window: { from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:10:00Z' },
      requestDigest: 'sha256:ab',
      message: 'Platform T may hold a job …',
    };
    report(facts);
    report({ ...facts, taskId: 'task_2' });
    expect(await value(metrics, 'mediagate_upstream_lost_total', { platform: 'T', reason: 'not_found_after_refusal' })).toBe(2);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'OPERATOR ACTION NEEDED: Platform T may hold a job …',
      account: 'SubAppId 7',
      dedupKey: 'task_1-run',
      requestDigest: 'sha256:ab',
    });
  });
});

describe("the worker's /readyz names each platform whose accounts are all out", () => {
  it('200 while every platform has an account, 503 naming the platform and why while one has none', async () => {
    let out: Record<string, string> = {};
    const server = await serveMetrics(new WorkerMetrics().registry, '127.0.0.1', 0, () => out);
    try {
      const base = `http://127.0.0.1:${boundPort(server)}`;
      let res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ready' });
      out = { V: 'one: AccountOverdueError, probed again in 60 s; two: AuthenticationError, probed again in 45 s' };
      res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'no_account', platforms: out });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("decorateAdapter and a platform's day totals", () => {
  it('passes them on with their source and quantities, timed as records, and raises the alert of a refused bill', async () => {
    const metrics = new WorkerMetrics();
    const alerts: string[] = [];
    let refuse = false;
    const adapter = decorateAdapter(
      'B',
      {
        ...fakeAdapter(async () => ({ state: 'running' })),
        dayTotals: {
          source: 'the bill',
          quantities: ['money'],
          day: async () => {
            if (refuse) throw final('upstream_auth', 'no billing access', 'AccessDenied');
            return [{ quantity: 'money', value: 1.25, currency: 'CNY' }];
          },
        },
      },
      { ...metricsObserver(metrics, () => undefined), alert: (_p, code) => void alerts.push(code) },
    );
    expect(adapter.dayTotals).toMatchObject({ source: 'the bill', quantities: ['money'] });
    await expect(adapter.dayTotals!.day(0, async () => {})).resolves.toEqual([{ quantity: 'money', value: 1.25, currency: 'CNY' }]);
    refuse = true;
    await expect(adapter.dayTotals!.day(0, async () => {})).rejects.toThrow('no billing access');
    expect(alerts).toEqual(['AccessDenied']);
    const counts = (await metrics.registry.getSingleMetric('mediagate_upstream_request_duration_seconds')!.get()).values.filter(
      (v) => (v as { metricName?: string }).metricName === 'mediagate_upstream_request_duration_seconds_count',
    );
    expect(counts.map((c) => [c.labels.operation, c.labels.result]).sort()).toEqual([
      ['records', 'error'],
      ['records', 'ok'],
    ]);
  });

  it('leaves an adapter without day totals without them', () => {
    const adapter = decorateAdapter(
      'V',
      fakeAdapter(async () => ({ state: 'running' })),
      metricsObserver(new WorkerMetrics(), () => undefined),
    );
    expect(adapter.dayTotals).toBeUndefined();
  });
});
