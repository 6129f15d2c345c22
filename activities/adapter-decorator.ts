/**
 * What every platform adapter gets without writing it: one decorator, applied by the worker to each adapter.
 *
 * - Timing and failure counts of every call, reported to an observer (the worker's Prometheus metrics).
 * - The operator alert: a credentials or balance failure (`upstream_auth`, `insufficient_balance`) means a
 *   human must act, so it is reported loudly, once per platform and code, whichever platform raised it.
 * - The operator notice: a transient failure an operator should still hear of (`operatorNotice`, e.g. a usage
 *   quota that resets later): the call is retried as usual, and the notice says so — it is not the alert above.
 * - Cancel never fails on a final answer: a job that can no longer be cancelled (already running or finished,
 *   or unknown) has nothing left to undo, and the answer is `false` (not cancelled: the platform bills the job);
 *   only transient errors propagate, to be retried.
 */
import type { PlatformAdapter } from '../platforms/platform';
import { UpstreamError } from '../platforms/upstream-error';

export type AdapterOperation = 'submit' | 'findSubmitted' | 'poll' | 'cancel' | 'pullEvents' | 'confirmEvents' | 'records';

export interface AdapterObserver {
  /** Called when a call starts; the returned function is called once when it ends. */
  started(platform: string, operation: AdapterOperation): (outcome: { error?: unknown }) => void;
  /** A failure an operator must act on (bad credentials, no balance). */
  alert(platform: string, code: string, message: string): void;
  /** A transient failure an operator should know of (a usage quota): the task is retried, nothing has failed. */
  notice?(platform: string, code: string, message: string): void;
}

function needsOperator(err: unknown): err is UpstreamError {
  return err instanceof UpstreamError && (err.opts.reason === 'upstream_auth' || err.opts.reason === 'insufficient_balance');
}

export function decorateAdapter(platform: string, adapter: PlatformAdapter, observer: AdapterObserver): PlatformAdapter {
  const observed =
    <A extends unknown[], R>(operation: AdapterOperation, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const done = observer.started(platform, operation);
      try {
        const result = await call(...args);
        done({});
        return result;
      } catch (error) {
        done({ error });
        if (needsOperator(error)) observer.alert(platform, error.opts.code ?? error.opts.reason, error.message);
        else if (error instanceof UpstreamError && error.retryable && error.opts.operatorNotice)
          observer.notice?.(platform, error.opts.code ?? error.opts.reason, error.message);
        throw error;
      }
    };

  const decorated: PlatformAdapter = {
    ...(adapter.dedupSubmit ? { dedupSubmit: true } : {}),
    ...(adapter.account !== undefined ? { account: adapter.account } : {}),
    submit: observed('submit', adapter.submit.bind(adapter)),
    poll: observed('poll', adapter.poll.bind(adapter)),
  };
  if (adapter.findSubmitted) decorated.findSubmitted = observed('findSubmitted', adapter.findSubmitted.bind(adapter));
  if (adapter.records) {
    const records = adapter.records;
    decorated.records = { jobs: observed('records', records.jobs.bind(records)), job: observed('records', records.job.bind(records)) };
  }
  if (adapter.dayTotals) {
    const totals = adapter.dayTotals;
    decorated.dayTotals = { source: totals.source, quantities: totals.quantities, day: observed('records', totals.day.bind(totals)) };
  }
  if (adapter.events) {
    const events = adapter.events;
    decorated.events = {
      pull: observed('pullEvents', events.pull.bind(events)),
      confirm: observed('confirmEvents', events.confirm.bind(events)),
    };
  }
  if (adapter.cancel) {
    const cancel = observed('cancel', adapter.cancel.bind(adapter));
    decorated.cancel = async (kind, id) => {
      try {
        return await cancel(kind, id);
      } catch (err) {
        if (err instanceof UpstreamError && !err.retryable) return false;
        throw err;
      }
    };
  }
  return decorated;
}
