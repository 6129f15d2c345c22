/**
 * The result store's side of the activities: `keepOutputs` copies a finished job's outputs into the
 * gateway's result store before the task becomes `success` — called by the poll that finds the job done
 * (activities/index.ts, pollGeneration, a local activity), so a task ends in the workflow task that learnt of its
 * end; `cleanupResults` deletes what is past RESULT_RETENTION_DAYS (run daily by the retention schedule's workflow,
 * workflows/cleanup.ts). Platform-agnostic: they see URLs, not platforms.
 *
 * keepOutputs' contract with the workflow (workflows/generation.ts):
 * - returns one ResultItem per output, in the order given: `stored: true` with the key, content type, size and
 *   sha256 of the kept copy, or `stored: false` with the platform's link and the reason (`storeError`). Nothing
 *   is lost and the task still succeeds: a copy that keeps failing for the platform's reasons (bad URL, private
 *   address, too large, wrong type, timeouts, errors) is bounded (RESULTS_COPY_ATTEMPTS, and the poll's own
 *   budget less a headroom), and so is the store itself failing (disk, S3 unreachable: STORE_ATTEMPTS tries a
 *   little apart), each then reported `stored: false`;
 * - each output has one deterministic key, so a repeated copy (the poll run again after its worker died)
 *   replaces its object, never adds a second one, and an interrupted one never becomes visible.
 */
import { activityInfo, cancellationSignal, heartbeat, log, sleep } from '@temporalio/activity';
import type { ResultItem, StoreResultsInput } from '../core/task';
import { CopyFailure, redact, type ResultCopier } from '../results/copy';
import { resultKey, type OutputRole, type ResultStore } from '../results/result-store';
import { deleteExpiredResults, type CleanupInput, type CleanupReport } from '../results/retention';

/** What the worker's metrics (worker/worker-metrics.ts) learn from these activities. */
export interface ResultObserver {
  copied(outcome: 'stored' | 'failed', reason: string, role: OutputRole, bytes: number, seconds: number): void;
  cleaned(report: CleanupReport): void;
}

export interface ResultActivityDeps {
  store: ResultStore;
  copier: ResultCopier;
  observer?: ResultObserver;
}

/** Outputs copied at once (platform B returns up to 4 images; V a video and its last frame). */
const PARALLEL_COPIES = 3;
/** Returned before the attempt's start-to-close timeout by this much, so a slow copy ends as `stored: false`, not a timeout. */
const MIN_HEADROOM_MS = 10_000;
/** Tries of one output while the store itself fails (disk, S3 unreachable), 2 s then 4 s apart, before `stored: false`. */
export const STORE_ATTEMPTS = 3;
const STORE_RETRY_MS = 2_000;

/** When this attempt must be done: inside start-to-close (and schedule-to-close, if set), less a headroom. */
function attemptDeadline(startedAt: number): number {
  const info = activityInfo();
  const ends = [startedAt + (info.startToCloseTimeoutMs || 10 * 60_000)];
  if (info.scheduleToCloseTimeoutMs > 0) ends.push(info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs);
  const end = Math.min(...ends);
  const headroom = Math.max(MIN_HEADROOM_MS, Math.min(30_000, (end - startedAt) * 0.1));
  return end - headroom;
}

async function inParallel<T>(items: T[], limit: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

/** Copies a finished job's outputs into the result store (the contract above); called inside the poll activity. */
export function createResultKeeper({ copier, observer }: Pick<ResultActivityDeps, 'copier' | 'observer'>) {
  return async function keepOutputs(input: StoreResultsInput): Promise<ResultItem[]> {
    const deadline = attemptDeadline(Date.now());
    const signal = cancellationSignal();
    // Index of each output among those of its role: data[0], data[1]… and the last frame's 0.
    const roleIndex = input.outputs.map((o, i) => input.outputs.slice(0, i).filter((p) => p.role === o.role).length);
    const items: ResultItem[] = new Array(input.outputs.length);
    await inParallel(input.outputs, PARALLEL_COPIES, async (output, i) => {
      const started = Date.now();
      const expected = output.role === 'last_frame' ? 'image' : input.kind;
      const notKept = (reason: string, message: string) => {
        items[i] = { url: output.url, stored: false, storeError: message };
        observer?.copied('failed', reason, output.role, 0, (Date.now() - started) / 1000);
        log.warn(`Result not stored: the task keeps the platform's link (${reason})`, {
          taskId: input.taskId,
          platform: input.platform,
          output: i,
          role: output.role,
          reason,
          error: message,
          source: redact(output.url),
        });
      };
      for (let attempt = 1; ; attempt++) {
        try {
          const copied = await copier.copy({
            url: output.url,
            expected,
            keyFor: (contentType) => resultKey(input.taskId, roleIndex[i]!, output.role, contentType),
            signal,
            deadline,
          });
          items[i] = {
            url: output.url,
            stored: true,
            key: copied.key,
            contentType: copied.contentType,
            bytes: copied.bytes,
            sha256: copied.sha256,
          };
          observer?.copied('stored', 'none', output.role, copied.bytes, (Date.now() - started) / 1000);
          return;
        } catch (err) {
          if (err instanceof CopyFailure) return notKept(err.reason, err.message);
          if (signal.aborted) throw err; // the poll was cancelled (its worker stopping): Temporal runs it again
          // The store itself failed: a few tries, then the platform's link, so the task still succeeds.
          const wait = STORE_RETRY_MS * 2 ** (attempt - 1);
          if (attempt >= STORE_ATTEMPTS || Date.now() + wait >= deadline)
            return notKept('store_unavailable', `The result store failed: ${(err as Error).message}`);
          await sleep(wait);
        }
      }
    });
    return items;
  };
}

export function createResultActivities({ store, observer }: Pick<ResultActivityDeps, 'store' | 'observer'>) {
  return {
    async cleanupResults(input: CleanupInput): Promise<CleanupReport> {
      heartbeat({ deleted: 0 });
      const report = await deleteExpiredResults(store, input, { onProgress: (deleted) => heartbeat({ deleted }) });
      observer?.cleaned(report);
      log.info(`Deleted ${report.deleted} stored results written before ${report.cutoff}`, { ...report });
      return report;
    },
  };
}
