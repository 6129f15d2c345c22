/**
 * TCP ports free on 127.0.0.1 right now, for the parts a script or a test starts.
 *
 * Chosen below the OS's ephemeral range where it can be read (Linux: 32768–60999 by default): a port the OS hands
 * out for `listen(0)` comes from that range, which is also where every outgoing connection takes its local port,
 * so a port found free a moment ago could be taken by some process's connection before the part that was meant
 * to listen on it started (seen in CI as `EADDRINUSE` on an API's port). Below the range only a listener can
 * take it. A port handed out once is not handed out again by this process.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 10_000;
const handedOut = new Set<number>();

/** The first port of the OS's ephemeral range, or undefined where it cannot be read (not Linux). */
export function ephemeralLow(): number | undefined {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return low !== undefined && Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  // Too narrow a range below the ephemeral ports (a host that lowered it): the OS's own choice instead.
  if (low === undefined || low - LOWEST < 5_000) return listenOnce(0);
  return freePortAtMost(low - 1);
}

/**
 * A free port at most `max`: for a program that stores its ports in a narrower type than the OS hands out (the
 * Temporal server keeps membership ports in a PostgreSQL SMALLINT, so ≤ 32767), and for freePort above. Tries
 * random ports from 10000 up.
 */
export async function freePortAtMost(max: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (max - LOWEST + 1));
    if (handedOut.has(port)) continue;
    // Taken before the check, so that concurrent calls (Promise.all) never hand out the same port twice.
    handedOut.add(port);
    const got = await listenOnce(port).catch(() => undefined);
    if (got !== undefined) return got;
  }
  throw new Error(`no free port between ${LOWEST} and ${max}`);
}

/** Whether `port` is free on 127.0.0.1 right now (nothing listens on it). */
export async function portIsFree(port: number): Promise<boolean> {
  return (await listenOnce(port).catch(() => undefined)) !== undefined;
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
