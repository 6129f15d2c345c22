/**
 * An API replica on a test database, for the admin API's tests: its own key store with alice's bootstrap key, the
 * stored keys read every `refreshMs`, the admin token, and whatever else the test gives it (console sessions, the
 * ledger's reads) — the real app over real HTTP, as each replica of a deployment runs it.
 */
import type { AppDeps } from '../../api/context';
import { createLogger } from '../../core/logger';
import { KeyStore, parseApiKeysEnv } from '../../keys/api-keys';
import { ManagedKeys } from '../../keys/managed-keys';
import { openLedgerDatabase, type LedgerDatabase } from '../../ledger/database';
import { SECRET, startTestApi, type TestApi } from './test-api';

export interface AdminReplica {
  api: TestApi;
  ledger: LedgerDatabase;
  managed: ManagedKeys;
  /** The replica's key store: what it authenticates with. */
  keys: KeyStore;
}

export async function startAdminReplica(
  url: string,
  opts: { adminToken: string; refreshMs: number; deps?: (ledger: LedgerDatabase) => Partial<AppDeps> },
): Promise<AdminReplica> {
  const ledger = await openLedgerDatabase(url);
  const keys = new KeyStore(parseApiKeysEnv(`alice:${SECRET}`));
  const managed = new ManagedKeys(ledger, keys, createLogger('test', 'silent'));
  await managed.start(opts.refreshMs);
  const api = await startTestApi({ deps: { keys, managedKeys: managed, adminToken: opts.adminToken, ...opts.deps?.(ledger) } });
  return { api, ledger, managed, keys };
}

export async function stopAdminReplica(r: AdminReplica): Promise<void> {
  r.managed.stop();
  await r.api.close();
  await r.ledger.close();
}
