/**
 * Where a platform's calls go on this worker (activities/index.ts): its adapter, its accounts (activities/accounts.ts;
 * one account where no pool is configured), and the account that owns a job. A platform or an account this worker
 * lacks is a retryable failure, so a worker of the fleet that has it takes the task.
 */
import { ApplicationFailure, log } from '@temporalio/activity';
import type { PlatformAdapter } from '../platforms/platform';
import { AccountPool } from './accounts';

/** Each platform's adapter, and each platform's accounts (activities/index.ts Adapters, AccountPools). */
type Adapters = Partial<Record<string, PlatformAdapter>>;
type AccountPools = Partial<Record<string, AccountPool>>;

/**
 * Where a platform's calls go on this worker: its adapter, its account pool (a single account where no pool is
 * configured), and the adapter of the account that owns a job.
 */
export function accountRouting(adapters: Adapters, pools: AccountPools) {
  function adapterFor(platform: string): PlatformAdapter {
    const adapter = adapters[platform];
    if (!adapter) {
      // A worker whose configuration lacks a platform the API offers (PLATFORMS_ENABLED differs across the
      // fleet): retryable, so another, correctly configured worker picks the task up, and loud.
      const message = `Platform ${platform} is not configured on this worker (PLATFORMS_ENABLED); another worker must take this task`;
      log.error(message, { platform });
      throw ApplicationFailure.create({ type: 'platform_not_configured', message, nonRetryable: false });
    }
    return adapter;
  }

  const singles: AccountPools = {};
  function poolFor(platform: string): AccountPool {
    const pool = pools[platform] ?? singles[platform];
    if (pool) return pool;
    return (singles[platform] = AccountPool.single(platform, adapterFor(platform)));
  }

  /** The adapter of the account that owns a job: polls, cancels and lookups go where the job was created. */
  function accountAdapter(platform: string, account: string | undefined): PlatformAdapter {
    const found = poolFor(platform).get(account);
    if (!found) {
      // The task's account was removed from this worker's accounts file (or the fleet's files differ): retryable,
      // so a worker that has it takes the task, and loud. Its job is on that account alone.
      const message = `Account ${account} of platform ${platform} is not configured on this worker (PLATFORM_${platform}_ACCOUNTS_FILE); its jobs can only be read through it`;
      log.error(message, { platform, account });
      throw ApplicationFailure.create({ type: 'account_not_configured', message, nonRetryable: false });
    }
    return found.adapter;
  }

  return { adapterFor, poolFor, accountAdapter };
}
