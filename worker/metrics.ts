/**
 * The worker's Prometheus metrics, on its own port (WORKER_METRICS_PORT): upstream call latency and errors by
 * platform and operation, task outcomes by platform and reason, and the process metrics. The Temporal SDK's
 * runtime metrics (task slots, poll latencies, schedule-to-start, sticky cache) are served by the Runtime's own
 * exporter on WORKER_SDK_METRICS_PORT: two scrape targets per worker, each owned by one library.
 *
 * Upstream calls are measured by decorating the platform adapters, so every activity is covered without the
 * activities knowing; outcomes come from the workflow interceptor's sink (workflows/metrics-interceptor.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectedSinks } from '@temporalio/worker';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { PlatformAdapter } from '../activities/adapter';
import type { Adapters } from '../activities/adapters';
import { UpstreamError } from '../activities/errors';
import type { Platform } from '../core/platforms';
import type { TaskMetricsSinks } from '../workflows/metrics-interceptor';

/** Upstream calls are bounded by UPSTREAM_RESPONSE_TIMEOUT_MS (30 s by default). */
const UPSTREAM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class WorkerMetrics {
  readonly registry = new Registry();

  readonly upstreamDuration = new Histogram({
    name: 'mediagate_upstream_request_duration_seconds',
    help: 'Upstream platform calls by platform, operation (submit, poll, cancel) and result (ok, error)',
    labelNames: ['platform', 'operation', 'result'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers: [this.registry],
  });

  readonly upstreamErrors = new Counter({
    name: 'mediagate_upstream_errors_total',
    help: 'Failed upstream calls by platform, operation and reason (upstream_unavailable = retried; unexpected = not an UpstreamError)',
    labelNames: ['platform', 'operation', 'reason'] as const,
    registers: [this.registry],
  });

  readonly tasksCompleted = new Counter({
    name: 'mediagate_tasks_completed_total',
    help: 'Tasks that reached a terminal state on this worker, by platform, outcome and failure reason (none on success)',
    labelNames: ['platform', 'outcome', 'reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Sinks for the workflow interceptor; not called during replay, so an outcome is counted once. */
  sinks(): InjectedSinks<TaskMetricsSinks> {
    return {
      taskMetrics: {
        completed: {
          fn: (_info, platform, outcome, reason) => this.tasksCompleted.inc({ platform, outcome, reason }),
        },
      },
    };
  }
}

type Operation = keyof PlatformAdapter;

/** Why a call failed, as a bounded label: the FailureReason for final errors, upstream_unavailable for retried ones. */
export function errorReason(err: unknown): string {
  if (err instanceof UpstreamError) return err.retryable ? 'upstream_unavailable' : err.opts.reason;
  return 'unexpected';
}

/** Wraps each adapter so that every submit, poll and cancel is timed and its failures counted. */
export function instrumentAdapters(adapters: Adapters, metrics: WorkerMetrics): Adapters {
  const out: Adapters = {};
  for (const [platform, adapter] of Object.entries(adapters) as [Platform, PlatformAdapter][]) {
    const timed =
      <A extends unknown[], R>(operation: Operation, call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        const stop = metrics.upstreamDuration.startTimer({ platform, operation });
        try {
          const result = await call(...args);
          stop({ result: 'ok' });
          return result;
        } catch (err) {
          stop({ result: 'error' });
          metrics.upstreamErrors.inc({ platform, operation, reason: errorReason(err) });
          throw err;
        }
      };
    out[platform] = {
      submit: timed('submit', adapter.submit.bind(adapter)),
      poll: timed('poll', adapter.poll.bind(adapter)),
      cancel: timed('cancel', adapter.cancel.bind(adapter)),
    };
  }
  return out;
}

/** Serves GET /metrics from `registry` on host:port; resolves once listening. */
export async function serveMetrics(registry: Registry, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function boundPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}
