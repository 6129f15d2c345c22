/**
 * One port in front of several API processes (`npm run cluster`, the topology test): a TCP round-robin balancer,
 * as a load balancer sits in front of API replicas in production. It works on connections, not on HTTP, so
 * nothing of a request is rewritten or buffered: sync waits of up to 10 minutes, event streams and uploads pass as
 * they are. A backend that refuses the connection (stopped, killed, restarting) is skipped for the next; a
 * connection already open to a backend that dies is closed, and the client reconnects — with the same
 * Idempotency-Key, it gets the same task (docs/api.md).
 *
 * Hand-written (about 40 lines) rather than a dependency: Node's `net` does the work, and the HTTP proxies on npm
 * (http-proxy and its forks) parse and re-send HTTP, which is what this must not do.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Balancer {
  port: number;
  stop(): Promise<void>;
}

export async function startBalancer(opts: { host: string; port: number; backends: () => readonly number[] }): Promise<Balancer> {
  let next = 0;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    const backends = opts.backends();
    const tryBackend = (tried: number) => {
      if (tried >= backends.length) return client.destroy();
      const port = backends[next++ % backends.length]!;
      const upstream = connect({ host: '127.0.0.1', port });
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        open.add(upstream);
        upstream.once('close', () => client.destroy());
        client.once('close', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
      });
      // Before it connected (refused: nothing listens there): the next backend, until each was tried once.
      // After: the backend went away mid-connection, and so does the client's.
      upstream.on('error', () => (connected ? client.destroy() : tryBackend(tried + 1)));
      upstream.once('close', () => open.delete(upstream));
    };
    tryBackend(0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
