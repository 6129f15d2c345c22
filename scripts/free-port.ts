/** A TCP port free on 127.0.0.1 right now, chosen by the OS (for the parts a script or a test starts). */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return listenOnce(0);
}

/**
 * A free port at most `max`: for a program that stores its ports in a narrower type than the OS hands out (the
 * Temporal server keeps membership ports in a PostgreSQL SMALLINT, so ≤ 32767, below Linux's ephemeral range).
 * Tries random ports from 10000 up.
 */
export async function freePortAtMost(max: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (max - 10_000 + 1));
    const got = await listenOnce(port).catch(() => undefined);
    if (got !== undefined) return got;
  }
  throw new Error(`no free port between 10000 and ${max}`);
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const addr = srv.address();
      const got = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(got));
    });
  });
}
