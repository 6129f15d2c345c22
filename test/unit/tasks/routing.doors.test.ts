/**
 * Routes at the API's doors, over real HTTP with the real start path (test/support/test-api.ts): GET /v1/models
 * lists them with their members and what they accept; every door takes a route where it takes a model, starting the
 * task with the members that can take the request; a request none can take is the first member's 400 naming the
 * field, with nothing started; X-Route-Explain asks for the members tried and skipped, and nothing is said otherwise.
 */
import { modelListSchema, routeModelSchema } from '../../../api/response-schemas';
import { buildCatalogue } from '../../../platforms';
import { parseRoutesFile, routeTableOf } from '../../../platforms/routes-file';
import { multipartForm } from '../../support/forms';
import { AUTH, postJson, useTestApi } from '../../support/test-api';

const t = useTestApi();

describe('GET /v1/models', () => {
  test('lists every shipped route after the models: owned_by route, its members in order, what it accepts', async () => {
    const r = await t.api.get('/v1/models');
    expect(r.status).toBe(200);
    modelListSchema.parse(r.body);
    const routes = (r.body.data as { id: string; owned_by: string }[]).filter((m) => m.owned_by === 'route').map((m) => m.id);
    expect(routes).toEqual(['kling-2.1', 'hailuo-2.3', 'veo-3.1', 'veo-3.1-fast', 'vidu-q2']);
  });

  test('GET /v1/models/veo-3.1: the union of its members’ limits, and each member with its platform, price and evidence', async () => {
    const r = await t.api.get('/v1/models/veo-3.1');
    expect(r.status).toBe(200);
    expect(routeModelSchema.parse(r.body)).toMatchObject({
      id: 'veo-3.1',
      object: 'model',
      owned_by: 'route',
      platform_name: 'a route over platform T and platform B',
      type: 'video',
      durations: { values: [4, 6, 8] },
      resolutions: ['720P', '1080P', '4k'],
      route: {
        policy: 'priority',
        members: [
          { model: 'GV-3.1', platform: 'T', weight: 1, price: null, source: expect.stringContaining('[OFF]') },
          { model: 'VE3.1', platform: 'B', weight: 1, price: null, source: expect.stringContaining('[OFF]') },
        ],
      },
      price: null,
    });
  });
});

describe('a route at the generation doors', () => {
  const veo = { model: 'veo-3.1', action: 'text_to_video', prompt: 'a heron' };

  test('a request both members take starts one task with both, in order, each with its own rules’ request', async () => {
    const r = await t.api.post('/v1/async/videos/generations', { ...veo, duration: 8 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'pending', model: 'veo-3.1' });
    expect(t.api.starts).toHaveLength(1);
    expect(t.api.starts[0]!.route).toEqual({
      name: 'veo-3.1',
      members: [
        { platform: 'T', model: 'GV-3.1', request: expect.objectContaining({ model: 'GV-3.1', duration: 8 }) },
        { platform: 'B', model: 'VE3.1', request: expect.objectContaining({ model: 'VE3.1', duration: 8 }) },
      ],
    });
  });

  test('a duration only B allows: the task starts with B alone; nothing is said of T unless asked', async () => {
    const quiet = await postJson(t.api.base, '/v1/async/videos/generations', { ...veo, duration: 4 });
    expect(quiet.status).toBe(200);
    expect(quiet.headers['x-route-candidates']).toBeUndefined();
    expect(quiet.headers['x-route-skipped']).toBeUndefined();
    expect(t.api.starts[0]!.route?.members.map((m) => m.model)).toEqual(['VE3.1']);

    const asked = await postJson(t.api.base, '/v1/async/videos/generations', { ...veo, duration: 4 }, { 'X-Route-Explain': 'true' });
    expect(asked.status).toBe(200);
    expect(asked.headers['x-route-candidates']).toBe('"VE3.1";platform="B"');
    expect(asked.headers['x-route-skipped']).toMatch(
      /^"GV-3\.1";platform="T";code="invalid_value";param="duration";message="duration 4 is not supported by GV-3\.1[^"]*"$/,
    );
  });

  test('a request no member can take: the first member’s 400 naming the field, nothing started', async () => {
    const r = await t.api.post('/v1/videos/generations', { ...veo, duration: 5 });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'duration', code: 'invalid_value' });
    expect(r.body.error.message).toMatch(/^duration 5 is not supported by GV-3\.1/);
    expect(t.api.starts).toEqual([]);
  });

  test('X-Route-Explain other than true/false/1/0 is a 400 naming it, before anything starts', async () => {
    const r = await postJson(t.api.base, '/v1/async/videos/generations', { ...veo, duration: 8 }, { 'X-Route-Explain': 'maybe' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ param: 'X-Route-Explain', code: 'invalid_header' });
    expect(t.api.starts).toEqual([]);
  });

  test('a video route at the image door is refused as any model the door does not know: 400 model_not_found naming model', async () => {
    const r = await t.api.post('/v1/async/images/generations', { model: 'kling-2.1', prompt: 'a cat' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ param: 'model', code: 'model_not_found' });
  });
});

describe('a route at POST /v1/videos (the OpenAI door)', () => {
  test('seconds and size are translated, then each member decides: 4 s at 4k is B’s alone', async () => {
    const body = { model: 'veo-3.1', action: 'text_to_video', prompt: 'a heron', seconds: '4', size: '3840x2160' };
    const r = await postJson(t.api.base, '/v1/videos', body);
    expect(t.api.starts).toHaveLength(1);
    expect(t.api.starts[0]!.route?.members).toEqual([
      { platform: 'B', model: 'VE3.1', request: expect.objectContaining({ duration: 4, resolution: '4k', ratio: '16:9' }) },
    ]);
    // The scripted task service has no view of the task to answer with: the door got past the start.
    expect(r.status).not.toBe(400);
  });

  test('as a form (the SDKs send one): the same route, the same choice of members', async () => {
    const form = multipartForm({ model: 'veo-3.1', action: 'text_to_video', prompt: 'a heron', seconds: '4' });
    await fetch(`${t.api.base}/v1/videos`, { method: 'POST', headers: { ...AUTH, 'X-Route-Explain': '1' }, body: form }).then(async (r) => {
      expect(r.headers.get('x-route-candidates')).toBe('"VE3.1";platform="B"');
      await r.arrayBuffer();
    });
    expect(t.api.starts.map((st) => st.route?.members.map((m) => m.model))).toEqual([['VE3.1']]);
  });

  test('seconds no member takes: 400 naming seconds, as the start path refuses a route at every door (its first member’s refusal)', async () => {
    const r = await postJson(t.api.base, '/v1/videos', { model: 'veo-3.1', prompt: 'a heron', seconds: '5' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ param: 'seconds' });
    expect(r.body.error.message).toBe(
      "seconds 5 is not supported by GV-3.1; use 8 seconds (and no other member of the route 'veo-3.1' can take the request)",
    );
    expect(t.api.starts).toEqual([]);
  });
});

describe('an image route (an operator’s ROUTES_FILE) at the image doors', () => {
  const catalogue = buildCatalogue();
  const routes = routeTableOf(
    catalogue,
    parseRoutesFile({ routes: { 'any-image': { kind: 'image', members: [{ model: 'NB' }, { model: 'GEM-2.5' }] } } }),
  );
  const images = useTestApi({ deps: { routes } });

  test('both members take a plain prompt; n = 2, which neither takes, is the first member’s (NB’s) 400 naming n', async () => {
    const both = await images.api.post('/v1/async/images/generations', { model: 'any-image', prompt: 'a lighthouse' });
    expect(both.status).toBe(200);
    expect(both.body.model).toBe('any-image');
    expect(images.api.starts[0]!.route?.members.map((m) => `${m.platform}:${m.model}`)).toEqual(['B:NB', 'T:GEM-2.5']);
    const none = await images.api.post('/v1/images/generations', { model: 'any-image', prompt: 'a lighthouse', n: 2 });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ param: 'n', message: expect.stringMatching(/^n must be between 1 and 1 for NB/) });
    expect(images.api.starts).toHaveLength(1);
  });
});
