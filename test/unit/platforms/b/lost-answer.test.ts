/**
 * platforms/b/lost-answer.ts (with job-claims.ts): findSubmitted, the job a lost answer created, found by listing
 * from the first attempt and matching the echoed request exactly; twins and other tasks' jobs are never adopted.
 */
import { createPlatformB } from '../../../../platforms/b/adapter';
import { CLOCK_SKEW_MARGIN_MS, sameRequest } from '../../../../platforms/b/lost-answer';
import { toBCreate } from '../../../../platforms/b/request-body';
import { bceTimestamp } from '../../../../platforms/b/signing';
import { fakeHttp, validated } from '../../../support/platform-kit';
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
        return { status: 200, body: { isTruncated: more, marker: url.searchParams.get('marker') ?? '', ...(more ? { nextMarker: tasks[start + pageSize]!.id } : {}), data: page.map((t) => ({ taskId: t.id, type: 'VIDEO_GENERATE', status: 'RUNNING' })) } };
      }
      const id = url.pathname.split('/').pop()!;
      const t = tasks.find((x) => x.id === id);
      return t ? { status: 200, body: detail(t.id, t.request) } : { status: 404, body: { requestId: 'r', code: 'TaskNotFound', message: 'Task not found' } };
    });
  }

  test('lists from the first attempt less the clock-skew margin, pages with the marker, and adopts the one exact match', async () => {
    const r = kling();
    const others = Array.from({ length: 150 }, (_, i) => ({ id: `tsk-other${i}`, request: { model: 'K20', modelK20TaskInput: { prompt: `another ${i}`, duration: 5 } } }));
    const http = account([...others.slice(0, 120), { id: 'tsk-mine', request: bodyOf(r) }, ...others.slice(120)]);
    const adapter = createPlatformB(SETTINGS, { http, now: () => NOW });
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('k1', NOW - 10_000))).toEqual({ upstreamTaskId: 'tsk-mine' });
    const lists = http.calls.filter((c) => new URL(c.url).pathname === '/v2/tasks').map((c) => Object.fromEntries(new URL(c.url).searchParams));
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
    ['one more field', (b) => ({ ...b, modelK20TaskInput: { ...(b.modelK20TaskInput as object), mode: 'pro' } })],
    ['one field less', (b) => ({ ...b, modelK20TaskInput: { prompt: 'a fox in the snow' } })],
    ['another model', (b) => ({ model: 'K16', modelK16TaskInput: b.modelK20TaskInput })],
  ])('no adoption when the echoed request differs: %s', async (_name, change) => {
    const r = kling();
    const http = account([{ id: 'tsk-near', request: change(bodyOf(r) as Record<string, unknown>) }]);
    expect(await createPlatformB(SETTINGS, { http, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k1'))).toBeUndefined();
  });

  test('key order and null members do not matter', () => {
    expect(sameRequest({ model: 'K20', modelK20TaskInput: { prompt: 'p', duration: 5 } }, { modelK20TaskInput: { duration: 5, prompt: 'p', seed: null }, model: 'K20' })).toBe(true);
    expect(sameRequest({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });

  test('two identical bodies nobody claims are ambiguous: none is adopted (a new job rather than another task’s result)', async () => {
    const r = kling();
    const http = account([
      { id: 'tsk-twin1', request: bodyOf(r) },
      { id: 'tsk-twin2', request: bodyOf(r) },
    ]);
    expect(await createPlatformB(SETTINGS, { http, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k1'))).toBeUndefined();
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
        : { status: 200, body: c.url.endsWith('tsk-img') ? detail('tsk-img', body, 'imageGenerateRequest') : detail('tsk-img2', { ...body, n: 2 }, 'imageGenerateRequest') },
    );
    expect(await createPlatformB(SETTINGS, { http, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k'))).toEqual({ upstreamTaskId: 'tsk-img' });
  });

  test('a task gone between list and detail is skipped; a failing list fails the lookup (retried, never a blind re-send)', async () => {
    const r = kling();
    const gone = fakeHttp((c) => (new URL(c.url).pathname === '/v2/tasks' ? { status: 200, body: { data: [{ taskId: 'tsk-gone' }] } } : { status: 404, body: { code: 'TaskNotFound' } }));
    expect(await createPlatformB(SETTINGS, { http: gone, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k'))).toBeUndefined();
    const down = fakeHttp(() => ({ status: 500, body: { code: 'InternalError', message: 'We encountered an internal error. Please try again.' } }));
    await expect(createPlatformB(SETTINGS, { http: down, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k'))).rejects.toMatchObject({ retryable: true });
  });
});
