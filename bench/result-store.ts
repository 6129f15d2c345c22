/**
 * `npm run bench -- results`: the copy into the result store, directory and S3 side by side.
 *
 * The platform's storage is a second process (bench/byte-server.ts) streaming N MB over 127.0.0.1; the copy is
 * the worker's own code (results/copy.ts ResultCopier, the same limits and stores) running in this process, so
 * its memory is this process's RSS. S3 is a real MinIO (scripts/minio.ts) on 127.0.0.1 with its data on disk.
 *
 * - 20 MB × 15 copies per store: p50/p90 time and throughput — the time the copy adds before a video task
 *   becomes `success` (and so to a sync wait), not counting the activity's scheduling;
 * - one 200 MB copy per store with RSS sampled every 25 ms: flat means the bytes stream through, never held.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ResultCopier } from '../results/copy';
import { DirectoryResultStore } from '../results/directory-store';
import { resultKey, type ResultStore } from '../results/result-store';
import { S3ResultStore } from '../results/s3-store';
import { startMinio } from '../scripts/minio';
import { Client, Connection } from '@temporalio/client';
import { AUTH, apiUrl, benchStack, percentile, round, VIDEO_MODEL } from './support';

const MB = 1024 * 1024;

async function byteServer(): Promise<{ origin: string; pid: number; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'byte-server.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (l) => resolve(Number(/port (\d+)/.exec(l)?.[1])));
    child.once('exit', () => reject(new Error('byte server exited')));
  });
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

function rssMiB(): number {
  return round(process.memoryUsage.rss() / MB);
}

async function measure(name: string, store: ResultStore, origin: string) {
  const copier = new ResultCopier(store, {
    maxBytes: 2 * 1024 * MB,
    connectTimeoutMs: 10_000,
    idleTimeoutMs: 30_000,
    attemptTimeoutMs: 300_000,
    attempts: 1,
    allowPrivateOrigins: new Set([origin]),
  });
  const copy = (bytes: number, i: number) =>
    copier.copy({
      url: `${origin}/bytes/${bytes}`,
      expected: 'video',
      keyFor: (ct) => resultKey(`bench_${name.replace(/\W+/g, '_')}_${i}`, 0, 'result', ct),
    });

  await copy(20 * MB, 999); // warm-up: connections, JIT
  const start = rssMiB();
  let peak20 = start;
  const sampler20 = setInterval(() => (peak20 = Math.max(peak20, rssMiB())), 25);
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    const res = await copy(20 * MB, i);
    times.push(performance.now() - t0);
    if (res.bytes !== 20 * MB) throw new Error(`copied ${res.bytes} bytes`);
  }
  clearInterval(sampler20);
  const p50 = percentile(times, 50);

  global.gc?.();
  const before = rssMiB();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 25);
  const t0 = performance.now();
  await copy(200 * MB, 1000);
  const bigMs = performance.now() - t0;
  clearInterval(sampler);
  await copier.close();
  return {
    store: name,
    '20 MB p50 ms': round(p50),
    '20 MB p90 ms': round(percentile(times, 90)),
    '20 MB MB/s (p50)': round(20 / (p50 / 1000)),
    '200 MB s': round(bigMs / 1000, 2),
    '200 MB MB/s': round(200 / (bigMs / 1000)),
    'RSS before MiB': start,
    'RSS peak, 20 MB copies MiB': peak20,
    'RSS peak, 200 MB copy MiB': peak,
    'RSS growth, 200 MB MiB': round(peak - Math.min(start, before)),
  };
}

/**
 * The copy's fixed cost inside a real task: sync video requests on a stack (the simulator's 2 KB result), and
 * from each task's history the local activity of its last poll (which found the job done and kept its outputs)
 * beside its other polls: the difference is the copy.
 */
async function activityOverhead(): Promise<Record<string, unknown>> {
  const stack = await benchStack('results', { simJobDurationMs: 300 });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const finalPolls: number[] = [];
    const otherPolls: number[] = [];
    const syncs: number[] = [];
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      const res = await fetch(`${apiUrl(stack)}/v1/videos/generations`, {
        method: 'POST',
        headers: AUTH,
        body: JSON.stringify({ model: VIDEO_MODEL, prompt: `bench results ${i}`, duration: 5 }),
      });
      const body = (await res.json()) as { task_id: string; data: { url: string; stored?: false }[] };
      syncs.push(performance.now() - t0);
      if (res.status !== 200 || body.data[0]!.stored === false) throw new Error(`sync request ${i}: ${res.status} ${JSON.stringify(body)}`);
      const polls = await pollDurations(client, body.task_id);
      if (i >= 2) {
        finalPolls.push(polls.at(-1)!);
        otherPolls.push(...polls.slice(0, -1));
      }
    }
    return {
      'last poll (poll + copy), p50 ms': percentile(finalPolls, 50),
      'last poll, p90 ms': percentile(finalPolls, 90),
      'other polls, p50 ms': percentile(otherPolls, 50),
      'sync video request (300 ms job), p50 ms': round(percentile(syncs.slice(2), 50)),
      samples: finalPolls.length,
    };
  } finally {
    await connection.close();
    await stack.stop();
  }
}

/** How long each poll's local activity took (its marker's schedule → complete times), in order. */
async function pollDurations(client: Client, taskId: string): Promise<number[]> {
  const events = (await client.workflow.getHandle(taskId).fetchHistory()).events ?? [];
  const ms = (t: { seconds: number | string; nanos: number } | undefined) => (t ? Number(t.seconds) * 1000 + t.nanos / 1e6 : NaN);
  return events
    .map((e) => e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data)
    .filter((d): d is Uint8Array => d != null)
    .map(
      (d) =>
        JSON.parse(Buffer.from(d).toString('utf8')) as {
          activity_type: string;
          original_schedule_time?: { seconds: number; nanos: number };
          complete_time?: { seconds: number; nanos: number };
        },
    )
    .filter((m) => m.activity_type === 'pollGeneration')
    .map((m) => round(ms(m.complete_time) - ms(m.original_schedule_time)));
}

export async function runResults(): Promise<{ rows: Record<string, unknown>[]; notes: string[] }> {
  const overhead = await activityOverhead();
  const server = await byteServer();
  const dir = mkdtempSync(join(tmpdir(), 'mediagate-bench-results-'));
  const minio = await startMinio();
  try {
    await minio.createBucket('bench');
    const s3 = new S3ResultStore({
      bucket: 'bench',
      endpoint: minio.endpoint,
      region: minio.region,
      credentials: { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey },
    });
    const rows = [await measure('directory', new DirectoryResultStore(dir), server.origin), await measure('s3 (MinIO)', s3, server.origin)];
    await s3.close();
    return {
      rows,
      notes: [
        `in a task (sync V video, 2 KB result): ${Object.entries(overhead)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
        'source: a second process streaming over 127.0.0.1; copy: results/copy.ts in the bench process (its RSS); directory store on the local disk (fsync before rename); S3: MinIO on the same disk, multipart 8 MiB parts × 2 in flight',
      ],
    };
  } finally {
    server.stop();
    await minio.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
