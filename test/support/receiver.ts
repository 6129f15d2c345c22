/**
 * An HTTP endpoint standing in for whoever a platform calls back (the gateway, in the simulator's own tests):
 * records every POST as it arrived and answers the statuses queued in `answers` (then 200).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  /** The body exactly as sent (platforms sign the bytes). */
  raw: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  body: any;
  at: number;
}

export interface Receiver {
  url: string;
  got: Received[];
  /** Statuses for the next calls, in order; 200 once empty. */
  answers: number[];
  close(): Promise<void>;
}

export async function startReceiver(path: string): Promise<Receiver> {
  const got: Received[] = [];
  const answers: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      got.push({ headers: req.headers, raw, body, at: Date.now() });
      res.writeHead(answers.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${path}`, got, answers, close: () => new Promise((r) => server.close(() => r())) };
}
