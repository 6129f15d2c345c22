/**
 * sim/b/index.ts, over real HTTP: no idempotency (identical creates are two jobs), lost answers, and injected faults;
 * several accounts, each with its own tasks and callback configuration, and account faults (/_sim/b/account-faults).
 */
import { bceTimestamp } from '../../../../sim/b/signing';
import { simBAccount } from '../../../../sim/accounts';
import { call, getJson, sim, sim_, signedBy, t2v, createT2V, imageBody, getTask, useBSimulator } from '../../../support/sim/b';

useBSimulator();

describe('no idempotency, lost answers, faults', () => {
  test('two identical creates are two billed tasks', async () => {
    const body = t2v('K26', { prompt: 'same' });
    const a = await call('POST', '/v2/aigc/text_to_video', [], body, {
      headers: { 'x-bce-request-id': '11111111-1111-4111-8111-111111111111' },
    });
    const b = await call('POST', '/v2/aigc/text_to_video', [], body, {
      headers: { 'x-bce-request-id': '11111111-1111-4111-8111-111111111111' },
    });
    expect(a.body.taskId).not.toBe(b.body.taskId);
    const s = await sim_.stats();
    expect([s.submitRequests, s.jobsCreated, s.dedupRefusals]).toEqual([2, 2, 0]);
  });

  test('drop: the task is created and billed, the answer is lost, and the list + detail echo find it again', async () => {
    const before = bceTimestamp(Date.now() - 1000);
    const body = t2v('VE3.1', { prompt: 'lost answer [sim:submit=drop]', durationSeconds: 4 });
    await expect(call('POST', '/v2/aigc/text_to_video', [], body)).rejects.toThrow();
    const s = await sim_.stats();
    expect([s.jobsCreated, s.answersDropped]).toEqual([1, 1]);
    // Reconcile: list the window, then read each candidate's echoed request.
    const list = (
      await call('GET', '/v2/tasks', [
        ['beginTime', before],
        ['type', 'VIDEO_GENERATE'],
      ])
    ).body.data;
    expect(list).toHaveLength(1);
    const detail = (await getTask(list[0].taskId)).body;
    expect(detail.videoGenerateTaskInfo.videoGenerateTaskInput.textToVideoRequest).toEqual(body);
    // The directive faults the first create only: a retry goes through (and is a second task).
    expect((await call('POST', '/v2/aigc/text_to_video', [], body)).status).toBe(200);
    expect((await sim_.stats()).jobsCreated).toBe(2);
  });

  test("injected 500/503/429 in B's error shape; 429 on VE3.1 is its documented 500 throttling answer", async () => {
    const fault = (status: number | string, op = 'submit') => sim_.post('/_sim/faults', { platform: 'B', op, status, count: 1 });
    await fault(500);
    let r = await createT2V('VQ2', { prompt: 'p' });
    expect([r.status, r.body.code, r.body.message]).toEqual([500, 'InternalError', 'We encountered an internal error. Please try again.']);
    expect(r.headers['x-bce-request-id']).toBe(r.body.requestId);
    await fault(503);
    r = await createT2V('VQ2', { prompt: 'p' });
    expect([r.status, r.body.code]).toEqual([503, 'ServiceUnavailable']);
    await fault(429);
    r = await createT2V('VE3.1F', { prompt: 'p' });
    expect([r.status, r.body.code, r.body.message]).toEqual([500, 'InternalError', 'Internal error. Please try again later.']);
    await fault(429);
    r = await createT2V('VQ2', { prompt: 'p' });
    expect([r.status, r.body.code]).toEqual([429, 'TooManyRequests']);
    expect((await sim_.stats()).jobsCreated).toBe(0);
    // Poll faults by directive.
    const { taskId } = (await createT2V('VQ2', { prompt: 'p [sim:poll=500x2]' })).body;
    expect((await getTask(taskId)).status).toBe(500);
    expect((await getTask(taskId)).status).toBe(500);
    expect((await getTask(taskId)).status).toBe(200);
  });

  test('no cancel endpoint: cancel-like URIs are unknown URIs (404 NotFound), recorded as cancel attempts', async () => {
    const { taskId } = (await createT2V('VQ2', { prompt: 'p [sim:never]' })).body;
    for (const [method, path] of [
      ['POST', `/v2/tasks/${taskId}/cancel`],
      ['DELETE', `/v2/tasks/${taskId}`],
      ['POST', `/v2/aigc/task/${taskId}/stop`],
    ]) {
      const r = await call(method!, path!, [], method === 'POST' ? {} : undefined);
      expect([r.status, r.body.code]).toEqual([404, 'NotFound']);
    }
    expect((await sim_.stats()).cancels).toBe(3);
    expect((await getTask(taskId)).body.status).not.toBe('CANCELLED');
    expect((await call('GET', '/v2/nothing/here')).status).toBe(404);
  });

  test('non-JSON bodies: MalformedJSON (after authentication); JSON under another content type is taken', async () => {
    let r = await call('POST', '/v2/aigc/text_to_video', [], undefined, { rawBody: '{"model": "VQ2",' });
    expect([r.status, r.body.code]).toEqual([400, 'MalformedJSON']);
    expect(r.headers['x-bce-request-id']).toBe(r.body.requestId);
    r = await call('POST', '/v2/aigc/text_to_video', [], undefined, { rawBody: '{"model": "VQ2",', auth: 'none' });
    expect([r.status, r.body.code]).toEqual([400, 'InvalidHTTPAuthHeader']);
    r = await call('POST', '/v2/aigc/image', [], undefined, { rawBody: 'model=NB', contentType: 'text/plain' });
    expect([r.status, r.body.code]).toEqual([400, 'MalformedJSON']);
    r = await call('POST', '/v2/aigc/image', [], undefined, { rawBody: JSON.stringify(imageBody('NB')), contentType: 'text/plain' });
    expect(r.status).toBe(200);
    const s = await sim_.stats();
    expect([s.submitRequests, s.jobsCreated]).toEqual([4, 1]);
  });

  test('recorded requests show what B received and answered', async () => {
    await createT2V('VQ2', { prompt: 'rec' });
    const recs: any[] = await getJson('/_sim/requests?platform=B&op=submit');
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({ path: '/v2/aigc/text_to_video', status: 200, response: { taskId: expect.any(String) } });
    expect(recs[0].headers.authorization).toMatch(/^bce-auth-v1\/simbaccesskeyid0+a\/\S+\/1800\/host;x-bce-date\/[0-9a-f]{64}$/);
  });
});

describe('several accounts (sim/accounts.ts simBAccount): each with its own tasks and callback configuration, and account faults', () => {
  const one = simBAccount('one');
  const two = simBAccount('two');

  test('each further account has its own keys and account id, derived from its name', () => {
    expect(simBAccount('one')).toEqual(one);
    expect(one.accessKeyId).toBe('simbak-one');
    expect(new Set([one.secretAccessKey, two.secretAccessKey]).size).toBe(2);
    expect(new Set([one.userId, two.userId]).size).toBe(2);
    expect(one.apiKey).toMatch(/^bce-v3\/ALTAK-sim-one\//);
  });

  test('a task is read and listed through the account that created it (AK/SK or its API key); another account gets 404', async () => {
    const created = await call('POST', '/v2/aigc/text_to_video', [], t2v('VQ2', { prompt: 'a fox' }), signedBy(one));
    expect(created.status).toBe(200);
    const id = created.body.taskId as string;
    expect((await call('GET', `/v2/tasks/${id}`, [], undefined, signedBy(one))).status).toBe(200);
    expect((await call('GET', `/v3/tasks/${id}`, [], undefined, { auth: `Bearer ${one.apiKey}` })).status).toBe(200);
    const other = await call('GET', `/v2/tasks/${id}`, [], undefined, signedBy(two));
    expect([other.status, other.body.code]).toEqual([404, 'TaskNotFound']);
    expect((await call('GET', `/v3/tasks/${id}`, [], undefined, { auth: `Bearer ${two.apiKey}` })).status).toBe(404);
    expect((await call('GET', `/v2/tasks/${id}`)).status).toBe(404);
    expect((await call('GET', '/v2/tasks', [], undefined, signedBy(two))).body.data).toEqual([]);
    expect((await call('GET', '/v2/tasks', [], undefined, signedBy(one))).body.data.map((x: { taskId: string }) => x.taskId)).toEqual([id]);
  });

  test('a further account signs with its own secret; an API key of a name with another secret part is refused', async () => {
    const wrong = await call('GET', '/v2/tasks', [], undefined, { ak: one.accessKeyId, sk: two.secretAccessKey });
    expect([wrong.status, wrong.body.code]).toEqual([400, 'SignatureDoesNotMatch']);
    const forged = one.apiKey.replace(/\/[0-9a-f]{32}$/, `/${'0'.repeat(32)}`);
    expect((await call('GET', '/v3/tasks/tsk-x', [], undefined, { auth: `Bearer ${forged}` })).status).toBe(401);
  });

  test('each account has its own callback configuration', async () => {
    expect((await call('PUT', '/v2/callback', [], { callbackUrl: 'http://127.0.0.1:9/one' }, signedBy(one))).status).toBe(200);
    expect((await call('GET', '/v2/callback', [], undefined, signedBy(one))).body.callbackUrl).toBe('http://127.0.0.1:9/one');
    expect((await call('GET', '/v2/callback', [], undefined, signedBy(two))).body.callbackUrl).toBe('');
    expect((await call('GET', '/v2/callback')).body.callbackUrl).toBe('');
  });

  test('account faults: one account in arrears (403 naming it) while the other creates; count and op; DELETE clears', async () => {
    expect((await sim_.post('/_sim/b/account-faults', { code: 'Arrears', access_key_id: one.accessKeyId })).status).toBe(200);
    const refused = await call('POST', '/v2/aigc/text_to_video', [], t2v('VQ2', { prompt: 'a fox' }), signedBy(one));
    expect([refused.status, refused.body.code]).toEqual([403, 'AccessDenied']);
    expect(refused.body.message).toMatch(/arrears/);
    expect((await call('POST', '/v2/aigc/text_to_video', [], t2v('VQ2', { prompt: 'a fox' }), signedBy(two))).status).toBe(200);
    expect((await sim_.jobs()).map((j) => j.meta.owner)).toEqual([two.accessKeyId]);
    await fetch(`${sim.url}/_sim/b/account-faults`, { method: 'DELETE' });
    expect((await call('POST', '/v2/aigc/text_to_video', [], t2v('VQ2', { prompt: 'a fox' }), signedBy(one))).status).toBe(200);

    await sim_.post('/_sim/b/account-faults', { code: 'InvalidAccessKeyId', op: 'list', count: 1 });
    expect((await call('GET', '/v2/tasks')).body.code).toBe('InvalidAccessKeyId');
    expect((await call('GET', '/v2/tasks')).status).toBe(200);
    const bad = await sim_.post('/_sim/b/account-faults', { code: 'Arrears', access_key_id: 'nobody' });
    expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([400, expect.stringMatching(/^access_key_id must name/)]);
  });
});
