/**
 * platforms/b/lost-answer.ts (with job-claims.ts): findSubmitted, the job a lost answer created, found by listing
 * from the first attempt and matching the echoed request (exactly, else normalised); twins are never adopted, and
 * ambiguity ends the task upstream_lost.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalogue } from '../../../../core/catalogue';
import { buildCatalogue } from '../../../../platforms';
import { createPlatformB } from '../../../../platforms/b/adapter';
import { CLOCK_SKEW_MARGIN_MS, echoMatches, sameRequest } from '../../../../platforms/b/lost-answer';
import { toBCreate } from '../../../../platforms/b/request-body';
import { bceTimestamp } from '../../../../platforms/b/signing';
import { runSubmitAttempts, useLostAnswerSimulator } from '../../../support/lost-answers';
import { fakeHttp, normalised, validated } from '../../../support/platform-kit';
import { ctx, NOW, SETTINGS } from '../../../support/platforms/b';

describe('findSubmitted: the job a lost answer created', () => {
  const kling = () => validated('video', { model: 'K20', action: 'text_to_video', prompt: 'a fox in the snow', duration: 5 });
  const bodyOf = (r: ReturnType<typeof kling>, dedupKey = 'k1') => toBCreate(r.entry, r.request, { dedupKey }).body;
  const detail = (taskId: string, request: unknown, key = 'textToVideoRequest') => ({
    taskId,
    status: 'RUNNING',
    videoGenerateTaskInfo: { status: 'running', videoGenerateTaskInput: { type: '文生视频', [key]: request } },
  });

  /** A B account holding `tasks` (newest first), listing `pageSize` per page. */
  function account(tasks: { id: string; request: unknown }[], pageSize = 100) {
    return fakeHttp((c) => {
      const url = new URL(c.url);
      if (url.pathname === '/v2/tasks') {
        const start = url.searchParams.get('marker') ? tasks.findIndex((t) => t.id === url.searchParams.get('marker')) : 0;
        const page = tasks.slice(start, start + pageSize);
        const more = start + pageSize < tasks.length;
        return {
          status: 200,
          body: {
            isTruncated: more,
            marker: url.searchParams.get('marker') ?? '',
            ...(more ? { nextMarker: tasks[start + pageSize]!.id } : {}),
            data: page.map((t) => ({ taskId: t.id, type: 'VIDEO_GENERATE', status: 'RUNNING' })),
          },
        };
      }
      const id = url.pathname.split('/').pop()!;
      const t = tasks.find((x) => x.id === id);
      return t
        ? { status: 200, body: detail(t.id, t.request) }
        : { status: 404, body: { requestId: 'r', code: 'TaskNotFound', message: 'Task not found' } };
    });
  }

  test('lists from the first attempt less the clock-skew margin, pages with the marker, and adopts the one exact match', async () => {
    const r = kling();
    const others = Array.from({ length: 150 }, (_, i) => ({
      id: `tsk-other${i}`,
      request: { model: 'K20', modelK20TaskInput: { prompt: `another ${i}`, duration: 5 } },
    }));
    const http = account([...others.slice(0, 120), { id: 'tsk-mine', request: bodyOf(r) }, ...others.slice(120)]);
    const adapter = createPlatformB(SETTINGS, { http, now: () => NOW });
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('k1', NOW - 10_000))).toEqual({ upstreamTaskId: 'tsk-mine' });
    const lists = http.calls
      .filter((c) => new URL(c.url).pathname === '/v2/tasks')
      .map((c) => Object.fromEntries(new URL(c.url).searchParams));
    const begin = bceTimestamp(Math.floor((NOW - 10_000 - CLOCK_SKEW_MARGIN_MS) / 1000) * 1000);
    expect(lists).toEqual([
      { beginTime: begin, maxSize: '100' },
      { beginTime: begin, maxSize: '100', marker: 'tsk-other100' },
    ]);
    // Every list and detail call is signed, the query included.
    for (const c of http.calls) expect(c.headers!.authorization).toMatch(/^bce-auth-v1\/.+\/host;x-bce-date\/[0-9a-f]{64}$/);
    expect(http.calls.find((c) => c.url.includes('marker'))!.url).toContain(`beginTime=${begin.replace(/:/g, '%3A')}`);
  });

  test.each<[string, (body: Record<string, unknown>) => unknown]>([
    ['another prompt', (b) => ({ ...b, modelK20TaskInput: { ...(b.modelK20TaskInput as object), prompt: 'a fox in the rain' } })],
    ['another duration', (b) => ({ ...b, modelK20TaskInput: { ...(b.modelK20TaskInput as object), duration: 10 } })],
    ['another model', (b) => ({ model: 'K16', modelK16TaskInput: b.modelK20TaskInput })],
  ])('no adoption when the echoed request differs: %s', async (_name, change) => {
    const r = kling();
    const http = account([{ id: 'tsk-near', request: change(bodyOf(r) as Record<string, unknown>) }]);
    expect(await createPlatformB(SETTINGS, { http, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k1'))).toBeUndefined();
  });

  // Whether B fills in defaults or drops fields it ignores is not documented: an echo with a member
  // more or less matches when no echo is exact — and an exact one always wins over it.
  test.each<[string, (body: Record<string, unknown>) => unknown]>([
    ['one more member (a default filled in)', (b) => ({ ...b, modelK20TaskInput: { ...(b.modelK20TaskInput as object), mode: 'std' } })],
    ['one member less (an ignored field dropped)', (b) => ({ ...b, modelK20TaskInput: { prompt: 'a fox in the snow' } })],
  ])('normalised echo, %s: adopted when no echo is exact; the exact one when there is', async (_name, change) => {
    const r = kling();
    const near = account([{ id: 'tsk-near', request: change(bodyOf(r) as Record<string, unknown>) }]);
    expect(await createPlatformB(SETTINGS, { http: near, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k1'))).toEqual({
      upstreamTaskId: 'tsk-near',
    });
    const both = account([
      { id: 'tsk-near', request: change(bodyOf(r) as Record<string, unknown>) },
      { id: 'tsk-exact', request: bodyOf(r) },
    ]);
    expect(await createPlatformB(SETTINGS, { http: both, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k1'))).toEqual({
      upstreamTaskId: 'tsk-exact',
    });
  });

  test('key order and null members do not matter', () => {
    expect(
      sameRequest(
        { model: 'K20', modelK20TaskInput: { prompt: 'p', duration: 5 } },
        { modelK20TaskInput: { duration: 5, prompt: 'p', seed: null }, model: 'K20' },
      ),
    ).toBe(true);
    expect(sameRequest({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });

  test('two identical bodies nobody claims are ambiguous: none is adopted and none is sent again (upstream_lost: an operator decides)', async () => {
    const r = kling();
    const http = account([
      { id: 'tsk-twin1', request: bodyOf(r) },
      { id: 'tsk-twin2', request: bodyOf(r) },
    ]);
    await expect(createPlatformB(SETTINGS, { http, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k1'))).rejects.toMatchObject({
      retryable: false,
      opts: { reason: 'upstream_lost', code: 'ambiguous' },
      message: expect.stringContaining('tsk-twin1, tsk-twin2'),
    });
  });

  test('normalised echoes: defaults filled in or ignored fields dropped still match; a different value never does', () => {
    const sent = { model: 'K20', modelK20TaskInput: { prompt: 'p', duration: 5, unknownKnob: 1 } };
    expect(echoMatches({ model: 'K20', modelK20TaskInput: { prompt: 'p', duration: 5, unknownKnob: 1, aspectRatio: '16:9' } }, sent)).toBe(
      true,
    );
    expect(echoMatches({ model: 'K20', modelK20TaskInput: { prompt: 'p', duration: 5 } }, sent)).toBe(true);
    expect(echoMatches({ model: 'K20', modelK20TaskInput: { prompt: 'p', duration: 10 } }, sent)).toBe(false);
    expect(echoMatches({ model: 'K21', modelK20TaskInput: { prompt: 'p', duration: 5 } }, sent)).toBe(false);
    expect(echoMatches({ model: 'K20' }, sent)).toBe(false);
    expect(
      echoMatches(
        { model: 'K20', modelK20TaskInput: { prompt: 'p', images: ['a', 'b'] } },
        { model: 'K20', modelK20TaskInput: { prompt: 'p', images: ['b', 'a'] } },
      ),
    ).toBe(false);
  });

  test('on one worker, a twin submitted by another task is never adopted; the lost one is', async () => {
    const r = kling();
    // Task A's create is lost (tsk-lost exists upstream, A never heard of it); task B, same body, got its answer.
    const tasks = [{ id: 'tsk-lost', request: bodyOf(r) }];
    const http = fakeHttp((c) => {
      const url = new URL(c.url);
      if (c.method === 'POST') {
        // Newest first, as B lists them [GUESS]: the twin comes before the lost job.
        tasks.unshift({ id: 'tsk-twin-of-b', request: JSON.parse(c.body!) });
        return { status: 200, body: { taskId: 'tsk-twin-of-b' } };
      }
      if (url.pathname === '/v2/tasks') return { status: 200, body: { isTruncated: false, data: tasks.map((t) => ({ taskId: t.id })) } };
      const t = tasks.find((x) => url.pathname.endsWith(x.id))!;
      return { status: 200, body: detail(t.id, t.request) };
    });
    const adapter = createPlatformB(SETTINGS, { http, now: () => NOW });
    await adapter.submit(r.entry, r.request, ctx('task-b'));
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('task-a'))).toEqual({ upstreamTaskId: 'tsk-lost' });
    // B's own retry (say its activity timed out after the answer) finds its own job, not A's.
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('task-b'))).toEqual({ upstreamTaskId: 'tsk-twin-of-b' });
  });

  test('Veo: each submit’s seed makes its body unique, so identical requests never match each other', async () => {
    const r = validated('video', { model: 'VE3.1', action: 'text_to_video', prompt: 'same', duration: 8 });
    const http = account([
      { id: 'tsk-a', request: toBCreate(r.entry, r.request, { dedupKey: 'task-a' }).body },
      { id: 'tsk-b', request: toBCreate(r.entry, r.request, { dedupKey: 'task-b' }).body },
    ]);
    const adapter = createPlatformB(SETTINGS, { http, now: () => NOW });
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('task-b'))).toEqual({ upstreamTaskId: 'tsk-b' });
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('task-c'))).toBeUndefined();
  });

  test('images are matched on their whole body too (the echo key is not relied on)', async () => {
    const r = validated('image', { model: 'I4YG1', prompt: 'cranes', n: 3 });
    const body = toBCreate(r.entry, r.request).body;
    const http = fakeHttp((c) =>
      new URL(c.url).pathname === '/v2/tasks'
        ? { status: 200, body: { isTruncated: false, data: [{ taskId: 'tsk-img' }, { taskId: 'tsk-img2' }] } }
        : {
            status: 200,
            body: c.url.endsWith('tsk-img')
              ? detail('tsk-img', body, 'imageGenerateRequest')
              : detail('tsk-img2', { ...body, n: 2 }, 'imageGenerateRequest'),
          },
    );
    expect(await createPlatformB(SETTINGS, { http, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k'))).toEqual({
      upstreamTaskId: 'tsk-img',
    });
  });

  test('a task gone between list and detail is skipped; a failing list fails the lookup (retried, never a blind re-send)', async () => {
    const r = kling();
    const gone = fakeHttp((c) =>
      new URL(c.url).pathname === '/v2/tasks'
        ? { status: 200, body: { data: [{ taskId: 'tsk-gone' }] } }
        : { status: 404, body: { code: 'TaskNotFound' } },
    );
    expect(await createPlatformB(SETTINGS, { http: gone, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k'))).toBeUndefined();
    const down = fakeHttp(() => ({
      status: 500,
      body: { code: 'InternalError', message: 'We encountered an internal error. Please try again.' },
    }));
    await expect(
      createPlatformB(SETTINGS, { http: down, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k')),
    ).rejects.toMatchObject({ retryable: true });
  });
});

/**
 * Whether B's task detail echoes the request exactly, with its defaults filled in, or without the
 * fields it ignored is not documented. Against the simulator set each way (/_sim/b/echo), a create whose answer is
 * lost (`[sim:submit=drop]`) is recovered: one job, adopted, no second create.
 */
describe('a lost create answer on B, against the simulator set to echo each way B could', () => {
  const kit = useLostAnswerSimulator();
  // A models-file correction naming Kling's duration field `durationSec` (what an operator does when B's real
  // name differs: an unconfirmed fact): the simulated B does not know that name, so it ignores the field — which the
  // "known-only" echo then drops, and the "defaults" echo fills in under B's own name.
  let dir: string;
  let renamed: Catalogue;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'b-echo-'));
    const file = join(dir, 'models.json');
    writeFileSync(file, JSON.stringify({ platform: { families: { kling: { fields: { duration: { name: 'durationSec' } } } } } }));
    renamed = buildCatalogue({ PLATFORM_B_MODELS_FILE: file });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test.each(['exact', 'defaults', 'known-only'] as const)('echo %s: the job is adopted, one job, no second create', async (echo) => {
    await kit.post('/_sim/b/echo', { echo });
    const { request } = normalised(
      'video',
      { model: 'K20', action: 'text_to_video', prompt: 'a fox in the snow [sim:submit=dropx1]', duration: 5 },
      renamed,
    );
    const outcome = await runSubmitAttempts(
      kit.adapter('B'),
      { platform: 'B', request, dedupKey: 'task_b-run1', taskId: 'task_b', deadlineAt: Date.now() + 3_600_000 },
      { catalogue: renamed },
    );
    const jobs = (await (await fetch(`${kit.sim().url}/_sim/jobs?platform=B`)).json()) as {
      id: string;
      meta: { request: unknown; echo?: unknown };
    }[];
    expect(jobs).toHaveLength(1);
    expect(outcome.result).toMatchObject({ upstreamTaskId: jobs[0]!.id, account: 'default' });
    expect(await kit.stats('B')).toMatchObject({ jobsCreated: 1, submitRequests: 1 });
    // The setting shaped what B showed: exact is the body as sent; the others differ from it.
    if (echo === 'exact') expect(jobs[0]!.meta.echo).toBeUndefined();
    else expect(jobs[0]!.meta.echo).not.toEqual(jobs[0]!.meta.request);
  });

  test('two identical jobs in the window (another client sent the very same request): nothing sent again, the task ends upstream_lost for an operator', async () => {
    const { request } = normalised('video', {
      model: 'K20',
      action: 'text_to_video',
      prompt: 'a twin fox [sim:submit=dropx2]',
      duration: 5,
    });
    // The twin: created by another client of the account just before (the same body: B cannot tell them apart).
    const twin = await runSubmitAttempts(
      kit.adapter('B'),
      { platform: 'B', request, dedupKey: 'other', taskId: 'other', deadlineAt: Date.now() + 3_600_000 },
      { maxAttempts: 1 },
    );
    expect(twin.error?.opts.noAnswer).toBe(true);
    const outcome = await runSubmitAttempts(
      kit.adapter('B'),
      { platform: 'B', request, dedupKey: 'task_b-run2', taskId: 'task_b2', deadlineAt: Date.now() + 3_600_000 },
      { maxAttempts: 2 },
    );
    expect(outcome.error?.opts).toMatchObject({ retryable: false, reason: 'upstream_lost', code: 'ambiguous' });
    expect(await kit.stats('B')).toMatchObject({ jobsCreated: 2, submitRequests: 2 });
    expect(outcome.reports).toMatchObject([{ platform: 'B', reason: 'ambiguous', taskId: 'task_b2', dedupKey: 'task_b-run2' }]);
    expect(outcome.reports[0]!.account).toMatch(/^127\.0\.0\.1:\d+ AK \w+…$/);
  });
});
