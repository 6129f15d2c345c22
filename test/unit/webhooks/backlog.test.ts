/**
 * The webhook metrics of a worker among several: events settled are counted from the delivery
 * workflow's sink, whatever the outcome (expired and superseded included, which no attempt reports), and the age of
 * the oldest undelivered event is read from visibility (webhooks/backlog.ts), so it is the same on every worker
 * whichever worker made an event's attempts. Visibility is stood in for by a set of WebhookPendingSince values that
 * answers the count queries the way Temporal's does; test/e2e/webhooks.test.ts runs the same queries on a real server.
 */
import { WEBHOOK_PENDING_SINCE } from '../../../core/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE } from '../../../core/webhooks';
import { oldestPendingSince, WebhookBacklog } from '../../../webhooks/backlog';
import { WorkerMetrics } from '../../../worker/worker-metrics';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const SECOND = 1_000;
const HOUR = 3_600 * SECOND;

/**
 * Running delivery workflows' WebhookPendingSince values (ISO 8601), counted as visibility counts them: every query
 * must select running delivery workflows that carry the attribute; `<=` compares Keyword values as text.
 */
function visibility(values: string[]) {
  const queries: string[] = [];
  const count = async (query: string) => {
    queries.push(query);
    expect(query).toContain(`WorkflowType = '${WEBHOOK_DELIVERY_WORKFLOW_TYPE}'`);
    expect(query).toContain("ExecutionStatus = 'Running'");
    expect(query).toContain(`${WEBHOOK_PENDING_SINCE.name} IS NOT NULL`);
    const bound = query.match(new RegExp(`${WEBHOOK_PENDING_SINCE.name} <= '([^']+)'`))?.[1];
    return values.filter((v) => bound === undefined || v <= bound).length;
  };
  return { count, queries };
}

const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe('oldestPendingSince: the oldest WebhookPendingSince by counting', () => {
  test('nothing pending: undefined, after one count', async () => {
    const v = visibility([]);
    expect(await oldestPendingSince(v.count, NOW)).toBeUndefined();
    expect(v.queries).toHaveLength(1);
  });

  test.each([
    ['90 s', 90 * SECOND],
    ['an hour and a bit', HOUR + 17 * SECOND],
    ['71 hours', 71 * HOUR + 123 * SECOND],
  ])('the oldest of several, queued %s ago: found to within a second or 1 %% of its age, never older', async (_label, age) => {
    const v = visibility([ago(5 * SECOND), ago(age), ago(age / 2), ago(30 * SECOND)]);
    const since = (await oldestPendingSince(v.count, NOW))!;
    expect(since).toBeGreaterThanOrEqual(NOW - age);
    expect(since - (NOW - age)).toBeLessThanOrEqual(Math.max(SECOND, age / 100));
    // Bounded: about twice log2 of the age in seconds.
    expect(v.queries.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(age / SECOND)) + 3);
  });

  test('queued "in the future" by a worker whose clock runs ahead: age 0', async () => {
    expect(await oldestPendingSince(visibility([new Date(NOW + 2 * SECOND).toISOString()]).count, NOW)).toBe(NOW);
  });
});

describe("WebhookBacklog: the gauge's reader", () => {
  test('reads visibility at most once per refresh; between reads the age keeps growing from the instant found', async () => {
    let now = NOW;
    const values = [ago(100 * SECOND)];
    const v = visibility(values);
    const backlog = new WebhookBacklog(v.count, { refreshMs: 10 * SECOND, timeoutMs: SECOND, onError: () => undefined, now: () => now });
    expect(await backlog.ageSeconds()).toBeCloseTo(100, -1);
    const reads = v.queries.length;
    now += 5 * SECOND;
    expect(await backlog.ageSeconds()).toBeCloseTo(105, -1);
    expect(v.queries.length).toBe(reads);
    // Delivered meanwhile (on whichever worker): the next read finds nothing.
    values.length = 0;
    now += 5 * SECOND;
    expect(await backlog.ageSeconds()).toBe(0);
  });

  test('a failed or slow read keeps the last instant known, and says why', async () => {
    let now = NOW;
    const errors: string[] = [];
    let answer: 'ok' | 'fail' | 'hang' = 'ok';
    const v = visibility([ago(60 * SECOND)]);
    const backlog = new WebhookBacklog(
      (q) =>
        answer === 'ok'
          ? v.count(q)
          : answer === 'fail'
            ? Promise.reject(new Error('UNAVAILABLE: connection refused'))
            : new Promise<number>(() => undefined),
      { refreshMs: 10 * SECOND, timeoutMs: 200, onError: (err) => errors.push((err as Error).message), now: () => now },
    );
    expect(await backlog.ageSeconds()).toBeCloseTo(60, -1);
    answer = 'fail';
    now += 10 * SECOND;
    expect(await backlog.ageSeconds()).toBeCloseTo(70, -1);
    answer = 'hang';
    now += 10 * SECOND;
    expect(await backlog.ageSeconds()).toBeCloseTo(80, -1);
    expect(errors).toEqual(['UNAVAILABLE: connection refused', 'visibility did not answer within 200 ms']);
  });
});

describe("the worker's webhook metrics", () => {
  async function value(metrics: WorkerMetrics, name: string, labels: Record<string, string> = {}): Promise<number> {
    const metric = await metrics.registry.getSingleMetric(name)!.get();
    return metric.values.filter((m) => Object.entries(labels).every(([k, l]) => m.labels[k] === l)).reduce((sum, m) => sum + m.value, 0);
  }

  test("deliveries by outcome come from the workflow's sink, expired and superseded included; attempts from the activity", async () => {
    const metrics = new WorkerMetrics();
    const { settled } = metrics.sinks().webhookMetrics;
    const observer = metrics.webhookObserver();
    // An event retried three times, then given up: three attempts, one settlement (expired), no attempt reporting it.
    for (let i = 0; i < 3; i++) observer.attempt('retry', 20);
    settled.fn({} as never, 'expired');
    // A running event superseded without an attempt, and a final event delivered.
    settled.fn({} as never, 'superseded');
    observer.attempt('delivered', 15);
    settled.fn({} as never, 'delivered');
    expect(await value(metrics, 'mediagate_webhook_deliveries_total', { outcome: 'expired' })).toBe(1);
    expect(await value(metrics, 'mediagate_webhook_deliveries_total', { outcome: 'superseded' })).toBe(1);
    expect(await value(metrics, 'mediagate_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(await value(metrics, 'mediagate_webhook_deliveries_total')).toBe(3);
    expect(await value(metrics, 'mediagate_webhook_attempts_total', { outcome: 'retry' })).toBe(3);
    expect(await value(metrics, 'mediagate_webhook_attempts_total')).toBe(4);
  });

  test('two workers, one visibility: the oldest undelivered age is the same on both, and 0 on both once it is delivered', async () => {
    const values = [new Date(Date.now() - 300 * SECOND).toISOString()];
    const workers = [new WorkerMetrics(), new WorkerMetrics()];
    for (const w of workers)
      w.webhookBacklog = new WebhookBacklog(visibility(values).count, { refreshMs: 0, timeoutMs: SECOND, onError: () => undefined });
    const ages = async () => Promise.all(workers.map((w) => value(w, 'mediagate_webhook_oldest_undelivered_age_seconds')));
    const [a, b] = await ages();
    expect(a).toBeGreaterThanOrEqual(300);
    expect(Math.abs(a! - b!)).toBeLessThan(5);
    values.length = 0;
    expect(await ages()).toEqual([0, 0]);
  });

  test('without a reader (no Temporal client yet) the gauge is 0', async () => {
    expect(await value(new WorkerMetrics(), 'mediagate_webhook_oldest_undelivered_age_seconds')).toBe(0);
  });
});
