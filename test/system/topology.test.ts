/**
 * The production topology under faults: the real Temporal server on PostgreSQL, the ledger on the
 * same PostgreSQL, results in MinIO, two workers and two API processes behind one balancer (Stack with
 * `production: true`, as `npm run cluster` runs them). While 200 video tasks run — half sync requests held open
 * through the balancer, half async, webhooks on for all, every one charged to a key with a budget made through the
 * admin API — one fault after another: a worker SIGKILLed (and another started), an API process SIGKILLed (its
 * sync callers reconnect through the balancer with the same Idempotency-Key; the process is started again on its
 * port), the Temporal server killed and started again on the same ports, PostgreSQL crashed and restarted.
 *
 * Then: every task succeeded; the platform (the simulator) made exactly one job per task; every task's final
 * webhook event was acknowledged, verified with the `standardwebhooks` package, one webhook-id per event across its
 * retries; every charge settled once at the task's final cost, and the budget's spend is their sum; every result
 * is in the MinIO bucket. The counts are printed in one line.
 *
 * CI runs this file in a step of its own (.ci/run, bounded); the main `npm test` step skips it (JEST_SKIP_TOPOLOGY).
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { Agent, fetch as undiciFetch } from 'undici';
import { ApiClient } from '../support/client';
import { metric, scrape } from '../support/metrics';
import { queryRows } from '../support/postgres';
import { startReceiver, type Receiver } from '../support/receiver';
import { freePort, PRODUCTION_BUCKET } from '../support/stack';
import { upstreamIds } from '../support/temporal';
import { useStack } from '../support/use-stack';
import { sleep } from '../support/wait-for';
import { until, V_MODEL } from './faults-support';

/** Cold start of the production shape (PostgreSQL, the server's schema and namespace, MinIO, 2 + 2 processes). */
const START_TIMEOUT_MS = 300_000;
const TEST_TIMEOUT_MS = 600_000;
jest.setTimeout(TEST_TIMEOUT_MS);

const TASKS = 200;
/**
 * Each simulated job lasts this long: longer than submitting all the tasks plus the four faults and their
 * recoveries take here (about 1½ minutes on 2 busy cores), so every fault hits every task while it runs; the test
 * checks that it did.
 */
const JOB_MS = 180_000;
/** The workflow polls a running job this often (fewer history events than the tests' default 300 ms). */
const POLL_MS = 10_000;
/** Every client gives up on its task after this long (bounds the whole run). */
const CLIENT_BOUND_MS = 420_000;

const ADMIN_TOKEN = 'topology-admin-token-0123456789abcdef';
/** V's price per second, so every task has a cost the ledger settles (V publishes none). */
const PRICE_PER_SECOND = 0.01;
const pricesFile = join(tmpdir(), `topology-prices-${process.pid}.json`);
writeFileSync(pricesFile, JSON.stringify({ [V_MODEL]: { currency: 'USD', source: 'test', per_second: { '*': PRICE_PER_SECOND } } }));

let receiverPort = 0;
const gw = useStack(
  async () => {
    receiverPort = await freePort();
    return {
      name: 'topology',
      production: true,
      workers: 2,
      apis: 2,
      env: {
        ADMIN_TOKEN,
        PRICES_FILE: pricesFile,
        POLL_FIRST_DELAY_MS: '3000',
        POLL_INTERVAL_VIDEO_MS: String(POLL_MS),
        WEBHOOK_ALLOW_PRIVATE_ORIGINS: `http://127.0.0.1:${receiverPort}`,
        WEBHOOK_RETRY_INITIAL_MS: '1000',
        WEBHOOK_RETRY_MAX_INTERVAL_MS: '5000',
        WEBHOOK_ATTEMPT_TIMEOUT_MS: '5000',
      },
    };
  },
  { startTimeoutMs: START_TIMEOUT_MS },
);

const started = Date.now();
const log = (msg: string) => process.stdout.write(`[topology +${Math.round((Date.now() - started) / 1000)}s] ${msg}\n`);

/** No client-side bound on how long an answer may take: a sync request is held open for minutes. */
const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0, connections: null });
afterAll(() => patient.destroy());

interface Answered {
  status: number;
  body: any;
  /** Each failed try (a dropped connection, a 5xx) before the answer. */
  failures: string[];
}

/**
 * A POST as a careful client sends it: on a network error or a 5xx it is sent again with the same
 * Idempotency-Key (a second later), until it is answered otherwise; bounded by `deadline`.
 */
async function untilAnswered(
  url: string,
  secret: string,
  body: unknown,
  idempotencyKey: string,
  deadline: number,
  signal: AbortSignal,
): Promise<Answered> {
  const failures: string[] = [];
  for (;;) {
    signal.throwIfAborted();
    try {
      const res = await undiciFetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
        body: JSON.stringify(body),
        dispatcher: patient,
        signal,
      });
      const text = await res.text();
      if (res.status < 500) return { status: res.status, body: JSON.parse(text), failures };
      failures.push(`${res.status} ${text.slice(0, 200)}`);
    } catch (err) {
      failures.push(`${(err as Error).message}${(err as { cause?: Error }).cause ? `: ${(err as { cause: Error }).cause.message}` : ''}`);
    }
    if (Date.now() > deadline) throw new Error(`${idempotencyKey}: no answer within the bound; tries: ${failures.join(' | ')}`);
    await sleep(1_000);
  }
}

/** Polls a task (every 3 s, through the balancer, any failure to read it tolerated) until it is terminal; bounded. */
async function finalRecord(api: ApiClient, taskId: string, deadline: number): Promise<any> {
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const r = await api.get(`/v1/generations/${taskId}`);
      last = r.body;
      if (r.status === 200 && (r.body.status === 'success' || r.body.status === 'failed')) return r.body;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(3_000);
  }
  throw new Error(`task ${taskId} not terminal within the bound: ${JSON.stringify(last)}`);
}

/** Waits until the gateway answers a read through the balancer again (after a fault). */
async function serving(api: ApiClient, taskId: string, what: string): Promise<void> {
  const t0 = Date.now();
  await until(
    `the gateway answers again after ${what}`,
    () =>
      api.get(`/v1/generations/${taskId}`).then(
        (r) => r.status === 200,
        () => false,
      ),
    120_000,
  );
  log(`${what}: reads answered again after ${Date.now() - t0} ms`);
}

/** Every object in the bucket. */
async function bucketKeys(): Promise<Set<string>> {
  const s3 = gw.stack.minio!.client();
  const keys = new Set<string>();
  try {
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: PRODUCTION_BUCKET, ContinuationToken: token }));
      for (const o of page.Contents ?? []) keys.add(o.Key!);
      token = page.NextContinuationToken;
    } while (token);
  } finally {
    s3.destroy();
  }
  return keys;
}

test(`${TASKS} tasks through a worker SIGKILL, an API SIGKILL, a Temporal server restart and a PostgreSQL crash: all succeed, one job, one charge, every webhook and result`, async () => {
  const { stack } = gw;
  const receiver: Receiver = await startReceiver('/hooks', receiverPort);
  // Ends every client still waiting when the test ends early (a failed assertion), instead of at its bound.
  const clients = new AbortController();
  try {
    // The first deliveries are refused: those events are retried, and must keep their webhook-id.
    receiver.answers.push(...Array.from({ length: 20 }, () => 503));

    const made = await fetch(`${stack.apiUrl}/admin/v1/keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'topology', budget: { amount: 1_000, currency: 'USD', period: 'month' } }),
    });
    expect(made.status).toBe(201);
    const secret = ((await made.json()) as { secret: string }).secret;
    const payer = new ApiClient(stack.apiUrl, secret);
    // Every API process reads the admin API's keys within KEYS_REFRESH_MS (2 s): wait for both to know it.
    await until(
      'every API process knows the new key',
      async () => {
        const answers = await Promise.all(stack.apiPorts.map((p) => new ApiClient(`http://127.0.0.1:${p}`, secret).get('/v1/models')));
        return answers.every((r) => r.status === 200);
      },
      30_000,
    );
    const webhookSecret = (await payer.get('/v1/webhooks/default/secret')).body.key as string;
    const jobsBefore = (await gw.sim.stats()).V.jobsCreated;

    // ---- 200 tasks, half sync (held open), half async; all with webhooks and an Idempotency-Key.
    const run = `topology-${process.pid}-${Date.now()}`;
    const deadline = Date.now() + CLIENT_BOUND_MS;
    const request = (i: number) => ({
      model: V_MODEL,
      prompt: `${run} #${i} [sim:duration=${JOB_MS}]`,
      duration: 5,
      webhook_url: `http://127.0.0.1:${receiverPort}/hooks`,
      webhook_events: ['running', 'succeeded', 'failed'],
    });
    // Sync and async in pairs (not alternating, which the balancer's round-robin would sort onto one API each).
    const isSync = (i: number) => i % 4 < 2;
    const answers = Array.from({ length: TASKS }, (_, i) =>
      untilAnswered(
        `${stack.apiUrl}${isSync(i) ? '/v1/videos/generations' : '/v1/async/videos/generations'}`,
        secret,
        request(i),
        `${run}-${i}`,
        deadline,
        clients.signal,
      ),
    );
    // Keep a rejection for the assertions below, not as an unhandled one meanwhile.
    for (const a of answers) a.catch(() => undefined);
    const asyncIndexes = Array.from({ length: TASKS }, (_, i) => i).filter((i) => !isSync(i));
    const asyncIds = (await Promise.all(asyncIndexes.map((i) => answers[i]!))).map((a) => {
      expect(a.status).toBe(200);
      return a.body.task_id as string;
    });
    const ourJobs = async () => (await gw.sim.jobs('V')).filter((j) => JSON.stringify(j.meta.request).includes(`${run} #`));
    await until('every task has its upstream job', async () => (await ourJobs()).length >= TASKS, 120_000);
    const firstJobAt = Math.min(...(await ourJobs()).map((j) => (j as unknown as { createdAt: number }).createdAt));
    log(
      `${TASKS} tasks submitted (${TASKS / 2} sync held open, ${TASKS / 2} async); their jobs end from ${Math.round((firstJobAt + JOB_MS - Date.now()) / 1000)} s from now`,
    );
    const probe = asyncIds[0]!;

    // ---- The faults, one after another, every task still running.
    const t1 = Date.now();
    const killedWorker = await stack.killWorker();
    log(`fault 1: ${killedWorker.name} SIGKILLed`);
    const newWorker = await stack.startWorker();
    log(`fault 1: ${newWorker.name} started in its place after ${Date.now() - t1} ms`);
    await serving(payer, probe, 'the worker SIGKILL');

    // The API process holding the most sync waits: each of those callers sees its connection die.
    const t2 = Date.now();
    const running = stack.apis.filter((a) => a.running);
    const waits = await Promise.all(
      running.map(async (a) => metric(await scrape(`http://127.0.0.1:${stack.portOf(a)}/metrics`), 'mediagate_sync_waits_in_progress')),
    );
    const held = Math.max(...waits);
    const apiPort = await stack.killApi(running[waits.indexOf(held)]);
    log(`fault 2: the API process on port ${apiPort} SIGKILLed, holding ${held} of the ${waits.reduce((a, b) => a + b, 0)} sync waits`);
    const newApi = await stack.startApi(apiPort);
    log(`fault 2: ${newApi.name} started on port ${apiPort} after ${Date.now() - t2} ms`);
    await serving(payer, probe, 'the API SIGKILL');

    const t3 = Date.now();
    await stack.restartTemporal('SIGKILL');
    log(`fault 3: the Temporal server SIGKILLed and started again on the same ports, serving after ${Date.now() - t3} ms`);
    await serving(payer, probe, 'the Temporal server restart');

    const t4 = Date.now();
    expect(Date.now()).toBeLessThan(firstJobAt + JOB_MS); // the last fault, too, hits every task while it runs
    await stack.crashPostgres();
    log(`fault 4: PostgreSQL SIGKILLed and started again after ${Date.now() - t4} ms`);
    await serving(payer, probe, 'the PostgreSQL crash');
    const stillRunning = (await ourJobs()).filter((j) => j.view.state !== 'succeeded').length;
    log(`faults done in ${Math.round((Date.now() - t1) / 1000)} s; upstream jobs still running: ${stillRunning}`);

    // ---- Every client gets its answer; every task ends `success`.
    const settled = await Promise.allSettled(answers);
    const unanswered = settled.flatMap((s, i) => (s.status === 'rejected' ? [`#${i}: ${(s.reason as Error).message}`] : []));
    expect(unanswered).toEqual([]);
    const answered = settled.map((s) => (s as PromiseFulfilledResult<Answered>).value);
    const syncIndexes = Array.from({ length: TASKS }, (_, i) => i).filter(isSync);
    for (const i of syncIndexes) expect([i, answered[i]!.status, answered[i]!.body.error ?? null]).toEqual([i, 200, null]);
    const ids = answered.map((a) => a.body.task_id as string);
    expect(new Set(ids).size).toBe(TASKS);
    const syncReconnected = syncIndexes.filter((i) => answered[i]!.failures.length > 0).length;
    const reasons = [...new Set(answered.flatMap((a) => a.failures.map((f) => f.replace(/task_\w+/g, 'task_…').slice(0, 120))))];
    log(`every client answered; ${syncReconnected} sync callers had to reconnect (${reasons.join(' | ')})`);
    // The API SIGKILL cut the sync waits it held: those callers came back through the balancer.
    expect(held).toBeGreaterThan(0);
    expect(syncReconnected).toBeGreaterThanOrEqual(held);
    const records = await Promise.all(ids.map((id) => finalRecord(payer, id, deadline)));
    const success = records.filter((r) => r.status === 'success').length;
    expect(records.map((r) => [r.task_id, r.status, r.error ?? null])).toEqual(ids.map((id) => [id, 'success', null]));

    // ---- Exactly one upstream job per task, as the platform (the simulator) recorded them.
    const jobs = await ourJobs();
    const jobsPerTask = Array.from(
      { length: TASKS },
      (_, i) => jobs.filter((j) => JSON.stringify(j.meta.request).includes(`${run} #${i} `)).length,
    );
    expect(jobsPerTask).toEqual(ids.map(() => 1));
    const upstreamJobs = (await gw.sim.stats()).V.jobsCreated - jobsBefore;
    expect(upstreamJobs).toBe(TASKS);
    const upstream = await upstreamIds(gw.client, ids);
    expect(new Set(upstream)).toEqual(new Set(jobs.map((j) => j.id)));

    // ---- Every webhook event delivered: each task's final event acknowledged, one webhook-id per event.
    await until(
      'every final event is acknowledged',
      async () => {
        const finals = new Set(receiver.got.filter((g) => g.body?.type === 'generation.succeeded').map((g) => g.body.data.task_id));
        return ids.every((id) => finals.has(id));
      },
      120_000,
    );
    const wh = new Webhook(webhookSecret);
    const idsOf = new Map<string, Set<string>>();
    for (const g of receiver.got) {
      wh.verify(g.raw, g.headers as Record<string, string>);
      const event = `${g.body.data.task_id} ${g.body.type}`;
      idsOf.set(event, (idsOf.get(event) ?? new Set()).add(String(g.headers['webhook-id'])));
    }
    for (const id of ids) expect(idsOf.get(`${id} generation.succeeded`)).toEqual(new Set([`msg_${id}_succeeded`]));
    for (const [event, webhookIds] of idsOf) expect([event, webhookIds.size]).toEqual([event, 1]);
    expect(receiver.got.filter((g) => g.body.type === 'generation.failed')).toEqual([]);
    const deliveries = await Promise.all(
      ids.map(async (id) => (await payer.get(`/v1/generations/${id}/deliveries`)).body.data as { event: string; state: string }[]),
    );
    const webhooksDelivered = deliveries.filter((d) => d.find((e) => e.event === 'succeeded')?.state === 'delivered').length;
    expect(webhooksDelivered).toBe(TASKS);
    // A `running` event was delivered too, or dropped because the task ended while it was being retried.
    for (const d of deliveries)
      for (const e of d.filter((x) => x.event === 'running')) expect(['delivered', 'superseded']).toContain(e.state);
    const retried = [...idsOf.keys()].filter(
      (event) => receiver.got.filter((g) => `${g.body.data.task_id} ${g.body.type}` === event).length > 1,
    ).length;

    // ---- Every charge settled once at the task's final cost; the budget's spend is their sum.
    const ledgerUrl = stack.env.DATABASE_URL!;
    await until(
      'every charge is settled',
      async () =>
        (await queryRows(ledgerUrl, "SELECT 1 FROM ledger_entries WHERE key_id = $1 AND state = 'reserved'", ['topology'])).length === 0,
      60_000,
    );
    const entries = await queryRows(ledgerUrl, 'SELECT task_id, state, final_micros FROM ledger_entries WHERE key_id = $1', ['topology']);
    expect(entries.map((e) => e.task_id).sort()).toEqual([...ids].sort());
    const byTask = new Map(entries.map((e) => [e.task_id as string, e]));
    for (const r of records) {
      const entry = byTask.get(r.task_id)!;
      expect([r.task_id, entry.state, Number(entry.final_micros)]).toEqual([r.task_id, 'settled', Math.round(r.cost.amount * 1e6)]);
    }
    const settledCount = entries.filter((e) => e.state === 'settled').length;
    const charged = entries.reduce((sum, e) => sum + Number(e.final_micros), 0);
    expect(charged).toBe(Math.round(TASKS * 5 * PRICE_PER_SECOND * 1e6));
    const [budget] = await queryRows(ledgerUrl, 'SELECT committed_micros FROM budget_usage WHERE key_id = $1', ['topology']);
    expect(Number(budget.committed_micros)).toBe(charged);
    expect((await payer.get('/v1/usage')).body.budget).toMatchObject({ spent: charged / 1e6, currency: 'USD' });

    // ---- Every result in MinIO: each task's outputs, where its record's (presigned) links point.
    const inBucket = await bucketKeys();
    const keysOf = (r: any): string[] =>
      (r.data as { url: string }[]).map((d) => {
        const url = new URL(d.url);
        expect(`${url.origin}${url.pathname}`.startsWith(`${stack.minio!.endpoint}/${PRODUCTION_BUCKET}/${r.task_id}/`)).toBe(true);
        return decodeURIComponent(url.pathname.slice(`/${PRODUCTION_BUCKET}/`.length));
      });
    for (const r of records) {
      expect(r.data.length).toBeGreaterThan(0);
      for (const key of keysOf(r)) expect([key, inBucket.has(key)]).toEqual([key, true]);
    }
    const resultsInMinio = records.filter((r) => keysOf(r).every((k) => inBucket.has(k))).length;

    process.stdout.write(
      `[topology] tasks=${TASKS} success=${success} upstreamJobs=${upstreamJobs} webhooksDelivered=${webhooksDelivered} settled=${settledCount} resultsInMinio=${resultsInMinio} syncReconnected=${syncReconnected} webhookEventsRetried=${retried} seconds=${Math.round((Date.now() - started) / 1000)}\n`,
    );
  } finally {
    clients.abort();
    await receiver.close();
  }
});
