/**
 * Part `streams`: the worst one API key may do with event streams, and what the API's other clients see meanwhile.
 * A second process (bench/stream-load.ts) opens GET /v1/generations/:id/events streams as one ordinary key (the
 * default request rate, 50/s) at 45 per second for 40 seconds and holds every stream it gets; this process
 * measures, before and during that load, GET /healthz, a task read and an async submit of another key, each asked
 * every 250 ms. Run twice on fresh stacks: with the stream bounds off (KEY_MAX_STREAMS=0, API_MAX_STREAMS=0: the
 * gateway before them) and with the defaults.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { TEST_KEYS } from '../test/support/stack';
import { apiUrl, benchStack, percentile, round, rssMiB, scrape, sleep, submitTask, videoBody } from './support';

const LOAD = { perSecond: 45, seconds: 40 };
const IDLE_SECONDS = 10;
const PROBE_EVERY_MS = 250;
const BOB = { Authorization: `Bearer ${TEST_KEYS.bob.secret}`, 'Content-Type': 'application/json' };

export interface StreamsRow {
  bounds: string;
  phase: string;
  healthz_p50_ms: number;
  healthz_p99_ms: number;
  healthz_max_ms: number;
  read_p50_ms: number;
  read_p99_ms: number;
  read_max_ms: number;
  submit_p50_ms: number;
  submit_p99_ms: number;
  submit_max_ms: number;
  probe_errors: number;
  streams_open_peak: number;
  load_answers: string;
  api_rss_peak_mib: number;
}

/** Asks `call` every PROBE_EVERY_MS until `stop` resolves; its latencies, and how many failed. */
async function probe(call: () => Promise<Response>, stop: Promise<unknown>): Promise<{ ms: number[]; errors: number }> {
  let done = false;
  void stop.then(() => (done = true));
  const ms: number[] = [];
  let errors = 0;
  while (!done) {
    const t0 = performance.now();
    try {
      const r = await call();
      await r.arrayBuffer();
      if (!r.ok) errors++;
    } catch {
      errors++;
    }
    ms.push(performance.now() - t0);
    await sleep(PROBE_EVERY_MS);
  }
  return { ms, errors };
}

const summary = (ms: number[]) => [percentile(ms, 50), percentile(ms, 99), Math.max(...ms)].map((n) => round(n, 0));

/** The load process: resolves with its summary line once it has finished and let its streams go. */
function runLoad(settings: Record<string, unknown>): Promise<{ held: number; outcomes: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'stream-load.ts')], {
      env: { ...process.env, STREAM_LOAD: JSON.stringify(settings) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`stream load exited ${code}: ${out}`)),
    );
  });
}

/** Samples the API's resident memory and open-stream gauge every second until `stop`; the peaks. */
async function sampler(base: string, pid: number | undefined, stop: Promise<unknown>): Promise<{ rssMiB: number; streams: number }> {
  let done = false;
  void stop.then(() => (done = true));
  const peak = { rssMiB: 0, streams: 0 };
  while (!done) {
    peak.rssMiB = Math.max(peak.rssMiB, rssMiB(pid));
    const page = await scrape(`${base}/metrics`).catch(() => '');
    peak.streams = Math.max(peak.streams, Number(/^mediagate_event_streams_open (\d+)/m.exec(page)?.[1] ?? 0));
    await sleep(1_000);
  }
  return peak;
}

async function measureOnce(bounds: string, env: Record<string, string>): Promise<StreamsRow[]> {
  const stack = await benchStack('streams', { env: { KEY_RATE_LIMIT_RPS: '50', ...env } });
  try {
    const base = apiUrl(stack);
    const pid = stack.apis[0]!.child.pid;
    // The key under load follows one task that runs for the whole part; the other key reads one and submits more.
    const target = await submitTask(base, 'bench stream target [sim:never]');
    const bobTask = (
      (await (
        await fetch(`${base}/v1/async/videos/generations`, {
          method: 'POST',
          headers: BOB,
          body: videoBody('bench stream reader [sim:never]'),
        })
      ).json()) as { task_id: string }
    ).task_id;
    const probes = async (stop: Promise<unknown>) => {
      const [healthz, read, submit, peak] = await Promise.all([
        probe(() => fetch(`${base}/healthz`), stop),
        probe(() => fetch(`${base}/v1/generations/${bobTask}`, { headers: BOB }), stop),
        probe(
          () => fetch(`${base}/v1/async/videos/generations`, { method: 'POST', headers: BOB, body: videoBody('bench stream probe') }),
          stop,
        ),
        sampler(base, pid, stop),
      ]);
      return { healthz, read, submit, peak };
    };
    const row = (phase: string, p: Awaited<ReturnType<typeof probes>>, loadAnswers: string): StreamsRow => {
      const [h50, h99, hmax] = summary(p.healthz.ms);
      const [r50, r99, rmax] = summary(p.read.ms);
      const [s50, s99, smax] = summary(p.submit.ms);
      return {
        bounds,
        phase,
        healthz_p50_ms: h50!,
        healthz_p99_ms: h99!,
        healthz_max_ms: hmax!,
        read_p50_ms: r50!,
        read_p99_ms: r99!,
        read_max_ms: rmax!,
        submit_p50_ms: s50!,
        submit_p99_ms: s99!,
        submit_max_ms: smax!,
        probe_errors: p.healthz.errors + p.read.errors + p.submit.errors,
        streams_open_peak: p.peak.streams,
        load_answers: loadAnswers,
        api_rss_peak_mib: p.peak.rssMiB,
      };
    };

    const rows = [row('idle', await probes(sleep(IDLE_SECONDS * 1000)), '')];
    const load = runLoad({ url: base, secret: TEST_KEYS.alice.secret, taskId: target, ...LOAD });
    const loaded = await probes(load.catch(() => undefined));
    const done = await load;
    rows.push(
      row(
        `${LOAD.perSecond}/s for ${LOAD.seconds} s`,
        loaded,
        Object.entries(done.outcomes)
          .map(([status, n]) => `${status}: ${n}`)
          .join(', '),
      ),
    );
    return rows;
  } finally {
    await stack.stop();
  }
}

export async function runStreams(): Promise<{ rows: StreamsRow[]; notes: string[] }> {
  const rows = [
    ...(await measureOnce('off (before)', { KEY_MAX_STREAMS: '0', API_MAX_STREAMS: '0' })),
    ...(await measureOnce('defaults (20 per key, 500 per API)', {})),
  ];
  return {
    rows,
    notes: [
      `load: one key (KEY_RATE_LIMIT_RPS 50) opening streams at ${LOAD.perSecond}/s for ${LOAD.seconds} s from a second process, holding each`,
      `probes: GET /healthz, GET /v1/generations/:id and POST /v1/async/videos/generations of another key, each every ${PROBE_EVERY_MS} ms, ${IDLE_SECONDS} s idle first`,
      "streams_open_peak and api_rss_peak_mib: the API's own gauge (mediagate_event_streams_open) and resident memory, sampled every second; load_answers: the statuses the load's stream requests got",
    ],
  };
}
