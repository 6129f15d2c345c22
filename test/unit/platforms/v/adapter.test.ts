/**
 * platforms/v/adapter.ts on the wire, against a recording HTTP double: the create with its seed marker and
 * deadline, and a poll for a task Ark no longer knows.
 */
import { createPlatformV } from '../../../../platforms/v/adapter';
import { normalised } from '../../../support/platform-kit';
import { fakeV, KEY, NOW, SEED, SETTINGS, V20 } from '../../../support/platforms/v';

describe('createPlatformV on the wire', () => {
  test('submit posts the body with the seed marker and the deadline as execution_expires_after', async () => {
    const { http, sent } = fakeV(() => ({ body: { id: 'cgt-1' } }));
    const { entry, request } = normalised('video', { model: V20, prompt: 'p', duration: 5 });
    const adapter = createPlatformV(SETTINGS, { http, now: () => NOW });
    await expect(adapter.submit(entry, request, { taskId: 'task_abc', dedupKey: KEY, deadlineAt: NOW + 3 * 3600_000 })).resolves.toEqual({
      upstreamTaskId: 'cgt-1',
    });
    expect(sent[0]).toMatchObject({
      method: 'POST',
      url: 'http://sim.test/api/v3/contents/generations/tasks',
      headers: { authorization: 'Bearer sim-v-key' },
    });
    expect(sent[0]!.body).toMatchObject({
      model: 'doubao-seedance-2-0-260128',
      seed: SEED,
      execution_expires_after: 3 * 3600,
      generate_audio: false,
    });
  });
});

describe('poll: a task Ark no longer knows', () => {
  test('a 404 on the task is a lost job (upstream_lost); a 404 naming the model stays the account’s problem', async () => {
    const { http } = fakeV((_m, url) =>
      url.pathname.endsWith('/cgt-gone')
        ? { status: 404, body: { error: { code: 'ResourceNotFound', message: 'The specified task cgt-gone is not found.' } } }
        : { status: 404, body: { error: { code: 'InvalidEndpointOrModel.NotFound', message: 'The model does not exist.' } } },
    );
    const adapter = createPlatformV(SETTINGS, { http });
    await expect(adapter.poll('video', 'cgt-gone')).rejects.toMatchObject({
      retryable: false,
      opts: { reason: 'upstream_lost', code: 'ResourceNotFound', httpStatus: 404 },
    });
    await expect(adapter.poll('video', 'cgt-other')).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_auth' } });
  });
});

describe('records: the task list reconciliation reads', () => {
  const task = (id: string, createdAtS: number, status = 'succeeded', tokens?: number) => ({
    id,
    model: 'doubao-seedance-1-0-pro-250528',
    status,
    created_at: createdAtS,
    ...(tokens === undefined ? {} : { usage: { completion_tokens: tokens, total_tokens: tokens } }),
  });
  const DAY = Date.parse('2026-11-28T00:00:00Z');
  const s = (ms: number) => Math.floor(ms / 1000);

  test('every page is read, paced, and only the window’s tasks are kept, with status, billing and tokens', async () => {
    const pages: Record<string, unknown[]> = {
      '1': [
        task('cgt-in', s(DAY + 3600_000), 'succeeded', 1000),
        ...Array.from({ length: 99 }, (_, i) => task(`cgt-old-${i}`, s(DAY - 3600_000), 'failed')),
      ],
      '2': [task('cgt-expired', s(DAY + 7200_000), 'expired'), task('cgt-next-day', s(DAY + 86_400_000))],
    };
    const { http, sent } = fakeV((_m, url) => ({ body: { total: 102, items: pages[url.searchParams.get('page_num')!] ?? [] } }));
    let paced = 0;
    const records = createPlatformV(SETTINGS, { http, now: () => NOW }).records!;
    const jobs = await records.jobs(DAY, DAY + 86_400_000, async () => void paced++);
    expect(jobs).toEqual([
      {
        upstreamTaskId: 'cgt-in',
        createdAt: DAY + 3600_000,
        model: 'doubao-seedance-1-0-pro-250528',
        status: 'succeeded',
        billed: true,
        usage: { tokens: 1000 },
      },
      {
        upstreamTaskId: 'cgt-expired',
        createdAt: DAY + 7200_000,
        model: 'doubao-seedance-1-0-pro-250528',
        status: 'expired',
        billed: false,
        usage: {},
      },
    ]);
    expect(sent.map((c) => new URL(c.url).search)).toEqual(['?page_num=1&page_size=100', '?page_num=2&page_size=100']);
    expect(paced).toBe(sent.length);
  });

  test('one task by id; null when Ark answers 404 (it has no record of it)', async () => {
    const { http } = fakeV((_m, url) =>
      url.pathname.endsWith('/cgt-gone')
        ? { status: 404, body: { error: { code: 'ResourceNotFound', message: 'not found' } } }
        : { body: task('cgt-here', s(NOW), 'succeeded', 42) },
    );
    const records = createPlatformV(SETTINGS, { http, now: () => NOW }).records!;
    expect(await records.job('cgt-gone', async () => undefined)).toBeNull();
    expect(await records.job('cgt-here', async () => undefined)).toMatchObject({
      upstreamTaskId: 'cgt-here',
      billed: true,
      usage: { tokens: 42 },
    });
  });
});
