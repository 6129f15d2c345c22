/**
 * The result-store activities (issue 13): `storeResults` copies a finished job's outputs into the gateway's result
 * store before the task becomes `success`; `cleanupResults` deletes what is past RESULT_RETENTION_DAYS (run daily
 * by the retention schedule's workflow, workflows/cleanup.ts). Platform-agnostic: they see URLs, not platforms.
 *
 * storeResults' contract with the workflow (workflows/generation.ts):
 * - returns one ResultItem per output, in the order given: `stored: true` with the key, content type, size and
 *   sha256 of the kept copy, or `stored: false` with the platform's link and the reason (`storeError`). A copy
 *   that keeps failing for the platform's reasons (bad URL, private address, too large, wrong type, timeouts,
 *   errors) never fails the activity: it is bounded here (RESULTS_COPY_ATTEMPTS, and the attempt's own
 *   start-to-close budget less a headroom), then reported `stored: false`, so nothing is lost;
 * - throws only when the store itself fails (disk, S3 unreachable): transient infrastructure, retried by Temporal;
 * - heartbeats every 2 s with progress (`bytes`) and the outputs already committed, so a retried attempt (worker
 *   killed mid-copy) keeps those and copies only the rest; each output has one deterministic key, so a repeated
 *   copy replaces its object, never adds a second one, and an interrupted one never becomes visible.
 */
import { activityInfo, cancellationSignal, heartbeat, log } from '@temporalio/activity';
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

const HEARTBEAT_EVERY_MS = 2_000;
/** Outputs copied at once (platform B returns up to 4 images; V a video and its last frame). */
const PARALLEL_COPIES = 3;
/** Returned before the attempt's start-to-close timeout by this much, so a slow copy ends as `stored: false`, not a timeout. */
const MIN_HEADROOM_MS = 10_000;

/** What a heartbeat carries, read back by the next attempt. */
interface StoreProgress {
  bytes: number;
  committed: Record<number, ResultItem>;
}

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

export function createResultActivities({ store, copier, observer }: ResultActivityDeps) {
  return {
    async storeResults(input: StoreResultsInput): Promise<ResultItem[]> {
      const startedAt = Date.now();
      const deadline = attemptDeadline(startedAt);
      const signal = cancellationSignal();
      const earlier = activityInfo().heartbeatDetails as StoreProgress | undefined;
      const progress: StoreProgress = { bytes: earlier?.bytes ?? 0, committed: { ...(earlier?.committed ?? {}) } };
      const beat = () => heartbeat(progress);
      beat();
      const ticker = setInterval(beat, HEARTBEAT_EVERY_MS);

      // Index of each output among those of its role: data[0], data[1]… and the last frame's 0.
      const roleIndex = input.outputs.map((o, i) => input.outputs.slice(0, i).filter((p) => p.role === o.role).length);
      const items: ResultItem[] = new Array(input.outputs.length);
      try {
        await inParallel(input.outputs, PARALLEL_COPIES, async (output, i) => {
          const kept = progress.committed[i];
          if (kept && kept.url === output.url) {
            items[i] = kept; // committed by an earlier attempt of this activity
            return;
          }
          const started = Date.now();
          const expected = output.role === 'last_frame' ? 'image' : input.kind;
          try {
            const copied = await copier.copy({
              url: output.url,
              expected,
              keyFor: (contentType) => resultKey(input.taskId, roleIndex[i]!, output.role, contentType),
              signal,
              deadline,
              onBytes: (n) => {
                progress.bytes += n;
              },
            });
            items[i] = { url: output.url, stored: true, key: copied.key, contentType: copied.contentType, bytes: copied.bytes, sha256: copied.sha256 };
            progress.committed[i] = items[i]!;
            beat();
            observer?.copied('stored', 'none', output.role, copied.bytes, (Date.now() - started) / 1000);
          } catch (err) {
            if (!(err instanceof CopyFailure)) throw err; // the store's failure or a cancellation: Temporal retries
            items[i] = { url: output.url, stored: false, storeError: err.message };
            observer?.copied('failed', err.reason, output.role, 0, (Date.now() - started) / 1000);
            log.warn(`Result not stored: the task keeps the platform's link (${err.reason})`, {
              taskId: input.taskId,
              platform: input.platform,
              output: i,
              role: output.role,
              reason: err.reason,
              error: err.message,
              source: redact(output.url),
            });
          }
        });
      } finally {
        clearInterval(ticker);
      }
      return items;
    },

    async cleanupResults(input: CleanupInput): Promise<CleanupReport> {
      heartbeat({ deleted: 0 });
      const report = await deleteExpiredResults(store, input, { onProgress: (deleted) => heartbeat({ deleted }) });
      observer?.cleaned(report);
      log.info(`Deleted ${report.deleted} stored results written before ${report.cutoff}`, { ...report });
      return report;
    },
  };
}
