/**
 * The age of the oldest undelivered webhook event (`mediagate_webhook_oldest_undelivered_age_seconds`), read from
 * Temporal's visibility rather than from any worker's memory.
 *
 * Why: an event's attempts are local activities of its delivery workflow, so each runs on whichever worker holds
 * that workflow at the time; a worker restart or a cache eviction moves it. A worker remembering "my last attempt
 * of this event failed" is left with a stale entry when the next attempt succeeds elsewhere, when the event
 * expires or is superseded with no attempt at all, and loses its entries when it dies while the receiver is still
 * down. Instead the delivery workflow carries the search attribute WebhookPendingSince while one of its events is
 * being retried (workflows/webhook-delivery.ts: set after a failed attempt to when the event was queued, cleared
 * when it settles, whatever the outcome), and every worker reads the oldest such value of the running delivery
 * workflows. Every worker then reports the same cluster-wide age (take the max or any one across workers).
 *
 * SQL visibility cannot sort by a custom attribute, so the oldest value is found by counting: how many running
 * deliveries have been pending since at or before t, for t stepping back from now by doubling spans, then halving
 * the last span. About 2·log2(age in seconds) counts, to within a second or 1 % of the age; none beyond the first
 * when nothing is pending. Read at most once per `refreshMs` (a scrape in between reuses the instant found, so the
 * age still grows); a failed or slow read keeps the last instant known.
 */
import { WEBHOOK_PENDING_SINCE } from '../core/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE } from '../core/webhooks';

/** Counts the workflow executions a visibility query matches (the client's workflow.count). */
export type CountWorkflows = (query: string) => Promise<number>;

const RETRYING = `WorkflowType = '${WEBHOOK_DELIVERY_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND ${WEBHOOK_PENDING_SINCE.name} IS NOT NULL`;

/** The visibility query for deliveries retrying an event queued at or before `t` (epoch ms). */
export function pendingAtOrBefore(t: number): string {
  return `${RETRYING} AND ${WEBHOOK_PENDING_SINCE.name} <= '${new Date(t).toISOString()}'`;
}

/** Doubling spans back from now: 2^45 ms is over a thousand years, far beyond any retry bound. */
const MAX_STEPS = 45;

/**
 * When the oldest event still being retried was queued (epoch ms; at or a little after the true instant, by at
 * most a second or 1 % of its age), undefined when none is.
 */
export async function oldestPendingSince(count: CountWorkflows, now: number): Promise<number | undefined> {
  if ((await count(RETRYING)) === 0) return undefined;
  const pendingBy = async (t: number) => (await count(pendingAtOrBefore(t))) > 0;
  // Queued "after now" by the clock of the worker that wrote it: as good as new.
  if (!(await pendingBy(now))) return now;
  let hi = now; // some event was queued at or before hi
  let lo: number | undefined; // none was queued at or before lo
  for (let step = 1_000, i = 0; i < MAX_STEPS && lo === undefined; step *= 2, i++) {
    if (await pendingBy(now - step)) hi = now - step;
    else lo = now - step;
  }
  if (lo === undefined) return hi;
  while (hi - lo > Math.max(1_000, (now - hi) / 100)) {
    const mid = Math.floor((lo + hi) / 2);
    if (await pendingBy(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

export interface WebhookBacklogOptions {
  /** Read visibility at most this often; scrapes in between reuse the instant last found. */
  refreshMs: number;
  /** A read taking longer is abandoned for this scrape (the last instant known is kept). */
  timeoutMs: number;
  onError(err: unknown): void;
  now?: () => number;
}

export class WebhookBacklog {
  private since: number | undefined;
  private readAt = -Infinity;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly count: CountWorkflows,
    private readonly opts: WebhookBacklogOptions,
  ) {}

  /** Seconds since the oldest undelivered event was queued; 0 when none is. */
  async ageSeconds(): Promise<number> {
    const now = (this.opts.now ?? Date.now)();
    if (now - this.readAt >= this.opts.refreshMs) {
      this.readAt = now;
      this.reading ??= this.read(now).finally(() => {
        this.reading = undefined;
      });
      await this.reading;
    }
    return this.since === undefined ? 0 : Math.max(0, (now - this.since) / 1000);
  }

  private async read(now: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`visibility did not answer within ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
    });
    try {
      this.since = await Promise.race([oldestPendingSince(this.count, now), timeout]);
    } catch (err) {
      this.opts.onError(err);
    } finally {
      clearTimeout(timer);
    }
  }
}
