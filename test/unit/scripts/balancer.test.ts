/** scripts/balancer.ts: one port in front of several API processes, over real sockets. */
import { createServer, type Server } from 'node:http';
import { startBalancer, type Balancer } from '../../../scripts/balancer';
import { freePort } from '../../../scripts/free-port';

/** An HTTP server that answers its name; `/hold` answers only when released (a long sync wait). */
async function backend(name: string): Promise<{ port: number; server: Server; release: () => void }> {
  const held: (() => void)[] = [];
  const server = createServer((req, res) => {
    const answer = () => res.end(name);
    if (req.url === '/hold') held.push(answer);
    else answer();
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return { port, server, release: () => held.splice(0).forEach((f) => f()) };
}

const close = (s: Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });

let a: Awaited<ReturnType<typeof backend>>;
let b: Awaited<ReturnType<typeof backend>>;
let lb: Balancer;
let backends: number[];

beforeEach(async () => {
  [a, b] = await Promise.all([backend('a'), backend('b')]);
  backends = [a.port, b.port];
  lb = await startBalancer({ host: '127.0.0.1', port: 0, backends: () => backends });
});
afterEach(async () => {
  await lb.stop();
  await Promise.all([a, b].map((x) => (x.server.listening ? close(x.server) : undefined)));
});

// A fresh connection per request (no keep-alive pool), as each client of the balancer would open its own.
const get = (path = '/') => fetch(`http://127.0.0.1:${lb.port}${path}`, { headers: { connection: 'close' } }).then((r) => r.text());

test('connections go to the backends in turn, the bytes passed through unchanged', async () => {
  const answers = [];
  for (let i = 0; i < 6; i++) answers.push(await get());
  expect(answers.sort()).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
});

test('a backend that refuses connections (stopped) is skipped: every request reaches the other', async () => {
  await close(a.server);
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await get());
  expect(answers).toEqual(['b', 'b', 'b', 'b', 'b']);
});

test('a connection open to a backend that dies is closed, and the client reconnecting reaches the other', async () => {
  // Which backend takes the held request depends on the turn: hold one on each, then kill a.
  const held = [get('/hold').catch((e: Error) => `closed: ${e.message}`), get('/hold').catch((e: Error) => `closed: ${e.message}`)];
  await new Promise((r) => setTimeout(r, 200));
  await close(a.server);
  b.release();
  const outcomes = await Promise.all(held);
  expect(outcomes.sort()).toEqual(['b', expect.stringMatching(/^closed: /)]);
  expect(await get()).toBe('b');
});

test('with no backend listening, the client connection is closed rather than left hanging', async () => {
  backends = [await freePort()];
  await expect(get()).rejects.toThrow();
});
