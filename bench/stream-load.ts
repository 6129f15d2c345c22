/**
 * The load of the `streams` part (bench/streams.ts), run as a process of its own so the measuring process's event
 * loop is not the one opening thousands of sockets: one API key opening event streams on one task at a steady rate
 * for a while, as fast as its request rate allows, and keeping every stream it gets open until it ends.
 *
 *   node --import tsx bench/stream-load.ts   (settings in STREAM_LOAD as JSON: {url, secret, taskId, perSecond, seconds})
 *
 * Prints one JSON line when done: how many streams were opened and held, and how many were refused, by status.
 */
import { request, Agent, type ClientRequest } from 'node:http';

interface LoadSettings {
  url: string;
  secret: string;
  taskId: string;
  perSecond: number;
  seconds: number;
}

const settings = JSON.parse(process.env.STREAM_LOAD ?? 'null') as LoadSettings | null;
if (!settings) throw new Error('STREAM_LOAD must hold the load settings as JSON');

// Every stream on a connection of its own (an event stream holds its connection), none reused.
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const held: ClientRequest[] = [];
const outcomes: Record<string, number> = {};
const count = (what: string) => (outcomes[what] = (outcomes[what] ?? 0) + 1);

/** Opens one stream: held when the answer is 200, otherwise its answer is read and counted. */
function openOne(s: LoadSettings): Promise<void> {
  return new Promise((resolve) => {
    const req = request(
      `${s.url}/v1/generations/${s.taskId}/events`,
      { agent, headers: { Authorization: `Bearer ${s.secret}`, Accept: 'text/event-stream' } },
      (res) => {
        count(String(res.statusCode));
        if (res.statusCode === 200) {
          held.push(req);
          res.on('data', () => undefined);
        } else {
          res.resume();
        }
        resolve();
      },
    );
    req.on('error', (err) => {
      count(`error ${(err as NodeJS.ErrnoException).code ?? err.message}`);
      resolve();
    });
    req.end();
  });
}

async function main(s: LoadSettings): Promise<void> {
  const attempts = Math.round(s.perSecond * s.seconds);
  const startedAt = Date.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < attempts; i++) {
    // Paced on the clock, not on the answers: a slow server does not slow the load down.
    const due = startedAt + (i * 1000) / s.perSecond;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(openOne(s));
  }
  await Promise.all(pending);
  console.log(JSON.stringify({ attempts, held: held.length, outcomes, seconds: (Date.now() - startedAt) / 1000 }));
  for (const req of held) req.destroy();
  agent.destroy();
}

main(settings).then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
