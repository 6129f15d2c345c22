/**
 * The ledger's database: one PostgreSQL (DATABASE_URL; on the embedded default the one `npm start` runs), one
 * driver (node-postgres) and one query layer (Kysely) for keys, budgets and the ledger. Opening it runs the
 * migrations that have not run yet.
 */
import { Pool } from 'pg';
import type { Kysely } from 'kysely' with { 'resolution-mode': 'import' };
import { loadKysely, loadKyselyMigration, type KyselyModule } from './kysely';
import { ledgerMigrations } from './migrations';
import type { LedgerSchema } from './schema';

export interface LedgerDatabase {
  db: Kysely<LedgerSchema>;
  /** Kysely's module (its `sql` tag for the statements the builder cannot say). */
  k: KyselyModule;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Connections in the pool (default 10). */
  maxConnections?: number;
  /** Called with a connection error the pool reports between queries (the database restarted, …). */
  onError?: (err: Error) => void;
}

export async function openLedgerDatabase(url: string, opts: OpenOptions = {}): Promise<LedgerDatabase> {
  const k = await loadKysely();
  const pool = new Pool({ connectionString: url, max: opts.maxConnections ?? 10, connectionTimeoutMillis: 5_000 });
  // An idle connection the server dropped (a database restart) is an event, not a crash: the next query reconnects.
  pool.on('error', (err) => opts.onError?.(err));
  const db = new k.Kysely<LedgerSchema>({ dialect: new k.PostgresDialect({ pool }) });
  try {
    await migrate(db as unknown as Kysely<unknown>, k);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return { db, k, close: () => db.destroy() };
}

async function migrate(db: Kysely<unknown>, k: KyselyModule): Promise<void> {
  const migrations = ledgerMigrations(k);
  const { Migrator } = await loadKyselyMigration();
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(
      `Ledger database migration ${failed?.migrationName ?? ''} failed: ${(error as Error | undefined)?.message ?? 'see the database log'}`,
    );
  }
}
