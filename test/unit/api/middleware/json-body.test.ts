/**
 * A deeply nested JSON body is a 400 naming the depth limit, decided by a scan of the text
 * before parsing, wherever the nesting is (an unknown field, a cancel body that needs none); never a 500 from a
 * stack overflow, and never enough work to hold up other requests.
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../../api/middleware/json-body';
import { postJson, rawRequest, useTestApi } from '../../../support/test-api';

const app = useTestApi();

const V_BODY = { model: 'vendor-video-1-0-pro-250528', prompt: 'a fox', duration: 5 };
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('deeply nested JSON', () => {
  test.each([5_000, 100_000])('%i levels in an unknown field is 400 invalid_json naming the limit; nothing started', async (depth) => {
    const r = await postJson(
      app.api.base,
      '/v1/async/videos/generations',
      `{"model":"vendor-video-1-0-pro-250528","prompt":"a fox","duration":5,"extra":${nested(depth)}}`,
    );
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      code: 'invalid_json',
      param: 'body',
      message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels`),
    });
    expect(app.api.started).toHaveLength(0);
  });

  test('objects count as levels too, and a cancel body (which needs none) is checked the same', async () => {
    const deepObjects = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const r = await postJson(app.api.base, '/v1/generations/task_abc/cancel', deepObjects);
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_json']);
  });

  test('the limit itself is accepted; one level more is not; brackets inside strings do not count', async () => {
    const atLimit = { ...V_BODY, extra: JSON.parse(nested(MAX_JSON_DEPTH - 1)) };
    // At the limit the depth check passes and validation speaks: the unknown field, not the nesting.
    const ok = await postJson(app.api.base, '/v1/async/videos/generations', atLimit);
    expect(ok.body.error).toMatchObject({ code: 'unknown_parameter', param: 'extra' });
    const over = await postJson(app.api.base, '/v1/async/videos/generations', { ...V_BODY, extra: JSON.parse(nested(MAX_JSON_DEPTH)) });
    expect(over.body.error.code).toBe('invalid_json');
    const bracketsInText = await postJson(app.api.base, '/v1/async/videos/generations', {
      ...V_BODY,
      prompt: `a fox ${'[{'.repeat(500)} \\" ${'['.repeat(100)}`,
    });
    expect(bracketsInText.status).toBe(200);
    expect(app.api.started).toHaveLength(1);
  });

  // How fast /healthz answers meanwhile is the bench's to measure (never a timed assertion here, on a shared CPU).
  test('20 deep bodies at once are each refused, and /healthz answers meanwhile', async () => {
    const deep = `{"model":"x","extra":${nested(200_000)}}`;
    const flood = Array.from({ length: 20 }, () => postJson(app.api.base, '/v1/async/videos/generations', deep));
    const health = await rawRequest(app.api.base, 'GET', '/healthz', {});
    const answers = await Promise.all(flood);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(400));
    expect(health.status).toBe(200);
  });
});

describe('nestsDeeperThan', () => {
  test('counts unescaped brackets outside strings only', () => {
    expect(nestsDeeperThan('[[[]]]', 3)).toBe(false);
    expect(nestsDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(nestsDeeperThan('["[[[[\\"[[[["]', 1)).toBe(false);
    expect(nestsDeeperThan('[[],[],[[]]]', 3)).toBe(false);
  });
});
