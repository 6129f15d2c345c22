/**
 * The worker's capacity, a start-up step: the slot store on the ledger's database (capacity/slots.ts), each account's
 * configured limit written to it, and the dispatcher (capacity/dispatcher.ts) that wakes tasks through the worker's
 * Temporal client and sweeps what a crash leaves. Without a database there is no shared state to hold slots in: the
 * accounts' limits are not enforced, and the worker says so at start.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AccountPools } from '../activities';
import type { Kind } from '../core/task';
import { UpstreamError } from '../platforms/upstream-error';
import { SlotDispatcher, type FlexJobs, type TaskSignals } from '../capacity/dispatcher';
import { SlotStore, type ConfiguredLimit } from '../capacity/slots';
import { temporalGrantSignal } from '../capacity/temporal-grants';
import type { Logger } from '../core/logger';
import type { LedgerDatabase } from '../ledger/database';
import { PLATFORM_DEFINITIONS } from '../platforms';
import type { WorkerPlatform } from '../platforms/platform';
import type { WorkerMetrics } from './worker-metrics';

/**
 * Each enabled account's limit: its accounts-file `max_concurrent`, else PLATFORM_<X>_MAX_CONCURRENT (`unlimited`: none),
 * else the platform's documented default (T: 1), else none — unlimited until the platform's refusals teach one.
 */
export function configuredLimits(platforms: Record<string, WorkerPlatform>): ConfiguredLimit[] {
  const limits: ConfiguredLimit[] = [];
  for (const [platform, p] of Object.entries(platforms)) {
    const documented = PLATFORM_DEFINITIONS.find((d) => d.id === platform)?.concurrency?.defaultLimit ?? null;
    const platformLimit = p.maxConcurrent !== undefined ? p.maxConcurrent : documented;
    const accounts = p.accounts ?? [{ id: 'default', maxConcurrent: undefined }];
    for (const a of accounts) limits.push({ platform, account: a.id, limit: a.maxConcurrent ?? platformLimit });
  }
  return limits;
}

/**
 * Tasks in Temporal as the dispatcher reaches them: a grant is a signal; a task is open while its latest run runs. A
 * job held past its task's end is polled on the account that made it: it runs until the platform says it ended.
 */
export function temporalTaskSignals(client: Client, pools: AccountPools, log: Logger): TaskSignals {
  return {
    async jobRuns(job) {
      const adapter = pools[job.platform]?.get(job.account)?.adapter;
      if (!adapter) return false;
      try {
        const status = await adapter.poll(job.kind as Kind, job.upstreamTaskId);
        return status.state !== 'success' && status.state !== 'failed';
      } catch (err) {
        // The platform no longer knows the job: it is not running. Anything else: ask again next sweep.
        return !(err instanceof UpstreamError && err.opts.reason === 'upstream_lost');
      }
    },
    grant: temporalGrantSignal(client, log),
    async isOpen(taskId) {
      try {
        return (await client.workflow.getHandle(taskId).describe()).status.name === 'RUNNING';
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    },
  };
}

export async function openCapacity(
  ledger: LedgerDatabase | undefined,
  client: Client,
  platforms: Record<string, WorkerPlatform>,
  pools: AccountPools,
  metrics: WorkerMetrics,
  logger: Logger,
  flexJobs: FlexJobs = 'counted',
): Promise<SlotDispatcher | undefined> {
  if (!ledger) {
    logger.warn(
      'No DATABASE_URL: platform accounts run as many jobs at once as tasks arrive (their concurrency limits need the shared database)',
    );
    return undefined;
  }
  const store = new SlotStore(ledger);
  const dispatcher = new SlotDispatcher(store, temporalTaskSignals(client, pools, logger), logger, metrics.capacityObserver(), flexJobs);
  const limits = configuredLimits(platforms);
  await dispatcher.wake(await store.configure(limits));
  metrics.capacityView = store;
  logger.info(
    { limits: limits.map((l) => `${l.platform}/${l.account}: ${l.limit ?? 'unlimited until learned'}`) },
    'Platform accounts run at most their limit of jobs at once; tasks beyond it wait in a fair queue',
  );
  dispatcher.start();
  return dispatcher;
}
