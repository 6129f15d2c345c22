/**
 * platforms/v/lost-answer.ts: the lost job found through the task list and the seed marker, never another
 * submit's job, and a list that cannot be read is an error rather than "no job".
 */
import { createPlatformV } from '../../../../platforms/v/adapter';
import { LOOKUP_CLOCK_SKEW_S } from '../../../../platforms/v/lost-answer';
import { markerSeed } from '../../../../platforms/v/request-body';
import { normalised } from '../../../support/platform-kit';
import { fakeV, KEY, NOW, SEED, SETTINGS, V10 } from '../../../support/platforms/v';

describe('findSubmitted: the lost job, through the task list and the seed marker', () => {
  const since = NOW - 30_000;
  const ctx = { taskId: 'task_abc', dedupKey: KEY, deadlineAt: NOW + 3600_000, since };
  const sinceS = Math.floor(since / 1000);
  const task = (id: string, seed: number, createdAt = sinceS + 5, model = 'doubao-seedance-1-0-pro-250528') => ({ id, model, status: 'queued', seed, created_at: createdAt });
  const entry = () => normalised('video', { model: V10, prompt: 'p', duration: 5 });

  test('lists the model\'s tasks (filter.model) and adopts the one carrying this submit\'s seed', async () => {
    const { http, sent } = fakeV(() => ({ body: { total: 3, items: [task('cgt-other', SEED + 1), task('cgt-mine', SEED), task('cgt-old', SEED + 2, sinceS - 3600)] } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).resolves.toEqual({ upstreamTaskId: 'cgt-mine' });
    const url = new URL(sent[0]!.url);
    expect(sent[0]!.method).toBe('GET');
    expect(url.pathname).toBe('/api/v3/contents/generations/tasks');
    expect(Object.fromEntries(url.searchParams)).toEqual({ page_num: '1', page_size: '100', 'filter.model': 'doubao-seedance-1-0-pro-250528' });
  });

  test('another submit\'s job is never adopted: another seed, or the same seed before the window', async () => {
    const { http } = fakeV(() => ({ body: { total: 2, items: [task('cgt-a', markerSeed('task_zzz-run')), task('cgt-b', SEED, sinceS - LOOKUP_CLOCK_SKEW_S - 1)] } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).resolves.toBeUndefined();
  });

  test('a job within the clock-skew margin before the first attempt is still found', async () => {
    const { http } = fakeV(() => ({ body: { total: 1, items: [task('cgt-mine', SEED, sinceS - LOOKUP_CLOCK_SKEW_S + 1)] } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).resolves.toEqual({ upstreamTaskId: 'cgt-mine' });
  });

  test('pages on until the list is exhausted; stops early once a newest-first page reaches before the window', async () => {
    const full = (page: number, createdAt: number) => Array.from({ length: 100 }, (_, i) => task(`cgt-${page}-${i}`, 7, createdAt - i));
    const pages: Record<string, unknown[]> = { '1': full(1, sinceS + 500), '2': [task('cgt-mine', SEED)] };
    const { http, sent } = fakeV((_m, url) => ({ body: { total: 101, items: pages[url.searchParams.get('page_num')!] ?? [] } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).resolves.toEqual({ upstreamTaskId: 'cgt-mine' });
    expect(sent.map((s) => new URL(s.url).searchParams.get('page_num'))).toEqual(['1', '2']);

    const old: Record<string, unknown[]> = { '1': full(1, sinceS - LOOKUP_CLOCK_SKEW_S + 50), '2': [task('cgt-never-read', SEED)] };
    const second = fakeV((_m, url) => ({ body: { total: 101, items: old[url.searchParams.get('page_num')!] ?? [] } }));
    await expect(createPlatformV(SETTINGS, { http: second.http }).findSubmitted!(e, request, ctx)).resolves.toBeUndefined();
    expect(second.sent).toHaveLength(1);
  });

  test('a list the platform cannot answer is an error (retried), never "no job" (which would re-send and pay twice)', async () => {
    const { http } = fakeV(() => ({ status: 503, body: { error: { code: 'ServiceUnavailable', message: 'down' } } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).rejects.toMatchObject({ retryable: true });
  });
});
