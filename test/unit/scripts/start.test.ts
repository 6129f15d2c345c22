/**
 * `npm start`'s banner prints a secret only when it generated the key itself, and its PostgreSQL takes another port
 * when the default one is taken, saying so (scripts/start.ts).
 */
import { createServer, type AddressInfo } from 'node:net';
import { freePort, portIsFree } from '../../../scripts/free-port';
import { adminLine, embeddedPostgresPort, keyLine, simulatedLine } from '../../../scripts/start';
import { loadWorkerConfig } from '../../../worker/worker-config';

test('the generated key is shown, with where it is kept', () => {
  expect(keyLine('local:sk-abc123')).toBe('API key:     sk-abc123   (kept in data/dev-api-key)');
});

test("an operator's own keys (API_KEYS) are never printed", () => {
  expect(keyLine(undefined)).toBe('API key:     one of API_KEYS (not shown)');
});

test('the simulator line names the port the simulator listens on (SIM_PORT), not 8090', () => {
  const worker = loadWorkerConfig({ SIM_PORT: '9123' });
  expect(simulatedLine(['T', 'V'], worker.SIM_BASE_URL)).toBe('Simulated:   platforms T, V (simulator at http://127.0.0.1:9123)');
  expect(simulatedLine([], worker.SIM_BASE_URL)).toBe('Simulated:   none');
});

test("the admin token npm start made is shown, with where it is kept; an operator's ADMIN_TOKEN never is", () => {
  expect(adminLine('tok-0123456789abcdef0123456789abcdef')).toBe(
    'Admin token: tok-0123456789abcdef0123456789abcdef   (kept in data/dev-admin-token)',
  );
  expect(adminLine(undefined)).toBe('Admin token: ADMIN_TOKEN (not shown)');
});

describe("the embedded PostgreSQL's port (EMBEDDED_POSTGRES_PORT)", () => {
  /** A port something listens on, for the length of `fn`. */
  async function whileTaken<T>(fn: (port: number) => Promise<T>): Promise<T> {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      return await fn((srv.address() as AddressInfo).port);
    } finally {
      await new Promise((r) => srv.close(r));
    }
  }

  test('free: that port, said nothing of', async () => {
    const port = await freePort();
    expect(await embeddedPostgresPort(port, false)).toEqual({ port });
  });

  test('the default taken: a free one instead, and the start says which and what chooses it', async () => {
    await whileTaken(async (taken) => {
      const chosen = await embeddedPostgresPort(taken, false);
      expect(chosen.port).not.toBe(taken);
      expect(await portIsFree(chosen.port)).toBe(true);
      expect(chosen.note).toBe(
        `Port ${taken}, the embedded PostgreSQL's default, is in use: it listens on 127.0.0.1:${chosen.port} instead (EMBEDDED_POSTGRES_PORT chooses one)`,
      );
    });
  });

  test("the operator's own port taken: an error naming the variable to change", async () => {
    await whileTaken(async (taken) => {
      await expect(embeddedPostgresPort(taken, true)).rejects.toThrow(
        `port ${taken} (EMBEDDED_POSTGRES_PORT) is in use on 127.0.0.1: set EMBEDDED_POSTGRES_PORT to a free port`,
      );
    });
  });
});
