/**
 * POST /v1/videos over real HTTP (the real app and server; the task service records what it was asked to start,
 * Temporal is not under test here: test/e2e/openai-videos.test.ts runs the same routes on a real stack): OpenAI's
 * fields mapped onto each platform's models from the catalogue, forms read as their JSON twins, uploads kept in a
 * real directory result store and linked, and every refusal naming OpenAI's field.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TaskView } from '../../../../tasks/record';
import type { GenerationRequest } from '../../../../core/task';
import type { WebhookTarget } from '../../../../core/webhooks';
import { webhookSecrets } from '../../../../webhooks/signing';
import { DirectoryResultStore } from '../../../../results/directory-store';
import { ResultLinks } from '../../../../results/result-links';
import { multipartForm } from '../../../support/forms';
import { AUTH, postJson, useTestApi } from '../../../support/test-api';
import { REPO } from '../../../support/stack';

const dir = mkdtempSync(join(tmpdir(), 'mediagate-videos-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = new DirectoryResultStore(dir);
const links = new ResultLinks({ mode: 'gateway', ttlSeconds: 3600, secret: 'unit-secret-0123456789abcdef', store });
const PNG = readFileSync(join(REPO, 'sim', 'assets', 'sample.png'));

/** The task the app just started, read back as the task service would describe it. */
let lastStarted: { request: GenerationRequest; taskId?: string; asked?: unknown; webhook?: WebhookTarget } | undefined;
/** A receiver origin the operator allows (WEBHOOK_ALLOW_PRIVATE_ORIGINS): nothing is delivered in these tests. */
const HOOKS = 'http://127.0.0.1:9';
const app = useTestApi({
  deps: {
    results: { store, links },
    webhooks: {
      secrets: webhookSecrets({ masterSecret: 'videos-unit-master-secret-0123456789abcdef', explicit: async () => undefined }),
      allowPrivateOrigins: new Set([HOOKS]),
    },
  },
  tasks: {
    async start(
      _owner: string,
      entry: { id: string },
      request: GenerationRequest,
      o: { taskId?: string; asked?: unknown; webhook?: WebhookTarget },
    ) {
      lastStarted = { request, taskId: o.taskId, asked: o.asked, webhook: o.webhook };
      return { taskId: o.taskId ?? 'task_new', model: entry.id };
    },
    async view(taskId: string): Promise<TaskView | undefined> {
      if (!lastStarted) return undefined;
      const asked = { prompt: lastStarted.request.prompt, seconds: lastStarted.request.duration, ...(lastStarted.asked as object) };
      return {
        record: { task_id: taskId, status: 'pending', model: lastStarted.request.model },
        memo: { kind: 'video', asked } as TaskView['memo'],
        startTime: new Date(1_800_000_000_000),
      };
    },
  },
});
beforeEach(() => {
  lastStarted = undefined;
});

const create = (body: object) => postJson(app.api.base, '/v1/videos', body);

async function postForm(form: FormData): Promise<{ status: number; body: any }> {
  const r = await fetch(`${app.api.base}/v1/videos`, { method: 'POST', headers: AUTH, body: form });
  return { status: r.status, body: await r.json() };
}

describe('size and seconds, per model from the catalogue', () => {
  test.each([
    ['T', 'GV-3.1', '1080x1920', '8', { ratio: '9:16', resolution: '1080P', duration: 8 }],
    ['V', 'vendor-video-1-0-pro-250528', '848x480', '5', { ratio: '16:9', resolution: '480p', duration: 5 }],
    ['B', 'VQ2', '960x720', '3', { ratio: '4:3', resolution: '720p', duration: 3 }],
  ])('%s %s: size %s and seconds %s become ratio, resolution and duration', async (_p, model, size, seconds, expected) => {
    // B's models read as image-to-video unless told otherwise (platforms/b/rules.ts): our own `action` says so.
    const r = await create({ model, prompt: 'a heron', size, seconds, ...(model === 'VQ2' ? { action: 'text_to_video' } : {}) });
    expect(r.status).toBe(200);
    expect(lastStarted?.request).toMatchObject({ model, ...expected });
    expect(r.body).toMatchObject({ object: 'video', status: 'queued', size, seconds: String(expected.duration) });
  });

  test('a model without ratios takes a size for its resolution alone (the model decides the aspect)', async () => {
    expect((await create({ model: 'H23', prompt: 'a heron', size: '1366x768', seconds: 6, action: 'text_to_video' })).status).toBe(200);
    expect(lastStarted?.request).toMatchObject({ resolution: '768P' });
    expect(lastStarted?.request).not.toHaveProperty('ratio');
  });

  test('a size the model cannot take is 400 naming size and saying which of its ratio and resolution the model does not take', async () => {
    const r = await create({ model: 'GV-3.1', prompt: 'a heron', size: '720x720', seconds: '8' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ param: 'size', code: 'invalid_value' });
    expect(r.body.error.message).toBe("size: ratio '1:1' is not supported by GV-3.1; use one of 16:9, 9:16");
    const low = await create({ model: 'GV-3.1', prompt: 'a heron', size: '640x360', seconds: '8' });
    expect(low.body.error).toMatchObject({
      param: 'size',
      message: expect.stringMatching(/^size: resolution '360p' is not supported by GV-3.1/),
    });
    expect((await create({ model: 'GV-3.1', prompt: 'a heron', size: 'big', seconds: '8' })).body.error.param).toBe('size');
    const odd = await create({ model: 'GV-3.1', prompt: 'a heron', size: '1792x1024', seconds: '8' });
    expect(odd.body.error).toMatchObject({ param: 'size', message: expect.stringContaining('1280x720') });
    // A portrait size asks for an aspect a model without ratios cannot be told.
    const portrait = await create({ model: 'H23', prompt: 'a heron', size: '768x1366', seconds: 6, action: 'text_to_video' });
    expect(portrait.body.error).toMatchObject({ param: 'size', code: 'unsupported_parameter' });
    expect(lastStarted).toBeUndefined();
  });

  test('seconds: a duration the model cannot take, text that is no number, or seconds with duration, is 400 naming seconds', async () => {
    const wrong = await create({ model: 'VendorK-2.1', prompt: 'a heron', seconds: '7' });
    expect(wrong.body.error).toMatchObject({ param: 'seconds', message: 'seconds 7 is not supported by VendorK-2.1; use 5 or 10 seconds' });
    // The same start path, through the door that speaks the general form, names the general field.
    const general = await postJson(app.api.base, '/v1/async/videos/generations', { model: 'VendorK-2.1', prompt: 'a heron', duration: 7 });
    expect(general.body.error).toMatchObject({
      param: 'duration',
      message: 'duration 7 is not supported by VendorK-2.1; use 5 or 10 seconds',
    });
    expect((await create({ model: 'VendorK-2.1', prompt: 'a heron', seconds: 'five' })).body.error.param).toBe('seconds');
    expect((await create({ model: 'VendorK-2.1', prompt: 'a heron', seconds: '5', duration: 5 })).body.error).toMatchObject({
      param: 'seconds',
      code: 'conflicting_parameters',
    });
    expect((await create({ model: 'VendorK-2.1', prompt: 'a heron', size: '1280x720', ratio: '16:9' })).body.error).toMatchObject({
      param: 'size',
      code: 'conflicting_parameters',
    });
    expect(lastStarted).toBeUndefined();
  });

  test("an image model is 400 naming model; our own fields pass beside OpenAI's, and unknown ones are refused by name", async () => {
    expect((await create({ model: 'I4YG1', prompt: 'a heron' })).body.error).toMatchObject({ param: 'model' });
    expect((await create({ model: 'vendor-video-1-0-pro-250528', prompt: 'a heron', seconds: 4, watermark: true })).status).toBe(200);
    expect(lastStarted?.request).toMatchObject({ watermark: true, duration: 4 });
    expect((await create({ model: 'vendor-video-1-0-pro-250528', prompt: 'a heron', seconds: 4, colour: 'red' })).body.error).toMatchObject(
      { param: 'colour', code: 'unknown_parameter' },
    );
  });

  test('input_reference as {image_url} is our image_url; file_id is refused by name', async () => {
    expect(
      (
        await create({
          model: 'vendor-video-1-0-pro-250528',
          prompt: 'a heron',
          seconds: 4,
          input_reference: { image_url: 'https://example.com/a.png' },
        })
      ).status,
    ).toBe(200);
    expect(lastStarted?.request.image_url).toBe('https://example.com/a.png');
    expect(
      (await create({ model: 'vendor-video-1-0-pro-250528', prompt: 'a heron', input_reference: { file_id: 'file_1' } })).body.error,
    ).toMatchObject({ param: 'input_reference.file_id' });
  });
});

describe("V's offline tier as an extension of /v1/videos", () => {
  test('service_tier flex with deadline_seconds is taken as JSON and as a form; refused by name on a model without it or out of range', async () => {
    const ok = await create({
      model: 'vendor-video-1-5-pro-251215',
      prompt: 'a heron',
      seconds: '5',
      service_tier: 'flex',
      deadline_seconds: 7200,
    });
    expect(ok.status).toBe(200);
    expect(lastStarted?.request).toMatchObject({ service_tier: 'flex', deadline_seconds: 7200, duration: 5 });
    const form = new FormData();
    for (const [k, v] of Object.entries({ model: 'vendor-video-1-0-pro-250528', prompt: 'a heron', seconds: '5', service_tier: 'flex' }))
      form.append(k, v);
    form.append('deadline_seconds', '3600');
    expect((await postForm(form)).status).toBe(200);
    expect(lastStarted?.request).toMatchObject({ service_tier: 'flex', deadline_seconds: 3600 });
    lastStarted = undefined;
    const noFlex = await create({ model: 'vendor-video-2-0-260128', prompt: 'a heron', seconds: '5', service_tier: 'flex' });
    expect([noFlex.status, noFlex.body.error.param]).toEqual([400, 'service_tier']);
    const tooLong = await create({
      model: 'vendor-video-1-5-pro-251215',
      prompt: 'a heron',
      service_tier: 'flex',
      deadline_seconds: 300_000,
    });
    expect([tooLong.status, tooLong.body.error.param]).toEqual([400, 'deadline_seconds']);
    expect(lastStarted).toBeUndefined();
  });
});

describe('forms (as the OpenAI SDKs send videos.create)', () => {
  test('text fields read as their JSON twins: booleans, numbers and nested input_reference[image_url]', async () => {
    const r = await postForm(
      multipartForm({
        model: 'vendor-video-1-0-pro-250528',
        prompt: 'a form',
        seconds: '4',
        watermark: 'true',
        'input_reference[image_url]': 'https://example.com/b.png',
      }),
    );
    expect(r.status).toBe(200);
    expect(lastStarted?.request).toMatchObject({ duration: 4, watermark: true, image_url: 'https://example.com/b.png' });
  });

  test('an uploaded image is kept in the result store and the platform is handed a signed link to it', async () => {
    const r = await postForm(
      multipartForm(
        { model: 'vendor-video-1-0-pro-250528', prompt: 'an upload', seconds: '4' },
        { bytes: PNG, type: 'application/octet-stream' },
      ),
    );
    expect(r.status).toBe(200);
    const link = String(lastStarted?.request.image_url);
    expect(link).toMatch(new RegExp(`^${app.api.base}/v1/videos/inputs/[0-9a-f]{64}\\.png\\?token=`));
    const fetched = await fetch(link);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await fetch(link.replace(/\?token=.*/, ''))).status).toBe(403);
  });

  test('input_reference {image_url} as a base64 data URL is kept and linked like an upload', async () => {
    const r = await create({
      model: 'vendor-video-1-0-pro-250528',
      prompt: 'a data url',
      seconds: 4,
      input_reference: { image_url: `data:image/png;base64,${PNG.toString('base64')}` },
    });
    expect(r.status).toBe(200);
    const link = String(lastStarted?.request.image_url);
    expect(link).toMatch(/\/v1\/videos\/inputs\/[0-9a-f]{64}\.png\?token=/);
    expect(Buffer.from(await (await fetch(link)).arrayBuffer()).equals(PNG)).toBe(true);
    const notImage = await create({
      model: 'vendor-video-1-0-pro-250528',
      prompt: 'a data url',
      seconds: 4,
      input_reference: { image_url: `data:image/png;base64,${Buffer.from('hello').toString('base64')}` },
    });
    expect([notImage.status, notImage.body.error.param]).toEqual([415, 'input_reference']);
  });

  test('two files, a file under another name, an oversize or a non-image upload are refused naming input_reference', async () => {
    const model = { model: 'vendor-video-1-0-pro-250528', prompt: 'bad upload', seconds: '4' };
    expect(
      (await postForm(multipartForm(model, { bytes: PNG, type: 'image/png' }, { bytes: PNG, type: 'image/png' }))).body.error,
    ).toMatchObject({ param: 'input_reference' });
    expect((await postForm(multipartForm(model, { field: 'image', bytes: PNG, type: 'image/png' }))).body.error).toMatchObject({
      param: 'image',
      code: 'unknown_parameter',
    });
    const big = await postForm(multipartForm(model, { bytes: Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]), type: 'image/png' }));
    expect([big.status, big.body.error.param]).toEqual([413, 'input_reference']);
    const text = await postForm(multipartForm(model, { bytes: Buffer.from('%PDF-1.4 not an image'), type: 'image/png' }));
    expect([text.status, text.body.error.param]).toEqual([415, 'input_reference']);
    expect(lastStarted).toBeUndefined();
  });
});

describe('webhook_url and webhook_events, as on the generation endpoints', () => {
  const V = { model: 'vendor-video-1-0-pro-250528', prompt: 'a heron', seconds: '5' };

  test('JSON: the task is started with its webhook target; the platform request carries no webhook field', async () => {
    const r = await create({ ...V, webhook_url: `${HOOKS}/videos`, webhook_events: ['running', 'succeeded'] });
    expect(r.status).toBe(200);
    expect(lastStarted?.webhook).toEqual({ url: `${HOOKS}/videos`, events: ['running', 'succeeded'], linkBase: app.api.base });
    expect(lastStarted?.asked).toMatchObject({ via: 'videos' });
    expect(JSON.stringify(lastStarted?.request)).not.toContain('webhook');
  });

  test.each([
    ['comma-separated', 'running,failed'],
    ['as JSON', '["running","failed"]'],
  ])('a form: webhook_events %s', async (_how, events) => {
    const r = await postForm(multipartForm({ ...V, webhook_url: `${HOOKS}/form`, webhook_events: events }));
    expect(r.status).toBe(200);
    expect(lastStarted?.webhook).toMatchObject({ url: `${HOOKS}/form`, events: ['running', 'failed'] });
  });

  test('a form as the openai SDK sends a list: repeated webhook_events[]', async () => {
    const form = multipartForm({ ...V, webhook_url: `${HOOKS}/sdk` });
    form.append('webhook_events[]', 'running');
    form.append('webhook_events[]', 'succeeded');
    const r = await postForm(form);
    expect(r.status).toBe(200);
    expect(lastStarted?.webhook).toMatchObject({ url: `${HOOKS}/sdk`, events: ['running', 'succeeded'] });
  });

  test('without webhook fields (and no default on the key) there is no webhook', async () => {
    expect((await create(V)).status).toBe(200);
    expect(lastStarted?.webhook).toBeUndefined();
  });

  test.each([
    [{ webhook_url: 'https://10.1.2.3/hook' }, 'webhook_url'],
    [{ webhook_url: 'http://example.com/hook' }, 'webhook_url'],
    [{ webhook_url: `${HOOKS}/x`, webhook_events: ['done'] }, 'webhook_events'],
    [{ webhook_events: ['failed'] }, 'webhook_events'],
  ])('%j → 400 naming %s; nothing started', async (fields, param) => {
    const r = await create({ ...V, ...fields });
    expect([r.status, r.body.error.param]).toEqual([400, param]);
    expect(lastStarted).toBeUndefined();
  });

  test('a form with a bad webhook_events → 400 naming it', async () => {
    const r = await postForm(multipartForm({ ...V, webhook_url: `${HOOKS}/form`, webhook_events: 'running,later' }));
    expect([r.status, r.body.error.param]).toEqual([400, 'webhook_events']);
  });
});

describe('what is not offered', () => {
  test.each([
    ['POST', '/v1/videos/task_abc/remix'],
    ['POST', '/v1/videos/edits'],
    ['POST', '/v1/videos/extensions'],
    ['POST', '/v1/videos/characters'],
    ['GET', '/v1/videos/characters/char_1'],
  ])('%s %s is 404 saying so', async (method, path) => {
    const r = await fetch(`${app.api.base}${path}`, {
      method,
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
    expect(r.status).toBe(404);
    expect(((await r.json()) as any).error).toMatchObject({ code: 'not_supported', message: expect.stringContaining('not offered') });
  });
});

test('the paths beside /v1/videos/{id} are not read as video ids: OPTIONS lists only what each serves', async () => {
  const allow = async (path: string) => (await fetch(`${app.api.base}${path}`, { method: 'OPTIONS' })).headers.get('allow');
  expect(await allow('/v1/videos/edits')).toBe('POST');
  expect(await allow('/v1/videos/generations')).toBe('POST');
  expect((await allow('/v1/videos/task_abc'))?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD']);
});
