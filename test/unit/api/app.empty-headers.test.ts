/**
 * A header sent empty is a malformed value, not an absent header — docs/api.md: both
 * `Idempotency-Key` and `X-Async` take only the values they list. An empty Idempotency-Key used to start a task
 * without idempotency (retries would each pay again), an empty X-Async a sync wait.
 */
import { AUTH, rawRequest, useTestApi } from '../../support/test-api';

const app = useTestApi();

const V_BODY = JSON.stringify({ model: 'vendor-video-1-0-pro-250528', prompt: 'a fox', duration: 5 });
const post = (path: string, headers: Record<string, string>) =>
  rawRequest(app.api.base, 'POST', path, { ...AUTH, 'Content-Type': 'application/json', ...headers }, V_BODY);

describe('headers sent empty', () => {
  test.each(['/v1/async/videos/generations', '/v1/videos/generations'])(
    'Idempotency-Key: (empty) on %s is 400 naming it; nothing started',
    async (path) => {
      const r = await post(path, { 'Idempotency-Key': '' });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ param: 'Idempotency-Key', code: 'invalid_idempotency_key' });
      expect(app.api.started).toHaveLength(0);
    },
  );

  test.each(['/v1/async/videos/generations', '/v1/videos/generations'])(
    'X-Async: (empty) on %s is 400 naming it; nothing started',
    async (path) => {
      const r = await post(path, { 'X-Async': '' });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ param: 'X-Async', code: 'invalid_header' });
      expect(app.api.started).toHaveLength(0);
    },
  );

  test('X-Async of spaces only is empty too (HTTP drops the spaces around a value)', async () => {
    const r = await post('/v1/videos/generations', { 'X-Async': '   ' });
    expect([r.status, r.body.error.param]).toEqual([400, 'X-Async']);
  });

  test('without either header: a task without idempotency, in async mode on /async', async () => {
    const r = await post('/v1/async/videos/generations', {});
    expect(r.status).toBe(200);
    expect(app.api.starts).toHaveLength(1);
    expect(app.api.starts[0]!.taskId).toMatch(/^task_/);
    const keyed = await post('/v1/async/videos/generations', { 'Idempotency-Key': 'k-1' });
    expect(keyed.status).toBe(200);
    // The key's task id is derived from it: the same key names the same task.
    const again = await post('/v1/async/videos/generations', { 'Idempotency-Key': 'k-1' });
    expect(again.body.task_id).toBe(keyed.body.task_id);
  });
});
