/**
 * Platforms' announcements wake tasks, on a stack of its own whose timers are slow (15 s): a task that
 * finishes within a few seconds of its job can only have been woken by a callback. V calls back per task, T pushes
 * signed events, B pushes signed account-level events; then T's pull queue, consumed by the singleton workflow.
 * A callback is a hint: forged, expired, unknown, replayed or late ones change nothing; dropped or refused ones
 * leave the timer to finish the task.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApiClient } from '../support/client';
import { freePort, Stack } from '../support/stack';
import { until } from './faults-support';
import { unique } from '../support/prompts';
import { useStack } from '../support/use-stack';

jest.setTimeout(240_000);

const CALLBACK_SECRET = 'callback-secret-for-tests-0123456789abcdef';
const T_SIGN_KEY = 'tSignKey0123';
const B_SIGN_KEY = 'b-sign-key-for-tests';
/** Every timer of this stack: a task done well before it was woken by a callback. */
const TIMER_MS = 15_000;

// The API's port is chosen first: the stack's PUBLIC_BASE_URL (where platforms call back) names it.
const gw = useStack(async () => {
  const apiPort = await freePort();
  return {
    name: 'callbacks',
    apiPort,
    simJobDurationMs: 1_500,
    env: {
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      CALLBACK_SECRET,
      PLATFORM_T_EVENTS: 'push',
      PLATFORM_T_EVENTS_SIGN_KEY: T_SIGN_KEY,
      PLATFORM_B_CALLBACKS: 'manage',
      PLATFORM_B_CALLBACK_SIGN_KEY: B_SIGN_KEY,
      POLL_FIRST_DELAY_MS: String(TIMER_MS),
      POLL_INTERVAL_VIDEO_MS: String(TIMER_MS),
      POLL_INTERVAL_IMAGE_MS: String(TIMER_MS),
      POLL_FALLBACK_INTERVAL_MS: String(TIMER_MS),
    },
  };
});

afterEach(async () => {
  await gw.sim.clearCallbackFaults();
});

async function callbackOutcomes(): Promise<Record<string, number>> {
  const text = await (await fetch(`${gw.stack.apiUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^mediagate_callbacks_total\{outcome="([^"]+)",platform="([^"]+)"\} (\d+)$/gm))
    out[`${m[2]}:${m[1]}`] = Number(m[3]);
  for (const m of text.matchAll(/^mediagate_callbacks_total\{platform="([^"]+)",outcome="([^"]+)"\} (\d+)$/gm))
    out[`${m[1]}:${m[2]}`] = Number(m[3]);
  return out;
}

/** The operator warnings the stack's API has logged about callbacks failing verification, by platform. */
function verificationWarnings(): string[] {
  return readFileSync(gw.stack.apis[0]!.logFile, 'utf8')
    .split('\n')
    .filter((l) => /"level":40/.test(l) && /keep failing verification/.test(l))
    .map((l) => (JSON.parse(l) as { platform: string }).platform);
}

/** Waits until the API has logged the request `requestId` (its access line): everything before it is in the log. */
async function logged(requestId: string): Promise<void> {
  await until(
    `the API logged request ${requestId}`,
    async () => readFileSync(gw.stack.apis[0]!.logFile, 'utf8').includes(`"requestId":"${requestId}"`),
    10_000,
  );
}

/** Signals the task's workflow received (its history's WorkflowExecutionSignaled events). */
async function signalsOf(taskId: string): Promise<number> {
  const history = await gw.client.workflow.getHandle(taskId).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
}

/** Starts a task and waits for it; `withinMs` below the stack's timers means a callback woke it. */
async function runTask(path: string, body: Record<string, unknown>, withinMs: number) {
  const r = await gw.alice.post(path, body);
  expect(r.status).toBe(200);
  const record = await gw.alice.waitForTask(r.body.task_id, withinMs);
  return { taskId: r.body.task_id as string, record };
}

describe('callbacks wake their tasks before any timer', () => {
  test('V calls back per task, with a token in the URL: the task finishes long before its first poll timer', async () => {
    const prompt = unique('v callback');
    const { taskId, record } = await runTask(
      '/v1/async/videos/generations',
      { model: 'vendor-video-1-0-pro-250528', prompt, duration: 5 },
      TIMER_MS - 5_000,
    );
    expect(record.status).toBe('success');
    const sent = (await gw.sim.callbacks('V')).filter((c) => c.url.includes(`/v1/callbacks/V/${taskId}?token=`));
    expect(sent.map((c) => c.body?.status)).toEqual(expect.arrayContaining(['queued', 'succeeded']));
    for (const c of sent) expect(c.attempts[0]).toBe(200);
    // Every status change is acknowledged, but only the end wakes the task: one signal, not one per change.
    expect(await signalsOf(taskId)).toBe(1);
  });

  test('T pushes signed AIGC events carrying the task id (SessionContext)', async () => {
    const { taskId, record } = await runTask(
      '/v1/async/images/generations',
      { model: 'GEM-2.5', prompt: unique('t push') },
      TIMER_MS - 5_000,
    );
    expect(record.status).toBe('success');
    expect(await signalsOf(taskId)).toBeGreaterThan(0);
    const event = (await gw.sim.callbacks('T')).find((c) => JSON.stringify(c.body).includes(taskId))!;
    expect(event.url).toBe(`${gw.stack.apiUrl}/v1/callbacks/T`);
    expect(event.body).toMatchObject({
      EventType: 'AigcImageTaskComplete',
      T: expect.any(Number),
      Sign: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  test('B pushes signed account-level events naming only its job: the task is found by its upstream id', async () => {
    const { taskId, record } = await runTask(
      '/v1/async/videos/generations',
      { model: 'K20', action: 'text_to_video', prompt: unique('b push'), duration: 5 },
      TIMER_MS - 5_000,
    );
    expect(record.status).toBe('success');
    expect(await signalsOf(taskId)).toBeGreaterThan(0);
    const upstream = (await gw.client.workflow.getHandle(taskId).describe()).searchAttributes.GenerationUpstreamTaskId?.[0];
    const event = (await gw.sim.callbacks('B')).find((c) => c.body?.videoGenerateCompleteEvent?.taskId === upstream)!;
    expect(event.headers).toMatchObject({ 'vod-callback-auth-token': expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(event.attempts[0]).toBe(200);
  });
});

describe('callbacks that go wrong change nothing but the wait', () => {
  test('dropped callbacks: the timer still finishes the task', async () => {
    await gw.sim.callbackFault({ platform: 'V', fault: 'drop', count: 10 });
    const { taskId, record } = await runTask(
      '/v1/async/videos/generations',
      { model: 'vendor-video-1-0-pro-250528', prompt: unique('dropped'), duration: 5 },
      TIMER_MS * 3,
    );
    expect(record.status).toBe('success');
    expect(await signalsOf(taskId)).toBe(0);
  });

  test('a duplicated callback costs at most an extra poll: one job, success', async () => {
    const prompt = unique('duplicated');
    await gw.sim.callbackFault({ platform: 'B', fault: 'duplicate', count: 5 });
    const { record } = await runTask(
      '/v1/async/videos/generations',
      { model: 'K20', action: 'text_to_video', prompt, duration: 5 },
      TIMER_MS - 5_000,
    );
    expect(record.status).toBe('success');
    expect((await gw.sim.jobs('B')).filter((j) => JSON.stringify(j.meta).includes(prompt))).toHaveLength(1);
  });

  test('a badly signed event is refused (401) and the timer finishes the task', async () => {
    const before = await callbackOutcomes();
    await gw.sim.callbackFault({ platform: 'T', fault: 'bad-signature', count: 5 });
    const { taskId, record } = await runTask(
      '/v1/async/images/generations',
      { model: 'GEM-2.5', prompt: unique('bad signature') },
      TIMER_MS * 3,
    );
    expect(record.status).toBe('success');
    expect(await signalsOf(taskId)).toBe(0);
    const refused = (await gw.sim.callbacks('T')).filter((c) => c.fault === 'bad-signature' && JSON.stringify(c.body).includes(taskId));
    expect(refused.length).toBeGreaterThan(0);
    for (const c of refused) expect(c.attempts.every((s) => s === 401)).toBe(true);
    expect((await callbackOutcomes())['T:refused'] ?? 0).toBeGreaterThan(before['T:refused'] ?? 0);
  });
  test('a platform whose own events stop verifying (its signing key changed) is reported once at warn, naming it', async () => {
    const before = await callbackOutcomes();
    const warnedBefore = verificationWarnings().filter((p) => p === 'B').length;
    // Five B jobs whose events arrive badly signed: each names a job one of our tasks made.
    await gw.sim.callbackFault({ platform: 'B', fault: 'bad-signature', count: 5 });
    const tasks = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const r = await gw.alice.post('/v1/async/videos/generations', {
          model: 'K20',
          action: 'text_to_video',
          prompt: unique(`b key rotated ${i}`),
          duration: 5,
        });
        expect(r.status).toBe(200);
        return r.body.task_id as string;
      }),
    );
    for (const id of tasks) expect((await gw.alice.waitForTask(id, TIMER_MS * 4)).status).toBe('success');
    await until(
      'the five refused events are counted',
      async () => ((await callbackOutcomes())['B:refused'] ?? 0) - (before['B:refused'] ?? 0) >= 5,
      30_000,
    );
    await until('the warning is logged', async () => verificationWarnings().filter((p) => p === 'B').length > warnedBefore, 10_000);
    expect(verificationWarnings().filter((p) => p === 'B').length).toBe(warnedBefore + 1);
    expect((await callbackOutcomes())['B:forged'] ?? 0).toBe(before['B:forged'] ?? 0);
  });
});

describe('security: forged, expired, unknown and replayed announcements', () => {
  let running: string;

  beforeAll(async () => {
    const r = await gw.alice.post('/v1/async/videos/generations', {
      model: 'vendor-video-1-0-pro-250528',
      prompt: unique('[sim:never] target'),
      duration: 5,
    });
    running = r.body.task_id;
    await until(
      'the target task is running',
      async () => (await gw.alice.get(`/v1/generations/${running}`)).body.status === 'running',
      60_000,
    );
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gw.stack.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  test('a V callback with a wrong token is 401 and changes nothing', async () => {
    const before = await signalsOf(running);
    const r = await post(`/v1/callbacks/V/${running}?token=forged`, {
      id: 'cgt-x',
      status: 'succeeded',
      content: { video_url: 'https://evil.test/x.mp4' },
    });
    expect(r.status).toBe(401);
    expect(await signalsOf(running)).toBe(before);
    expect((await gw.alice.get(`/v1/generations/${running}`)).body.status).toBe('running');
  });

  test("a V callback with another task's token is 401", async () => {
    const other = createHmac('sha256', CALLBACK_SECRET).update('V:task_someone_else').digest('base64url');
    expect((await post(`/v1/callbacks/V/${running}?token=${other}`, {})).status).toBe(401);
  });

  test('even a valid callback claiming success is only a hint: the task polls and stays running', async () => {
    const token = createHmac('sha256', CALLBACK_SECRET).update(`V:${running}`).digest('base64url');
    const before = await signalsOf(running);
    const r = await post(`/v1/callbacks/V/${running}?token=${token}`, {
      id: 'cgt-forged',
      status: 'succeeded',
      content: { video_url: 'https://evil.test/x.mp4' },
    });
    expect([r.status, ((await r.json()) as any).signalled]).toEqual([200, 1]);
    await until('the signal is in the history', async () => (await signalsOf(running)) > before, 10_000);
    await new Promise((res) => setTimeout(res, 1_500));
    const now = (await gw.alice.get(`/v1/generations/${running}`)).body;
    expect(now.status).toBe('running');
    expect(now.data).toBeUndefined();
  });

  test('a callback for an unknown task (valid token) is accepted and signals nothing', async () => {
    const token = createHmac('sha256', CALLBACK_SECRET).update('V:task_doesnotexist').digest('base64url');
    const r = await post(`/v1/callbacks/V/task_doesnotexist?token=${token}`, {});
    expect([r.status, ((await r.json()) as any).signalled]).toEqual([200, 0]);
  });

  test('a T event with an expired signature, or none, is 401', async () => {
    const t = Math.floor(Date.now() / 1000) - 60;
    const sign = createHash('md5').update(`${T_SIGN_KEY}${t}`).digest('hex');
    const event = { EventType: 'AigcVideoTaskComplete', AigcVideoCompleteEvent: { TaskId: 'x', SessionContext: running } };
    expect((await post('/v1/callbacks/T', { ...event, T: t, Sign: sign })).status).toBe(401);
    expect((await post('/v1/callbacks/T', event)).status).toBe(401);
  });

  test('a B event without or with a wrong signature is 401; a replayed genuine one after its task closed signals nothing', async () => {
    const body = JSON.stringify({ eventType: 'VIDEO_GENERATE_COMPLETE', videoGenerateCompleteEvent: { taskId: 'tsk-forged' } });
    expect((await post('/v1/callbacks/B', body)).status).toBe(401);
    const ts = String(Date.now());
    const wrong = createHmac('sha256', 'not-the-key').update(`POST;${gw.stack.apiUrl}/v1/callbacks/B;${body};${ts};someone`).digest('hex');
    expect(
      (
        await post('/v1/callbacks/B', body, {
          'vod-callback-auth-token': wrong,
          'vod-callback-auth-timestamp': ts,
          'vod-callback-auth-user': 'someone',
        })
      ).status,
    ).toBe(401);

    // Replay an event the platform really sent, for a task that has finished: accepted, nothing to wake.
    const genuine = (await gw.sim.callbacks('B')).find((c) => c.attempts[0] === 200 && !c.fault)!;
    const raw = JSON.stringify(genuine.body);
    const fresh = String(Date.now());
    const token = createHmac('sha256', B_SIGN_KEY)
      .update(`POST;${gw.stack.apiUrl}/v1/callbacks/B;${raw};${fresh};${genuine.headers['vod-callback-auth-user']}`)
      .digest('hex');
    const r = await post('/v1/callbacks/B', raw, {
      'vod-callback-auth-token': token,
      'vod-callback-auth-timestamp': fresh,
      'vod-callback-auth-user': genuine.headers['vod-callback-auth-user']!,
    });
    expect([r.status, ((await r.json()) as any).signalled]).toEqual([200, 0]);
  });

  test('anonymous callbacks with bad tokens or signatures, however many, are counted as forged and raise no operator warning', async () => {
    const before = await callbackOutcomes();
    const warnedBefore = verificationWarnings();
    const n = 12;
    for (let i = 0; i < n; i++) {
      // A V callback for a real running task (a client knows its own task id) with a guessed token and job id.
      expect((await post(`/v1/callbacks/V/${running}?token=guessed-${i}`, { id: `cgt-guessed-${i}`, status: 'succeeded' })).status).toBe(
        401,
      );
      // A T event naming the same task, unsigned; a B event for a made-up job, badly signed.
      expect(
        (
          await post('/v1/callbacks/T', {
            EventType: 'AigcVideoTaskComplete',
            AigcVideoCompleteEvent: { TaskId: `job-guessed-${i}`, SessionContext: running },
          })
        ).status,
      ).toBe(401);
      const body = JSON.stringify({ eventType: 'VIDEO_GENERATE_COMPLETE', videoGenerateCompleteEvent: { taskId: `tsk-guessed-${i}` } });
      const ts = String(Date.now());
      const wrong = createHmac('sha256', 'a-guessed-key')
        .update(`POST;${gw.stack.apiUrl}/v1/callbacks/B;${body};${ts};someone`)
        .digest('hex');
      expect(
        (
          await post('/v1/callbacks/B', body, {
            'vod-callback-auth-token': wrong,
            'vod-callback-auth-timestamp': ts,
            'vod-callback-auth-user': 'someone',
          })
        ).status,
      ).toBe(401);
    }
    const last = randomUUID();
    expect((await post(`/v1/callbacks/V/${running}?token=last`, {}, { 'x-request-id': last })).status).toBe(401);
    await logged(last);
    const after = await callbackOutcomes();
    for (const p of ['V', 'T', 'B'])
      expect([p, (after[`${p}:forged`] ?? 0) - (before[`${p}:forged`] ?? 0)]).toEqual([p, p === 'V' ? n + 1 : n]);
    expect(verificationWarnings()).toEqual(warnedBefore);
  });

  test('event bodies that are not a JSON object are refused, as the document says: 400 (B, whose events are signed here, 401 first)', async () => {
    for (const body of ['1', '"x"', 'true', 'null', '[]']) {
      expect([body, (await post('/v1/callbacks/t', body)).status]).toEqual([body, 400]);
      expect([body, (await post('/v1/callbacks/b', body)).status]).toEqual([body, 401]);
    }
  });

  test('an announcement body over 256 KiB is 413', async () => {
    expect((await post('/v1/callbacks/T', 'x'.repeat(300 * 1024))).status).toBe(413);
  });
});

describe("T's pull queue (no public URL needed)", () => {
  // A shutdown grace far longer than a stop may take: a consumer holding its worker's stop for it would show.
  // The stack's first worker set the SubAppId to PUSH to its URL: to a PULL worker that is a configuration it did
  // not set, replaced only when told to (PLATFORM_T_EVENTS_TAKE_OVER).
  const pullEnv = {
    PLATFORM_T_EVENTS: 'pull',
    PLATFORM_T_EVENTS_TAKE_OVER: 'true',
    PUBLIC_BASE_URL: '',
    PLATFORM_B_CALLBACKS: 'off',
    WORKER_SHUTDOWN_GRACE_MS: '60000',
  };
  const consumers: Awaited<ReturnType<Stack['startWorker']>>[] = [];

  test('a singleton consumer workflow pulls T events and wakes tasks; a second worker does not start a second consumer', async () => {
    // A lane whose worker consumes T's queue: it switches the simulated account to PULL mode.
    const lane = await gw.stack.startLane(pullEnv);
    consumers.push(lane.worker);
    const laneApi = new ApiClient(lane.apiUrl, 'alice');
    const r = await laneApi.post('/v1/async/images/generations', { model: 'GEM-2.5', prompt: unique('t pull') });
    const record = await laneApi.waitForTask(r.body.task_id, TIMER_MS - 5_000);
    expect(record.status).toBe('success');
    expect(await signalsOf(r.body.task_id)).toBeGreaterThan(0);

    const consumer = await gw.client.workflow.getHandle('platform-events-T').describe();
    expect(consumer.status.name).toBe('RUNNING');
    consumers.push(await gw.stack.startWorker({ TEMPORAL_TASK_QUEUE: consumer.taskQueue, ...pullEnv }));
    const again = await gw.client.workflow.getHandle('platform-events-T').describe();
    expect(again.runId).toBe(consumer.runId);
    let running = 0;
    for await (const w of gw.client.workflow.list({ query: `WorkflowId = 'platform-events-T' AND ExecutionStatus = 'Running'` }))
      if (w) running++;
    expect(running).toBe(1);
  });

  test('a worker running the consumer stops at once on SIGTERM: the consumer hands its run back instead of holding the shutdown grace', async () => {
    expect(consumers).toHaveLength(2);
    await until(
      'the consumer is pulling',
      async () => {
        const d = await gw.client.workflow.getHandle('platform-events-T').describe();
        return (
          d.raw.pendingActivities?.some((a) => a.activityType?.name === 'consumePlatformEvents' && a.state === 2 /* STARTED */) ?? false
        );
      },
      30_000,
    );
    for (const w of consumers) w.child.kill('SIGTERM');
    const exits = await Promise.all(
      consumers.map((w) => Promise.race([w.exited, new Promise((r) => setTimeout(() => r('still running after 20 s'), 20_000).unref())])),
    );
    expect(exits).toEqual([0, 0]);
  });
});
