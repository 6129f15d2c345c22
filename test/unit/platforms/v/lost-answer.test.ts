/**
 * platforms/v/lost-answer.ts: the lost job found through the task list and the seed marker, never another
 * submit's job, and a list that cannot be read is an error rather than "no job".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalogue } from '../../../../core/catalogue';
import { buildCatalogue } from '../../../../platforms';
import { createPlatformV } from '../../../../platforms/v/adapter';
import { LOOKUP_CLOCK_SKEW_S } from '../../../../platforms/v/lost-answer';
import { markerSeed } from '../../../../platforms/v/request-body';
import { runSubmitAttempts, useLostAnswerSimulator } from '../../../support/lost-answers';
import { normalised } from '../../../support/platform-kit';
import { fakeV, KEY, NOW, SEED, SETTINGS, V10 } from '../../../support/platforms/v';

describe('findSubmitted: the lost job, through the task list and the seed marker', () => {
  const since = NOW - 30_000;
  const ctx = { taskId: 'task_abc', dedupKey: KEY, deadlineAt: NOW + 3600_000, since };
  const sinceS = Math.floor(since / 1000);
  const task = (id: string, seed: number, createdAt = sinceS + 5, model = 'doubao-seedance-1-0-pro-250528') => ({
    id,
    model,
    status: 'queued',
    seed,
    created_at: createdAt,
  });
  const entry = () => normalised('video', { model: V10, prompt: 'p', duration: 5 });

  test("lists the model's tasks (filter.model) and adopts the one carrying this submit's seed", async () => {
    const { http, sent } = fakeV(() => ({
      body: { total: 3, items: [task('cgt-other', SEED + 1), task('cgt-mine', SEED), task('cgt-old', SEED + 2, sinceS - 3600)] },
    }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).resolves.toEqual({ upstreamTaskId: 'cgt-mine' });
    const url = new URL(sent[0]!.url);
    expect(sent[0]!.method).toBe('GET');
    expect(url.pathname).toBe('/api/v3/contents/generations/tasks');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      page_num: '1',
      page_size: '100',
      'filter.model': 'doubao-seedance-1-0-pro-250528',
    });
  });

  test("another submit's job is never adopted: another seed, or the same seed before the window", async () => {
    const { http } = fakeV(() => ({
      body: { total: 2, items: [task('cgt-a', markerSeed('task_zzz-run')), task('cgt-b', SEED, sinceS - LOOKUP_CLOCK_SKEW_S - 1)] },
    }));
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

/**
 * A model entry naming an inference endpoint (`ep-…`, which the models file allows): whether Ark
 * lists such a task's `model` as the endpoint id or as the model's name is not documented. Against the simulator
 * set each way (/_sim/v/endpoints listedModel), a create whose answer is lost (`[sim:submit=drop]`) is recovered:
 * one job, adopted, never a second create.
 */
describe('a lost create answer through an endpoint id, against the simulator set each way Ark could list it', () => {
  const kit = useLostAnswerSimulator();
  const ENDPOINT = 'ep-20250601120000-abcde';
  let dir: string;
  let endpointCatalogue: Catalogue;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'v-endpoint-'));
    const file = join(dir, 'models.json');
    writeFileSync(file, JSON.stringify({ models: { [V10]: { upstream: { model: ENDPOINT } } } }));
    env = { PLATFORM_V_MODELS_FILE: file };
    endpointCatalogue = buildCatalogue(env);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test.each(['endpoint', 'model'] as const)(
    "the list shows the %s as the task's model: the job is adopted, one job, no second create",
    async (listedModel) => {
      await kit.post('/_sim/v/endpoints', { endpoints: { [ENDPOINT]: 'doubao-seedance-1-0-pro-250528' }, listedModel });
      const { request } = normalised('video', { model: V10, prompt: 'a red fox [sim:submit=dropx1]', duration: 5 }, endpointCatalogue);
      const outcome = await runSubmitAttempts(
        kit.adapter('V', env),
        { platform: 'V', request, dedupKey: 'task_ep-run1', taskId: 'task_ep', deadlineAt: Date.now() + 3_600_000 },
        { catalogue: endpointCatalogue },
      );
      const jobs = (await (await fetch(`${kit.sim().url}/_sim/jobs?platform=V`)).json()) as { id: string; view: unknown }[];
      expect(jobs).toHaveLength(1);
      expect(outcome.result).toMatchObject({ upstreamTaskId: jobs[0]!.id, account: 'default' });
      expect(await kit.stats('V')).toMatchObject({ jobsCreated: 1, submitRequests: 1 });
      // What the list showed, as Ark would (the simulator's setting took effect).
      const listed = (await (await fetch(`${kit.sim().url}/_sim/requests?platform=V&op=list`)).json()) as {
        response: { items: { model: string }[] };
      }[];
      expect(listed.at(-1)!.response.items[0]!.model).toBe(listedModel === 'endpoint' ? ENDPOINT : 'doubao-seedance-1-0-pro-250528');
    },
  );
});
