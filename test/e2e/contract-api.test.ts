/**
 * Contract: every endpoint of docs/api.md "Endpoints" and every error status, over HTTP against the real stack. Responses are
 * parsed with the same zod schemas the OpenAPI document is generated from.
 */
import { validate as validateOpenApi } from '@readme/openapi-parser';
import { buildCatalogue } from '../../platforms';

const defaultCatalogue = buildCatalogue();
import { errorSchema, generationResultSchema, modelListSchema, taskListSchema, taskRecordSchema } from '../../api/response-schemas';
import { adminCall, makeKey } from '../support/admin-api';
import { E2E_ADMIN_TOKEN } from '../support/global-setup';
import { ApiClient, type Reply } from '../support/client';
import { unique } from '../support/prompts';
import { startExtraApi } from '../support/extra-api';
import { keptLink, withoutTokens } from '../support/result-links';
import { sharedStack } from '../support/shared-stack';
import { CAROL_LIMITS } from '../support/stack';
import { sleep, waitFor } from '../support/wait-for';

const { api, apiUrl, sim } = sharedStack();
const alice = api('alice');
const V10 = 'vendor-video-1-0-pro-250528';

describe('GET /openapi.json', () => {
  test('is a valid OpenAPI 3.1 document covering every route', async () => {
    const r = await api(null).get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const result = await validateOpenApi(structuredClone(r.body));
    expect(result).toMatchObject({ valid: true });
    // The spec's routes and the operational ones at least; that every route served is documented is
    // test/unit/api/openapi.test.ts's (it walks the router), so features adding routes do not edit this list.
    expect(Object.keys(r.body.paths)).toEqual(
      expect.arrayContaining([
        '/healthz',
        '/metrics',
        '/openapi.json',
        '/readyz',
        '/v1/async/images/generations',
        '/v1/async/videos/generations',
        '/v1/callbacks/{platform}',
        '/v1/callbacks/{platform}/{task_id}',
        '/v1/generations/{task_id}',
        '/v1/generations/{task_id}/cancel',
        '/v1/generations/{task_id}/content',
        '/v1/images/generations',
        '/v1/models',
        '/v1/models/{model_id}',
        '/v1/tasks',
        '/v1/usage',
        '/v1/videos/generations',
        '/v1/videos/generations/{task_id}',
      ]),
    );
    // Generated from the validating schemas: the request bodies list the spec fields.
    const video = r.body.components.schemas.VideoGenerationRequest;
    expect(Object.keys(video.properties)).toEqual(
      expect.arrayContaining(['model', 'prompt', 'duration', 'ratio', 'image', 'output_config', 'file_infos']),
    );
    expect(video.additionalProperties).toBe(false);
  });
});

describe('GET /v1/models', () => {
  test('lists every model of docs/api.md "Models" with platform, type and catalogue data', async () => {
    const r = await alice.get('/v1/models');
    expect(r.status).toBe(200);
    const all = modelListSchema.parse(r.body);
    // The catalogue's models, then the routes (owned_by "route"; test/e2e/openai-videos.test.ts and the system tests run them).
    const body = { data: all.data.filter((m) => m.owned_by !== 'route') };
    expect(all.data.filter((m) => m.owned_by === 'route').map((m) => m.id)).toEqual([
      'kling-2.1',
      'hailuo-2.3',
      'veo-3.1',
      'veo-3.1-fast',
      'vidu-q2',
    ]);
    // One entry per public id, listing its kinds: together they are every catalogue entry.
    const ids = body.data.flatMap((m) => m.kinds.map((k) => `${k}:${m.id}`));
    expect(ids).toHaveLength(defaultCatalogue.entries.length);
    expect(new Set(all.data.map((m) => m.id)).size).toBe(all.data.length);
    for (const e of defaultCatalogue.entries) expect(ids).toContain(`${e.kind}:${e.id}`);
    const gv = body.data.find((m) => m.id === 'GV-3.1')!;
    expect(gv).toMatchObject({ object: 'model', owned_by: 'T', type: 'video', durations: { values: [8] }, resolutions: ['720P', '1080P'] });
    const v20 = body.data.find((m) => m.id === 'vendor-video-2-0-260128')!;
    expect(v20).toMatchObject({ owned_by: 'V', durations: { min: 4, max: 15 } });
    expect(v20.capabilities).toEqual(expect.arrayContaining(['sound', 'reference_video']));
    expect(body.data.filter((m) => m.id === 'VendorK-2.1').map((m) => m.kinds)).toEqual([['video', 'image']]);
    // Platform B: what Baidu lists each model for (K21 is image-to-video only), and NB's limits.
    const k21 = body.data.find((m) => m.id === 'K21')!;
    expect(k21).toMatchObject({ owned_by: 'B', type: 'video', durations: { values: [5, 10] }, max_prompt_length: 2500 });
    expect(k21.capabilities).toEqual(expect.arrayContaining(['image_to_video']));
    expect(k21.capabilities).not.toContain('text_to_video');
    expect(body.data.find((m) => m.id === 'NB' && m.type === 'image')).toMatchObject({
      owned_by: 'B',
      max_images: 1,
      max_reference_images: 3,
      qualities: ['standard', '1K'],
    });
  });

  test('a key with an allowlist sees only its models, and others are 403', async () => {
    const carol = api('carol');
    const r = await carol.get('/v1/models');
    expect(r.body.data.map((m: { id: string }) => m.id).sort()).toEqual([...CAROL_LIMITS.models].sort());
    const denied = await carol.post('/v1/async/videos/generations', { model: 'vendor-video-2-0-260128', prompt: 'x', duration: 5 });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ type: 'permission_error', code: 'model_not_allowed', param: 'model' });
  });

  test('an allowlist names a route by its name: the admin API takes it, and the route (not its members) is allowed', async () => {
    const run = Date.now().toString(36);
    const routeKey = await makeKey(apiUrl, { id: `route-allowed-${run}`, models: ['hailuo-2.3'] });
    expect((await routeKey.get('/v1/models')).body.data.map((m: { id: string }) => m.id)).toEqual(['hailuo-2.3']);
    const viaRoute = await routeKey.post('/v1/async/videos/generations', {
      model: 'hailuo-2.3',
      action: 'text_to_video',
      prompt: unique('allowlist-route'),
      duration: 6,
    });
    expect(viaRoute.status).toBe(200);
    const member = await routeKey.post('/v1/async/videos/generations', { model: 'VendorH-2.3', prompt: 'x', duration: 6 });
    expect([member.status, member.body.error.code]).toEqual([403, 'model_not_allowed']);
    // A member allowed by its id does not allow the route (docs/api.md "Routes").
    const memberKey = await makeKey(apiUrl, { id: `member-allowed-${run}`, models: ['VendorH-2.3'] });
    const route = await memberKey.post('/v1/async/videos/generations', {
      model: 'hailuo-2.3',
      action: 'text_to_video',
      prompt: 'x',
      duration: 6,
    });
    expect([route.status, route.body.error.code]).toEqual([403, 'model_not_allowed']);
    // A name that is neither is still refused, naming the item.
    const unknown = await adminCall(apiUrl, 'POST', '/admin/v1/keys', { id: `unknown-allowed-${run}`, models: ['hailuo-9'] });
    expect([unknown.status, (unknown.body as { error: { param: string } }).error.param]).toEqual([400, 'models.0']);
  });
});

describe('error envelope for every non-2xx answer', () => {
  test('unknown route → 404, wrong method → 405, both in the envelope', async () => {
    const notFound = await alice.get('/v1/nothing-here');
    expect(notFound.status).toBe(404);
    expect(errorSchema.parse(notFound.body).error.code).toBe('route_not_found');
    const wrongMethod = await alice.request('DELETE', '/v1/models');
    expect(wrongMethod.status).toBe(405);
    expect(errorSchema.parse(wrongMethod.body).error.code).toBe('method_not_allowed');
    const getOnPost = await alice.get('/v1/videos/generations');
    expect(getOnPost.status).toBe(405);
  });

  test('malformed JSON → 400, non-JSON → 415, over 1 MiB → 413', async () => {
    const bad = await alice.request('POST', '/v1/videos/generations', {
      rawBody: '{"model": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(errorSchema.parse(bad.body).error.code).toBe('invalid_json');
    const text = await alice.request('POST', '/v1/videos/generations', { rawBody: 'model=x', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(errorSchema.parse(text.body).error.code).toBe('unsupported_media_type');
    const big = await alice.request('POST', '/v1/videos/generations', {
      rawBody: JSON.stringify({ model: V10, prompt: 'x'.repeat(1_100_000), duration: 5 }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(big.status).toBe(413);
    expect(errorSchema.parse(big.body).error.code).toBe('body_too_large');
  });

  test('X-Async with a value that is not true/false → 400 naming the header', async () => {
    const r = await alice.post('/v1/videos/generations', { model: V10, prompt: 'x', duration: 5 }, { 'X-Async': 'maybe' });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('X-Async');
  });

  test('X-Request-Id is echoed back, or generated', async () => {
    const given = await alice.get('/v1/models', { 'X-Request-Id': 'req-abc-123' });
    expect(given.headers.get('x-request-id')).toBe('req-abc-123');
    const generated = await alice.get('/v1/models');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('async submission and task records', () => {
  test('image generation, async: the task record through to success', async () => {
    const r = await alice.post('/v1/async/images/generations', { model: 'I4YG1', prompt: 'a lighthouse', n: 2, size: '1024x1024' });
    expect(r.status).toBe(200);
    expect(taskRecordSchema.parse(r.body)).toMatchObject({
      status: 'pending',
      model: 'I4YG1',
      message: expect.stringMatching(/GET \/v1\/generations\//),
    });
    const done = taskRecordSchema.parse(await alice.waitForTask(r.body.task_id));
    expect(done.status).toBe('success');
    expect(done.data).toHaveLength(2);
    // The legacy path works for image tasks too.
    expect((await alice.get(`/v1/videos/generations/${r.body.task_id}`)).body.status).toBe('success');
  });

  test('video generation, sync: the generation result', async () => {
    const r = await alice.post('/v1/videos/generations', { model: V10, prompt: 'waves', duration: 5 });
    expect(r.status).toBe(200);
    expect(generationResultSchema.parse(r.body).data[0]!.url).toMatch(/^http/);
  });
});

describe('GET /v1/tasks', () => {
  test("lists only the caller's tasks, paginated with page, page_size, total and has_more", async () => {
    const dave = api('dave');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await dave.post('/v1/async/videos/generations', { model: V10, prompt: `dave ${i}`, duration: 5 });
      ids.push(r.body.task_id);
    }
    await alice.post('/v1/async/videos/generations', { model: V10, prompt: 'not dave', duration: 5 });

    // Visibility is eventually consistent: wait (bounded) until all three are listed.
    let page1: any;
    for (let i = 0; i < 50; i++) {
      page1 = (await dave.get('/v1/tasks?page=1&page_size=2')).body;
      if (page1.total === 3) break;
      await sleep(200);
    }
    expect(taskListSchema.parse(page1)).toMatchObject({ object: 'list', page: 1, page_size: 2, total: 3, has_more: true });
    expect(page1.data).toHaveLength(2);
    const page2 = taskListSchema.parse((await dave.get('/v1/tasks?page=2&page_size=2')).body);
    expect(page2).toMatchObject({ page: 2, total: 3, has_more: false });
    expect(page2.data).toHaveLength(1);
    expect([...page1.data, ...page2.data].map((t: { task_id: string }) => t.task_id).sort()).toEqual([...ids].sort());

    const defaults = (await dave.get('/v1/tasks')).body;
    expect(defaults).toMatchObject({ page: 1, page_size: 20 });
  });

  test.each([
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['page_size=0', 'page_size'],
    ['page_size=101', 'page_size'],
    ['page_size=2.5', 'page_size'],
  ])('%s → 400 %s', async (query, param) => {
    const r = await alice.get(`/v1/tasks?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
  });
});

describe('a key made on another replica', () => {
  // A second API on the same database that reads the keys every 5 s: a key made on the shared API is unknown to it
  // until then, unless it asks the database.
  let other: Awaited<ReturnType<typeof startExtraApi>>;
  beforeAll(async () => {
    other = await startExtraApi({ KEYS_REFRESH_MS: '5000' });
  });
  afterAll(async () => {
    await other?.proc.stop();
  });

  test('is served at once by a replica that has not read it yet; a wrong key is still 401; a revocation reaches it within KEYS_REFRESH_MS', async () => {
    const id = `other-replica-${Date.now().toString(36)}`;
    const made = await makeKey(apiUrl, { id });
    const there = new ApiClient(other.url, made.key!);
    expect((await there.get('/v1/models')).status).toBe(200);
    const wrong = new ApiClient(other.url, 'sk-not-a-key-of-this-gateway-0123456789abcdef');
    for (let i = 0; i < 3; i++) expect((await wrong.get('/v1/models')).status).toBe(401);
    expect((await adminCall(apiUrl, 'DELETE', `/admin/v1/keys/${id}`)).status).toBe(200);
    // Bounded by three refresh intervals, not by their phase.
    await waitFor(async () => (await there.get('/v1/models')).status === 401 || undefined, 15_000);
  });
});

describe('GET /v1/models for a key with a budget', () => {
  test('each entry says whether the budget can count it, and why not; a key without a budget gets no such field', async () => {
    const run = Date.now().toString(36);
    const budgeted = await makeKey(apiUrl, { id: `models-budget-${run}`, budget: { amount: 5, currency: 'CNY', period: 'month' } });
    const models = modelListSchema.parse((await budgeted.get('/v1/models')).body).data;
    const byId = new Map(models.map((m) => [m.id, m]));
    // VQ1 has B's published price in CNY; V's Seedance has none.
    expect(byId.get('VQ1')!.budget).toEqual({ countable: true });
    expect(byId.get('vendor-video-1-0-pro-250528')!.budget).toEqual({
      countable: false,
      reason: expect.stringContaining('no price is known'),
    });
    expect(byId.get('vendor-video-1-0-pro-250528')!.budget!.reason).toContain('402 unpriced_model');
    expect(models.every((m) => m.budget !== undefined)).toBe(true);
    // Without `action`, B's video models take image-to-video, T's and V's read it from the inputs.
    const actionOf = (id: string) => (byId.get(id) as { default_action?: string }).default_action;
    expect([actionOf('VQ1'), actionOf('VendorQ-q2')]).toEqual(['image_to_video', 'by_input']);
    const usd = await makeKey(apiUrl, {
      id: `models-usd-${run}`,
      budget: { amount: 5, currency: 'USD', period: 'month' },
      allow_unpriced: true,
    });
    const vq1 = (await usd.get('/v1/models/VQ1')).body;
    expect(vq1.budget).toMatchObject({ countable: false, allowed_unpriced: true, reason: expect.stringContaining('priced in CNY') });
    expect((await alice.get('/v1/models')).body.data.some((m: { budget?: unknown }) => m.budget !== undefined)).toBe(false);
  });
});

describe("the admin lists' paging", () => {
  test('page=0 and page_size=0 are 400 on every admin list, and the OpenAPI document does not allow them either', async () => {
    const doc = (await alice.get('/openapi.json')).body as {
      paths: Record<string, { get?: { parameters?: { name: string; in: string; schema: { pattern?: string } }[] } }>;
    };
    const checked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/admin/v1/') || path.includes('{')) continue;
      for (const param of item.get?.parameters ?? []) {
        if (param.in !== 'query' || !['page', 'page_size'].includes(param.name)) continue;
        const pattern = new RegExp(param.schema.pattern!);
        expect([path, param.name, pattern.test('0'), pattern.test('1')]).toEqual([path, param.name, false, true]);
        const r = await adminCall(apiUrl, 'GET', `${path}?${param.name}=0`);
        expect([path, r.status, (r.body as { error: { param: string } }).error.param]).toEqual([path, 400, param.name]);
        checked.push(`${path} ${param.name}`);
      }
    }
    expect(checked).toEqual(expect.arrayContaining(['/admin/v1/keys page', '/admin/v1/keys page_size', '/admin/v1/tasks page_size']));
  });
});

describe('wrong admin tokens are limited per client address', () => {
  // An API of its own, so the limit reached here touches no other test's admin calls.
  let extra: Awaited<ReturnType<typeof startExtraApi>>;
  beforeAll(async () => {
    extra = await startExtraApi({ ADMIN_AUTH_FAILURES_PER_MINUTE: '5' });
  });
  afterAll(async () => {
    await extra?.proc.stop();
  });

  const signIn = (token: string) =>
    fetch(`${extra.url}/admin/v1/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token }),
    });
  const asAdmin = (token: string) => fetch(`${extra.url}/admin/v1/keys`, { headers: { Authorization: `Bearer ${token}` } });

  test('30 wrong sign-ins at once: 5 are 401, the rest 429 with Retry-After; then the right token is 429 too, at sign-in and as bearer', async () => {
    expect((await asAdmin(E2E_ADMIN_TOKEN)).status).toBe(200);
    const wrong = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(`wrong-admin-token-${i}-0123456789abcdefghijkl`)));
    const statuses = wrong.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    const refused = wrong.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('too_many_auth_failures');
    expect((await signIn(E2E_ADMIN_TOKEN)).status).toBe(429);
    expect((await asAdmin(E2E_ADMIN_TOKEN)).status).toBe(429);
    expect((await asAdmin('another-wrong-admin-token-0123456789abcdef')).status).toBe(429);
  });
});

describe('Idempotency-Key', () => {
  const key = () => `idem-${Date.now()}-${Math.random().toString(36).slice(2)}`;

  test('same key and body → the same task, one workflow, one upstream job', async () => {
    const k = key();
    const body = { model: V10, prompt: `idempotent ${k}`, duration: 5 };
    const first = await alice.post('/v1/async/videos/generations', body, { 'Idempotency-Key': k });
    // Concurrent retries of the same request.
    const again = await Promise.all([1, 2, 3, 4].map(() => alice.post('/v1/async/videos/generations', body, { 'Idempotency-Key': k })));
    for (const r of again) {
      expect(r.status).toBe(200);
      expect(r.body.task_id).toBe(first.body.task_id);
      expect(r.headers.get('idempotent-replayed')).toBe('true');
    }
    const done = await alice.waitForTask(first.body.task_id);
    expect(done.status).toBe('success');
    // Sync mode with the same key after completion returns the finished result, without a new job.
    const sync = await alice.post('/v1/videos/generations', body, { 'Idempotency-Key': k });
    expect(sync.status).toBe(200);
    // The same outputs; each read signs fresh link tokens, so only the tokens may differ.
    expect(withoutTokens(sync.body.data)).toEqual(withoutTokens(done.data));
    expect(sync.body.data[0].url).toMatch(keptLink(first.body.task_id));
    const submits = (await sim.requests('V', 'submit')).filter((q) => q.body?.content?.[0]?.text === body.prompt);
    expect(submits).toHaveLength(1);
  });

  test('same key, different body → 409; other keys are independent', async () => {
    const k = key();
    const first = await alice.post('/v1/async/videos/generations', { model: V10, prompt: `a ${k}`, duration: 5 }, { 'Idempotency-Key': k });
    const conflict = await alice.post(
      '/v1/async/videos/generations',
      { model: V10, prompt: `b ${k}`, duration: 5 },
      { 'Idempotency-Key': k },
    );
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ type: 'conflict_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    const bobs = await api('bob').post(
      '/v1/async/videos/generations',
      { model: V10, prompt: `a ${k}`, duration: 5 },
      { 'Idempotency-Key': k },
    );
    expect(bobs.status).toBe(200);
    expect(bobs.body.task_id).not.toBe(first.body.task_id);
  });

  test('an invalid key is 400 naming the header', async () => {
    const r = await alice.post(
      '/v1/async/videos/generations',
      { model: V10, prompt: 'x', duration: 5 },
      { 'Idempotency-Key': 'has space' },
    );
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('Idempotency-Key');
  });
});

describe('per-key limits', () => {
  test("request rate: the key file's per-key rate is enforced (429 with Retry-After)", async () => {
    // The limiter's exact arithmetic is unit-tested on a pinned clock (test/unit/api/key-limits.test.ts); here only
    // that carol's rate from API_KEYS_FILE reaches it. Bursts of 3× the rate until one is refused: however slow
    // the machine, a burst lands within a second long before the rounds run out.
    const carol = api('carol');
    let limited: Reply[] = [];
    for (let round = 0; round < 20 && limited.length === 0; round++) {
      const replies = await Promise.all(Array.from({ length: CAROL_LIMITS.rate_limit_rps * 3 }, () => carol.get('/v1/models')));
      limited = replies.filter((r) => r.status === 429);
    }
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    await sleep(1_100);
  });

  test('tasks in flight: beyond the cap → 429 and no workflow is started', async () => {
    const carol = api('carol');
    const prompt = `inflight ${Date.now()}`;
    const ok: string[] = [];
    for (let i = 0; i < CAROL_LIMITS.max_inflight; i++) {
      const r = await carol.post('/v1/async/videos/generations', { model: V10, prompt: `${prompt} ${i} [sim:duration=6000]`, duration: 5 });
      expect(r.status).toBe(200);
      ok.push(r.body.task_id);
    }
    const over = await carol.post('/v1/async/videos/generations', { model: V10, prompt: `${prompt} over`, duration: 5 });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('too_many_tasks_in_flight');
    expect(over.headers.get('retry-after')).toBeTruthy();
    const list = (await carol.get('/v1/tasks?page_size=100')).body;
    const others = list.data.filter(
      (t: { task_id: string; status: string }) => !ok.includes(t.task_id) && t.status !== 'success' && t.status !== 'failed',
    );
    expect(others).toEqual([]);
    for (const id of ok) expect((await carol.waitForTask(id)).status).toBe('success');
  });
});

describe('sync mode bounds', () => {
  let extra: Awaited<ReturnType<typeof startExtraApi>>;
  beforeAll(async () => {
    extra = await startExtraApi({ SYNC_TIMEOUT_MS: '1500' });
  });
  afterAll(async () => {
    await extra?.proc.stop();
  });

  test('past SYNC_TIMEOUT_MS the answer is 504 naming the task, and the task keeps running to success', async () => {
    const client = new ApiClient(extra.url, 'alice');
    const r = await client.post('/v1/videos/generations', { model: V10, prompt: 'slow [sim:duration=4000]', duration: 5 });
    expect(r.status).toBe(504);
    expect(r.body.error).toMatchObject({ type: 'timeout_error', code: 'sync_timeout', task_id: expect.any(String) });
    expect(r.body.error.message).toContain(r.body.error.task_id);
    const done = await client.waitForTask(r.body.error.task_id);
    expect(done.status).toBe('success');
  });

  test('a client that disconnects never cancels the task; it finds it again by Idempotency-Key', async () => {
    const k = `disconnect-${Date.now()}`;
    const body = { model: V10, prompt: `walk away ${k} [sim:duration=2500]`, duration: 5 };
    const abort = new AbortController();
    const pending = fetch(`${apiUrl}/v1/videos/generations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${'sk-test-alice-0123456789abcdef'}`, 'Content-Type': 'application/json', 'Idempotency-Key': k },
      body: JSON.stringify(body),
      signal: abort.signal,
    }).catch((e: Error) => e);
    await sim.waitForRequest('V', 'submit', (b) => b?.content?.[0]?.text === body.prompt);
    abort.abort();
    expect(String(await pending)).toMatch(/abort/i);

    const again = await alice.post('/v1/videos/generations', body, { 'Idempotency-Key': k });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data[0].url).toMatch(new RegExp(`/v1/generations/${again.body.task_id}/content\\?index=0&token=`));
    const file = await fetch(again.body.data[0].url);
    expect([file.status, file.headers.get('content-type')]).toEqual([200, 'video/mp4']);
  });
});
