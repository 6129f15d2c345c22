/**
 * An HTTP endpoint standing in for whoever a platform calls back (the gateway, in the simulator's own tests):
 * records every POST as it arrived and answers the statuses queued in `answers` (then 200).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** The request's path and query, as sent (a caller may give each sender a URL of its own). */
  path: string;
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
  /** Delays (ms) before answering the next calls, in order; none once empty (a slow receiver). */
  delays: number[];
  /** The body of every answer that is not a 2xx ('{}' when unset): what a receiver says when it refuses. */
  errorBody?: string;
  /** Promises the next calls' answers wait for, in order (an answer held until a test has acted); none once empty. */
  gates: Promise<unknown>[];
  close(): Promise<void>;
}

/** `port`: a fixed one (a webhook receiver whose origin the stack allows beforehand); default any free port. */
export async function startReceiver(path: string, port = 0): Promise<Receiver> {
  const got: Received[] = [];
  const answers: number[] = [];
  const delays: number[] = [];
  const gates: Promise<unknown>[] = [];
  const receiver = {} as Receiver;
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
      got.push({ path: req.url ?? '', headers: req.headers, raw, body, at: Date.now() });
      const status = answers.shift() ?? 200;
      const gate = gates.shift() ?? Promise.resolve();
      setTimeout(() => {
        void gate.then(() => {
          const body = status >= 300 && receiver.errorBody !== undefined ? receiver.errorBody : '{}';
          if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end(body);
        });
      }, delays.shift() ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${bound}${path}`,
    got,
    answers,
    delays,
    gates,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}
