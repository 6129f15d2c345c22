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
