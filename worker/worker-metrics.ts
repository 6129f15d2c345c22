/**
 * The worker's Prometheus metrics, on its own port (WORKER_METRICS_PORT): upstream call latency and errors by
 * platform and operation, task outcomes by platform and reason, and the process metrics. The Temporal SDK's
 * runtime metrics (task slots, poll latencies, schedule-to-start, sticky cache) are served by the Runtime's own
 * exporter on WORKER_SDK_METRICS_PORT: two scrape targets per worker, each owned by one library.
 *
 * Upstream calls are measured through the adapter decorator's observer (activities/adapter-decorator.ts), so every
 * platform is covered in one place; outcomes come from the workflow interceptor's sink (workflows/metrics-interceptor.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectedSinks } from '@temporalio/worker';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AccountHealthObserver } from '../activities/accounts';
import type { AdapterObserver } from '../activities/adapter-decorator';
import type { ResultObserver } from '../activities/store-results';
import type { WebhookObserver } from '../webhooks/activities';
import { UpstreamError } from '../platforms/upstream-error';
import type { TaskMetricsSinks } from '../workflows/metrics-interceptor';
import type { WebhookMetricsSinks } from '../workflows/sinks';

/** Upstream calls are bounded by UPSTREAM_RESPONSE_TIMEOUT_MS (30 s by default). */
const UPSTREAM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class WorkerMetrics {
  readonly registry = new Registry();

  readonly upstreamDuration = new Histogram({
    name: 'mediagate_upstream_request_duration_seconds',
    help: 'Upstream platform calls by platform, operation (submit, findSubmitted, poll, cancel) and result (ok, error)',
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

  readonly upstreamLost = new Counter({
    name: 'mediagate_upstream_lost_total',
    help: 'Tasks ended upstream_lost because their job could not be found after a lost create answer, by platform and reason (an operator must look for the job)',
    labelNames: ['platform', 'reason'] as const,
    registers: [this.registry],
  });

  readonly tasksCompleted = new Counter({
    name: 'mediagate_tasks_completed_total',
    help: 'Tasks that reached a terminal state on this worker, by platform, outcome and failure reason (none on success)',
    labelNames: ['platform', 'outcome', 'reason'] as const,
    registers: [this.registry],
  });

  /** Copies into the result store (activities/store-results.ts), one per output: stored, or failed with a reason. */
  readonly resultCopies = new Counter({
    name: 'mediagate_result_copies_total',
    help: 'Outputs copied into the result store, by outcome (stored, failed = the task keeps the platform link) and reason (none, too_large, content_type, private_address, timeout, upstream_status, network, …)',
    labelNames: ['outcome', 'reason', 'role'] as const,
    registers: [this.registry],
  });

  readonly resultCopyBytes = new Counter({
    name: 'mediagate_result_copy_bytes_total',
    help: 'Bytes written into the result store by copies that succeeded',
    registers: [this.registry],
  });

  readonly resultCopyDuration = new Histogram({
    name: 'mediagate_result_copy_duration_seconds',
    help: 'Time to copy one output into the result store (all attempts), by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });

  readonly resultsDeleted = new Counter({
    name: 'mediagate_results_deleted_total',
    help: 'Stored results deleted by the retention cleanup',
    registers: [this.registry],
  });

  /** 1 while an account is in the rotation (throttled included), 0 while it is out for its cool-down (activities/accounts.ts). */
  readonly upstreamAccountHealthy = new Gauge({
    name: 'mediagate_upstream_account_healthy',
    help: 'Platform accounts in the rotation (1) or out for a cool-down after their credentials or balance were refused (0), by platform and account id',
    labelNames: ['platform', 'account'] as const,
    registers: [this.registry],
  });

  /** Webhook attempts (webhooks/activities.ts), by outcome: delivered, gone (410), retry, superseded. */
  readonly webhookAttempts = new Counter({
    name: 'mediagate_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this worker, by outcome (delivered = 2xx, gone = 410, retry = anything else, superseded = a running event of an ended task)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'mediagate_webhook_deliveries_total',
    help: "Webhook events settled by a workflow task on this worker (a delivery workflow's, or the end step of a task that delivered its final event itself), by outcome (delivered = 2xx, gone = 410, expired = retried until the bound, superseded = a running event of a task that ended first); sum across workers",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookAttemptDuration = new Histogram({
    name: 'mediagate_webhook_attempt_duration_seconds',
    help: 'One webhook delivery attempt, from connect to the answer read (bounded by WEBHOOK_ATTEMPT_TIMEOUT_MS)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [this.registry],
  });

  /** Where the gauge below is read from (webhooks/backlog.ts); set once the worker has a Temporal client. */
  webhookBacklog: { ageSeconds(): Promise<number> } | undefined;

  /**
   * Read at scrape time from Temporal's visibility (webhooks/backlog.ts), not from this worker's memory: an
   * event's attempts move between workers, and some events settle with no attempt (expired, superseded), so only
   * the delivery workflows themselves know which events are still undelivered. Every worker reports the same value.
   */
  readonly webhookOldestUndelivered = new Gauge({
    name: 'mediagate_webhook_oldest_undelivered_age_seconds',
    help: 'Age of the oldest webhook event still being retried, across all workers (0: none); read from Temporal visibility (WebhookPendingSince), at most every 10 s',
    registers: [this.registry],
    collect: async () => {
      this.webhookOldestUndelivered.set(this.webhookBacklog ? await this.webhookBacklog.ageSeconds() : 0);
    },
  });

  /**
   * Where the capacity gauges below are read from (capacity/slots.ts SlotStore): the shared slot store, so every
   * worker reports the same values (read at scrape time); set once the database is open.
   */
  capacityView:
    | {
        view(): Promise<
          {
            platform: string;
            account: string;
            limit: number | null;
            learned: number | null;
            inUse: number;
            waiting: number;
            oldestWaitingSince: Date | null;
          }[]
        >;
        waitingByOwner(): Promise<{ owner: string; waiting: number }[]>;
      }
    | undefined;

  private capacityRead: Promise<void> | undefined;
  private capacityReadAt = 0;

  /** One read of the slot store for all the capacity gauges of a scrape (at most one a second). */
  private readCapacity(): Promise<void> {
    if (!this.capacityView) return Promise.resolve();
    if (this.capacityRead && Date.now() - this.capacityReadAt < 1_000) return this.capacityRead;
    const view = this.capacityView;
    this.capacityReadAt = Date.now();
    this.capacityRead = (async () => {
      const [accounts, owners] = await Promise.all([view.view(), view.waitingByOwner()]);
      for (const g of [this.capacityInUse, this.capacityLimit, this.capacityLearned, this.capacityWaiting, this.capacityOldestWait])
        g.reset();
      this.capacityKeyWaiting.reset();
      for (const a of accounts) {
        const labels = { platform: a.platform, account: a.account };
        this.capacityInUse.set(labels, a.inUse);
        this.capacityLimit.set(labels, a.limit ?? -1);
        if (a.learned !== null) this.capacityLearned.set(labels, a.learned);
        this.capacityWaiting.set(labels, a.waiting);
        this.capacityOldestWait.set(labels, a.oldestWaitingSince ? Math.max(0, (Date.now() - a.oldestWaitingSince.getTime()) / 1000) : 0);
      }
      for (const o of owners) this.capacityKeyWaiting.set({ key: o.owner }, o.waiting);
    })();
    return this.capacityRead;
  }

  readonly capacityInUse = new Gauge({
    name: 'mediagate_capacity_slots_in_use',
    help: 'Jobs a platform account is running or about to create (slots held), by platform and account; the same on every worker',
    labelNames: ['platform', 'account'] as const,
    registers: [this.registry],
    collect: () => this.readCapacity(),
  });

  readonly capacityLimit = new Gauge({
    name: 'mediagate_capacity_limit',
    help: 'How many jobs a platform account may run at once: the learned limit where there is one, else the configured one (-1: unlimited)',
    labelNames: ['platform', 'account'] as const,
    registers: [this.registry],
    collect: () => this.readCapacity(),
  });

  readonly capacityLearned = new Gauge({
    name: 'mediagate_capacity_learned_limit',
    help: "The limit learned from a platform account's concurrency refusals (absent: none learned)",
    labelNames: ['platform', 'account'] as const,
    registers: [this.registry],
    collect: () => this.readCapacity(),
  });

  readonly capacityWaiting = new Gauge({
    name: 'mediagate_capacity_tasks_waiting',
    help: 'Tasks waiting for a slot that this account could give them, by platform and account (a task that several accounts could serve counts on each)',
    labelNames: ['platform', 'account'] as const,
    registers: [this.registry],
    collect: () => this.readCapacity(),
  });

  readonly capacityOldestWait = new Gauge({
    name: 'mediagate_capacity_oldest_wait_seconds',
    help: 'How long the longest-waiting task that this account could serve has waited (0: none waits)',
    labelNames: ['platform', 'account'] as const,
    registers: [this.registry],
    collect: () => this.readCapacity(),
  });

  readonly capacityKeyWaiting = new Gauge({
    name: 'mediagate_capacity_key_tasks_waiting',
    help: 'Tasks waiting for platform capacity, by API key id',
    labelNames: ['key'] as const,
    registers: [this.registry],
    collect: () => this.readCapacity(),
  });

  readonly capacityWait = new Histogram({
    name: 'mediagate_capacity_wait_seconds',
    help: 'How long tasks waited for a slot before one was granted to them, by platform and account (granted by this worker)',
    labelNames: ['platform', 'account'] as const,
    buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [this.registry],
  });

  readonly capacityRefusals = new Counter({
    name: 'mediagate_capacity_refusals_total',
    help: "Creates or jobs the platform refused for an account's concurrency (each lowers the account's learned limit)",
    registers: [this.registry],
  });

  /** The slot dispatcher's observer (capacity/dispatcher.ts). */
  capacityObserver() {
    return {
      granted: (g: { platform: string; account: string; waitedMs: number }) =>
        this.capacityWait.observe({ platform: g.platform, account: g.account }, g.waitedMs / 1000),
      refusedForCapacity: () => this.capacityRefusals.inc(),
    };
  }

  /** The webhook activity's observer: attempts only (an event's fate comes from the workflows, sinks()). */
  webhookObserver(): WebhookObserver {
    return {
      attempt: (outcome, durationMs) => {
        this.webhookAttempts.inc({ outcome });
        this.webhookAttemptDuration.observe(durationMs / 1000);
      },
    };
  }

  /** Platforms whose every account is out, with why (the worker's /readyz); set once the pools exist (worker/start-up.ts). */
  platformsWithoutAccount: () => Record<string, string> = () => ({});

  /** Where the accounts' refusals go besides the logs (worker/account-states.ts); set once the database is open. */
  onAccountRefusal: NonNullable<AccountHealthObserver['refusal']> | undefined;

  /** The account pools' observer: the gauge, and `onAlert` for what an operator must act on. */
  accountHealthObserver(onAlert: (platform: string, message: string) => void): AccountHealthObserver {
    return {
      health: (platform, account, healthy) => this.upstreamAccountHealthy.set({ platform, account }, healthy ? 1 : 0),
      alert: onAlert,
      refusal: (platform, account, kind, reason) => this.onAccountRefusal?.(platform, account, kind, reason),
    };
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The result activities' observer (activities/store-results.ts). */
  resultObserver(): ResultObserver {
    return {
      copied: (outcome, reason, role, bytes, seconds) => {
        this.resultCopies.inc({ outcome, reason, role });
        if (bytes > 0) this.resultCopyBytes.inc(bytes);
        this.resultCopyDuration.observe({ outcome }, seconds);
      },
      cleaned: (report) => this.resultsDeleted.inc(report.deleted),
    };
  }

  /** What the ledger settled (tasks/settlement.ts), by platform and model — never by key (unbounded labels). */
  readonly ledgerSpend = new Counter({
    name: 'mediagate_ledger_spend_total',
    help: 'Final cost of settled tasks, in units of the currency, by platform, model and currency',
    labelNames: ['platform', 'model', 'currency'] as const,
    registers: [this.registry],
  });

  readonly ledgerTasks = new Counter({
    name: 'mediagate_ledger_tasks_total',
    help: 'Tasks settled in the ledger, by platform, model and outcome (success, failed, cancelled)',
    labelNames: ['platform', 'model', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly reconciliationDifferences = new Counter({
    name: 'mediagate_reconciliation_differences_total',
    help: 'Differences reconciliation found between the ledger and a platform account’s own record, by platform, account and kind (orphan, missing, usage, total), counted when a day’s report is written',
    labelNames: ['platform', 'account', 'kind'] as const,
    registers: [this.registry],
  });

  /** A reconciliation report written (tasks/reconciliation.ts): its differences counted once, by kind. */
  reconciled(r: { platform: string; account: string; differences: readonly { kind: string }[] }): void {
    for (const kind of ['orphan', 'missing', 'usage', 'total']) {
      const n = r.differences.filter((d) => d.kind === kind).length;
      this.reconciliationDifferences.inc({ platform: r.platform, account: r.account, kind }, n);
    }
  }

  /** The settlement observer: counts a task once, when its entry moved (a repeated settlement changes nothing). */
  ledgerObserver() {
    return (s: { settlement: string; platform: string; model: string; outcome: string; micros: number; currency?: string }) => {
      if (s.settlement !== 'settled' && s.settlement !== 'released') return;
      this.ledgerTasks.inc({ platform: s.platform, model: s.model, outcome: s.outcome });
      if (s.currency && s.micros > 0)
        this.ledgerSpend.inc({ platform: s.platform, model: s.model, currency: s.currency }, s.micros / 1_000_000);
    };
  }

  /**
   * Sinks for the workflow interceptor (task outcomes) and the workflows that settle webhook events (the delivery
   * workflow, and a task's end step that delivered its final event itself); not called during replay, so an outcome
   * is counted once, by the worker whose workflow task decided it.
   */
  sinks(): InjectedSinks<TaskMetricsSinks & WebhookMetricsSinks> {
    return {
      taskMetrics: {
        completed: {
          fn: (_info, platform, outcome, reason) => this.tasksCompleted.inc({ platform, outcome, reason }),
        },
      },
      webhookMetrics: {
        settled: {
          fn: (_info, outcome) => this.webhookDeliveries.inc({ outcome }),
        },
      },
    };
  }
}

/** Why a call failed, as a bounded label: the FailureReason for final errors, upstream_unavailable for retried ones. */
export function errorReason(err: unknown): string {
  if (err instanceof UpstreamError) return err.retryable ? 'upstream_unavailable' : err.opts.reason;
  return 'unexpected';
}

/**
 * The adapter decorator's observer (activities/adapter-decorator.ts): every call timed, every failure counted,
 * operator alerts logged loudly once per platform and code, operator notices (transient) once per platform and code.
 */
export function metricsObserver(
  metrics: WorkerMetrics,
  onAlert: (platform: string, code: string, message: string) => void,
  onNotice?: (platform: string, code: string, message: string) => void,
): AdapterObserver {
  /** `fn` at most once per platform and code (a refused account or a quota is said once, not on every task). */
  const oncePerCode = (fn?: (platform: string, code: string, message: string) => void) => {
    const said = new Set<string>();
    return (platform: string, code: string, message: string) => {
      const key = `${platform}:${code}`;
      if (said.has(key)) return;
      said.add(key);
      fn?.(platform, code, message);
    };
  };
  return {
    started(platform, operation) {
      const stop = metrics.upstreamDuration.startTimer({ platform, operation });
      return ({ error }) => {
        stop({ result: error === undefined ? 'ok' : 'error' });
        if (error !== undefined) metrics.upstreamErrors.inc({ platform, operation, reason: errorReason(error) });
      };
    },
    alert: oncePerCode(onAlert),
    notice: oncePerCode(onNotice),
  };
}

/**
 * Serves GET /metrics from `registry`, and GET /readyz: 200 while every platform has an account in the rotation,
 * 503 naming each platform whose accounts are all out (`platformsWithoutAccount`, activities/accounts.ts) — its
 * tasks wait until an account is back. Resolves once listening.
 */
export async function serveMetrics(
  registry: Registry,
  host: string,
  port: number,
  platformsWithoutAccount: () => Record<string, string> = () => ({}),
): Promise<Server> {
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method === 'GET' && path === '/readyz') {
      const out = platformsWithoutAccount();
      const ready = Object.keys(out).length === 0;
      res
        .writeHead(ready ? 200 : 503, { 'content-type': 'application/json' })
        .end(`${JSON.stringify(ready ? { status: 'ready' } : { status: 'no_account', platforms: out })}\n`);
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at GET /metrics, readiness at GET /readyz\n');
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
