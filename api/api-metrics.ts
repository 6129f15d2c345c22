/**
 * The API's Prometheus metrics, served unauthenticated at GET /metrics (like /healthz: scrapers carry no API
 * key, and nothing here names a task, a key or a prompt).
 *
 * Metrics are per process, like the process metrics they sit beside: api/main.ts makes one ApiMetrics, with its own
 * registry (not prom-client's global one, which other libraries may write to), and hands it to the app, the start
 * path and the routes that record (the worker's are made the same way, worker/worker-metrics.ts). A test makes its
 * own. Labels are bounded sets only: the route *pattern* (never the raw path, which carries task ids), the model
 * and platform from the catalogue.
 */
import type { Next } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { uploadMemory } from './openai-videos/upload-memory';
import { recordedStatus, type AppContext, type AppMetrics } from './context';

/** Sync requests may take the whole 10-minute wait, hence the long tail of buckets. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Label for requests no route matched: their paths are arbitrary, so they share one series. */
const UNMATCHED = 'unmatched';

/** A registry with the process metrics (CPU, memory, event loop) already in it, listed first as they always were. */
function withDefaultMetrics(registry: Registry): Registry {
  collectDefaultMetrics({ register: registry });
  return registry;
}

export class ApiMetrics implements AppMetrics {
  readonly registry = withDefaultMetrics(new Registry());

  private readonly requestDuration = new Histogram({
    name: 'mediagate_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly tasksStarted = new Counter({
    name: 'mediagate_tasks_started_total',
    help: 'Generation tasks started (workflows created), by kind, model and platform',
    labelNames: ['kind', 'model', 'platform'] as const,
    registers: [this.registry],
  });

  private readonly callbacks = new Counter({
    name: 'mediagate_callbacks_total',
    help: "Platforms' announcements received at /v1/callbacks, by platform and outcome (signalled, unknown task, task already closed, refused: the platform's own failed verification or was malformed, forged: refused and naming no job of ours, rate_limited)",
    labelNames: ['platform', 'outcome'] as const,
    registers: [this.registry],
  });

  /** The worker's histogram of the same name counts its own grants; this one the grants of announced ends. */
  private readonly capacityWait = new Histogram({
    name: 'mediagate_capacity_wait_seconds',
    help: 'How long tasks waited for a slot before one was granted to them, by platform and account (granted by this API: a job the platform announced ended)',
    labelNames: ['platform', 'account'] as const,
    buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [this.registry],
  });

  private readonly syncWaits = new Gauge({
    name: 'mediagate_sync_waits_in_progress',
    help: 'Sync generation requests currently waiting for their result',
    registers: [this.registry],
  });

  private readonly eventStreams = new Gauge({
    name: 'mediagate_event_streams_open',
    help: 'Event streams (GET /v1/generations/:id/events) open on this process',
    registers: [this.registry],
  });

  private readonly eventStreamsRefused = new Counter({
    name: 'mediagate_event_streams_refused_total',
    help: "Event streams refused at a bound: too_many_streams (the key's, 429), streams_at_capacity (the process's, 503)",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    new Gauge({
      name: 'mediagate_upload_memory_bytes',
      help: 'Bytes the uploads in progress hold (POST /v1/videos forms), of UPLOADS_MAX_MEMORY_BYTES',
      registers: [this.registry],
      collect() {
        this.set(uploadMemory().holding());
      },
    });
  }

  /** An event stream began holding its slot (api/routes/events.ts). */
  streamOpened(): void {
    this.eventStreams.inc();
  }

  /** An event stream gave its slot back. */
  streamClosed(): void {
    this.eventStreams.dec();
  }

  /** An event stream refused at a bound (api/event-stream-slots.ts), by the refusal's code. */
  recordStreamRefused(reason: string): void {
    this.eventStreamsRefused.inc({ reason });
  }

  /**
   * Times every request. Mounted outside the error envelope so it sees the status the client gets. The route
   * label is the pattern the route guard recorded in ctx.state.route, else `unmatched` (404, 405, OPTIONS).
   */
  httpMetrics() {
    return async (ctx: AppContext, next: Next) => {
      const stop = this.requestDuration.startTimer();
      try {
        await next();
      } finally {
        stop({ method: ctx.method, route: ctx.state.route ?? UNMATCHED, status: String(recordedStatus(ctx)) });
      }
    };
  }

  /** GET /metrics: the Prometheus text exposition of this process. */
  async serveMetrics(ctx: AppContext): Promise<void> {
    ctx.type = this.registry.contentType;
    ctx.body = await this.registry.metrics();
  }

  /** To be called once per workflow actually started (not for an idempotent replay of an existing task). */
  recordTaskStarted(task: { kind: string; model: string; platform: string }): void {
    this.tasksStarted.inc({ kind: task.kind, model: task.model, platform: task.platform });
  }

  /** One announcement handled (api/routes/callbacks.ts). */
  recordCallback(platform: string, outcome: string): void {
    this.callbacks.inc({ platform, outcome });
  }

  /** A slot granted by this API (capacity/announced-ends.ts): how long its task had waited. */
  recordCapacityGrant(grant: { platform: string; account: string; waitedMs: number }): void {
    this.capacityWait.observe({ platform: grant.platform, account: grant.account }, grant.waitedMs / 1000);
  }

  /** Wraps a sync wait so the gauge counts it while it is pending, whichever way it ends. */
  async trackSyncWait<T>(wait: () => Promise<T>): Promise<T> {
    this.syncWaits.inc();
    try {
      return await wait();
    } finally {
      this.syncWaits.dec();
    }
  }
}
