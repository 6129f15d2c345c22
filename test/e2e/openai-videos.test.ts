/**
 * The OpenAI Videos API against the shared stack, driven by a client nobody here wrote: the official
 * `openai` npm package (pinned dev dependency). Every call goes API → Temporal → worker → simulator and back.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { makeKey } from '../support/admin-api';
import { startExtraApi } from '../support/extra-api';
import { multipartForm, postRawForm, rawForm } from '../support/forms';
import { sharedStack } from '../support/shared-stack';
import { REPO, TEST_KEYS, type Proc } from '../support/stack';
import { waitFor } from '../support/wait-for';

const { apiUrl, api, sim } = sharedStack();
const alice = api('alice');
const V_MODEL = 'vendor-video-1-0-pro-250528';
const PNG = readFileSync(join(REPO, 'sim', 'assets', 'sample.png'));

const client = (key: keyof typeof TEST_KEYS = 'alice') =>
  new OpenAI({ apiKey: TEST_KEYS[key].secret, baseURL: `${apiUrl}/v1`, maxRetries: 0 });
const openai = client();

async function completed(id: string): Promise<OpenAI.Videos.Video> {
  return waitFor(async () => {
    const v = await openai.videos.retrieve(id);
    return v.status === 'completed' || v.status === 'failed' ? v : undefined;
  }, 60_000);
}

const postForm = (body: FormData) =>
  fetch(`${apiUrl}/v1/videos`, { method: 'POST', headers: { Authorization: `Bearer ${TEST_KEYS.alice.secret}` }, body });

describe('OpenAI Videos API with the official openai SDK', () => {
  test('create (JSON fields, sent as the SDK sends them), retrieve until completed, download the video and its thumbnail', async () => {
    const created = await openai.videos.create({
      model: V_MODEL,
      prompt: 'openai sdk: a kite over dunes',
      seconds: '5' as OpenAI.Videos.VideoSeconds,
      size: '720x1280',
    });
    expect(created).toMatchObject({
      object: 'video',
      model: V_MODEL,
      status: 'queued',
      progress: 0,
      seconds: '5',
      size: '720x1280',
      prompt: 'openai sdk: a kite over dunes',
      error: null,
      completed_at: null,
    });
    expect(created.id).toMatch(/^task_/);

    // The size became the model's ratio and resolution on the platform's wire.
    const submit = await sim.waitForRequest('V', 'submit', (b) => b?.content?.[0]?.text === 'openai sdk: a kite over dunes');
    expect(submit.body).toMatchObject({ model: 'doubao-seedance-1-0-pro-250528', ratio: '9:16', resolution: '720p', duration: 5 });

    const done = await completed(created.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100, seconds: '5', size: '720x1280' });
    expect(done.completed_at).toBeGreaterThanOrEqual(done.created_at);
    // Retention (RESULT_RETENTION_DAYS, 7 by default) deletes the stored video that long after it was made.
    expect(done.expires_at).toBe(done.completed_at! + 7 * 86_400);

    // One task whichever door: the same task at /v1/generations (in /v1/tasks: the test 'one task, whichever door').
    const record = await alice.get(`/v1/generations/${created.id}`);
    expect(record.body).toMatchObject({ task_id: created.id, status: 'success', model: V_MODEL });

    const video = await openai.videos.downloadContent(created.id);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect(
      Buffer.from(await video.arrayBuffer())
        .subarray(4, 8)
        .toString('latin1'),
    ).toBe('ftyp');

    const thumbnail = await openai.videos.downloadContent(created.id, { variant: 'thumbnail' });
    expect(thumbnail.headers.get('content-type')).toBe('image/jpeg');
    const jpeg = Buffer.from(await thumbnail.arrayBuffer());
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    // Made once and kept: the second read serves the same stored bytes (same ETag).
    const again = await alice.request('GET', `/v1/videos/${created.id}/content?variant=thumbnail`);
    expect(again.headers.get('etag')).toBe(thumbnail.headers.get('etag'));

    const sprites = await alice.request('GET', `/v1/videos/${created.id}/content?variant=spritesheet`);
    expect(sprites.status).toBe(200);
    expect(sprites.headers.get('content-type')).toBe('image/jpeg');

    // Range support on the stored video.
    const part = await fetch(`${apiUrl}/v1/videos/${created.id}/content`, {
      headers: { Authorization: `Bearer ${TEST_KEYS.alice.secret}`, Range: 'bytes=4-7' },
    });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).toString('latin1')).toBe('ftyp');
  });

  test('create with a route’s name: the video object names the route as its model; its record, the member that served it', async () => {
    const prompt = `openai sdk: a lighthouse by route ${Date.now()}`;
    const created = await openai.videos.create({ model: 'hailuo-2.3', prompt, seconds: '6' as OpenAI.Videos.VideoSeconds });
    expect(created).toMatchObject({ object: 'video', model: 'hailuo-2.3', status: 'queued', seconds: '6', prompt });
    const done = await completed(created.id);
    expect(done).toMatchObject({ status: 'completed', model: 'hailuo-2.3', progress: 100 });
    // The route's first member took the one request, as its platform's own fields (T: ModelName/ModelVersion).
    const submit = await sim.waitForRequest('T', 'submit', (b) => b?.Prompt === prompt);
    expect(submit.body).toMatchObject({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { Duration: 6 } });
    const record = await alice.get(`/v1/generations/${created.id}`);
    expect(record.body).toMatchObject({ status: 'success', model: 'hailuo-2.3', served_by: { platform: 'T', model: 'VendorH-2.3' } });
    expect((await openai.videos.retrieve(created.id)).model).toBe('hailuo-2.3');
  });

  test('create with an uploaded image: kept in the result store and handed to the platform as a link it can fetch', async () => {
    const created = await openai.videos.create({
      model: V_MODEL,
      prompt: 'openai sdk: the uploaded lighthouse moves',
      seconds: '4',
      input_reference: await toFile(PNG, 'lighthouse.png', { type: 'image/png' }),
    });
    expect(created.status).toBe('queued');
    const submit = await sim.waitForRequest('V', 'submit', (b) => b?.content?.[0]?.text === 'openai sdk: the uploaded lighthouse moves');
    const image = submit.body.content.find((c: any) => c.type === 'image_url');
    expect(image.image_url.url).toMatch(new RegExp(`^${apiUrl}/v1/videos/inputs/[0-9a-f]{64}\\.png\\?token=`));
    // The platform fetches it with no API key, and gets the very bytes uploaded.
    const fetched = await fetch(image.image_url.url);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(PNG)).toBe(true);
    // A link whose token is altered is refused.
    expect((await fetch(image.image_url.url.replace(/token=\d/, 'token=9'))).status).toBe(403);
    expect((await completed(created.id)).status).toBe('completed');
  });

  test('list: auto-pagination walks 25 new videos newest first, each once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      ids.push(
        (await openai.videos.create({ model: V_MODEL, prompt: `openai sdk list ${i}`, seconds: '4' as OpenAI.Videos.VideoSeconds })).id,
      );
    }
    // The list reads Temporal's visibility, which shows a new task a moment after it starts.
    await waitFor(async () => (await alice.get('/v1/videos?limit=100')).body.data.some((v: { id: string }) => v.id === ids.at(-1)), 10_000);
    const seen: OpenAI.Videos.Video[] = [];
    for await (const v of openai.videos.list({ limit: 7 })) seen.push(v);
    const seenIds = seen.map((v) => v.id);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    expect(seenIds).toEqual(expect.arrayContaining(ids));
    // Newest first: ours, created one after another, in reverse order of creation.
    expect(seenIds.filter((id) => ids.includes(id))).toEqual([...ids].reverse());
    const created = seen.map((v) => v.created_at);
    expect(created).toEqual([...created].sort((a, b) => b - a));

    const oldestFirst = await alice.get(`/v1/videos?order=asc&limit=2&after=${ids[10]}`);
    expect(oldestFirst.body).toMatchObject({
      object: 'list',
      data: [{ id: ids[11] }, { id: ids[12] }],
      first_id: ids[11],
      last_id: ids[12],
      has_more: true,
    });
  });

  test('delete: a finished video’s stored outputs are deleted; a running one is 409 naming the cancel endpoint', async () => {
    const done = await completed(
      (await openai.videos.create({ model: V_MODEL, prompt: 'openai sdk: to be deleted', seconds: '4' as OpenAI.Videos.VideoSeconds })).id,
    );
    await openai.videos.downloadContent(done.id, { variant: 'thumbnail' });
    expect(await openai.videos.delete(done.id)).toEqual({ id: done.id, object: 'video.deleted', deleted: true });
    // Gone, and the answer says its owner deleted it (not retention), at either door and for every variant; the SDK
    // reads the same answer.
    const byOwner = { code: 'content_expired', message: `This stored result was deleted by its owner (DELETE /v1/videos/${done.id})` };
    for (const path of [
      `/v1/videos/${done.id}/content`,
      `/v1/videos/${done.id}/content?variant=thumbnail`,
      `/v1/videos/${done.id}/content?variant=spritesheet`,
      `/v1/generations/${done.id}/content?index=0`,
    ]) {
      const gone = await alice.get(path);
      expect([path, gone.status, gone.body.error]).toEqual([path, 410, expect.objectContaining(byOwner)]);
    }
    const sdkGone = await openai.videos.downloadContent(done.id).catch((e: unknown) => e);
    expect(sdkGone).toBeInstanceOf(OpenAI.APIError);
    expect((sdkGone as InstanceType<typeof OpenAI.APIError>).status).toBe(410);
    expect((sdkGone as InstanceType<typeof OpenAI.APIError>).message).toContain('deleted by its owner');

    const running = await openai.videos.create({
      model: V_MODEL,
      prompt: 'openai sdk: never ends [sim:never]',
      seconds: '4' as OpenAI.Videos.VideoSeconds,
    });
    const refused = await openai.videos.delete(running.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.ConflictError);
    expect((refused as InstanceType<typeof OpenAI.ConflictError>).message).toContain(`POST /v1/generations/${running.id}/cancel`);
    const cancelled = await alice.post(`/v1/generations/${running.id}/cancel`, undefined);
    expect([200, 202]).toContain(cancelled.status);
    expect((await completed(running.id)).error?.code).toBe('cancelled');
  });

  test('errors are the SDK’s typed errors: BadRequestError naming the field, NotFoundError for another key’s video or what is not offered', async () => {
    const badSize = await openai.videos.create({ model: V_MODEL, prompt: 'x', size: '1792x1024' }).catch((e: unknown) => e);
    expect(badSize).toBeInstanceOf(OpenAI.BadRequestError);
    expect((badSize as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('size');
    expect((badSize as Error).message).toContain('1280x720');

    const badSeconds = await openai.videos.create({ model: 'GV-3.1', prompt: 'x', seconds: '4' }).catch((e: unknown) => e);
    expect(badSeconds).toMatchObject({ status: 400, param: 'seconds' });
    expect((badSeconds as Error).message).toContain('8 seconds');

    // A model rule on a field /v1/videos calls otherwise is reported under OpenAI's name for it.
    const noSeconds = await openai.videos.create({ model: V_MODEL, prompt: 'x' }).catch((e: unknown) => e);
    expect(noSeconds).toMatchObject({ status: 400, param: 'seconds' });
    expect((noSeconds as Error).message).toContain('seconds is required');

    const imageModel = await openai.videos.create({ model: 'I4YG1', prompt: 'x' }).catch((e: unknown) => e);
    expect(imageModel).toMatchObject({ status: 400, param: 'model' });

    const mine = await openai.videos.create({
      model: V_MODEL,
      prompt: 'openai sdk: alice only',
      seconds: '4' as OpenAI.Videos.VideoSeconds,
    });
    expect(
      await client('bob')
        .videos.retrieve(mine.id)
        .catch((e: unknown) => e),
    ).toBeInstanceOf(OpenAI.NotFoundError);
    expect(
      await client('bob')
        .videos.downloadContent(mine.id)
        .catch((e: unknown) => e),
    ).toBeInstanceOf(OpenAI.NotFoundError);

    const remix = await openai.videos.remix(mine.id, { prompt: 'again' }).catch((e: unknown) => e);
    expect(remix).toBeInstanceOf(OpenAI.NotFoundError);
    expect((remix as Error).message).toContain('not offered');
    for (const path of ['/v1/videos/edits', '/v1/videos/extensions', '/v1/videos/characters']) {
      const r = await alice.post(path, { prompt: 'x' });
      expect(r.status).toBe(404);
      expect(r.body.error.message).toContain('not offered');
    }
  });
});

describe('POST /v1/videos: bad input, and the other door', () => {
  test('seconds as a number (JSON) and as a string (form) are both accepted', async () => {
    const asNumber = await alice.post('/v1/videos', { model: V_MODEL, prompt: 'seconds as a number', seconds: 6 });
    expect(asNumber.status).toBe(200);
    expect(asNumber.body).toMatchObject({ seconds: '6', status: 'queued' });
    const asString = await postForm(
      multipartForm({ model: V_MODEL, prompt: 'seconds as a string', seconds: '6', generate_audio: 'false' }),
    );
    expect(asString.status).toBe(200);
    expect(await asString.json()).toMatchObject({ seconds: '6' });
    for (const text of ['seconds as a number', 'seconds as a string']) {
      expect((await sim.waitForRequest('V', 'submit', (b) => b?.content?.[0]?.text === text)).body).toMatchObject({ duration: 6 });
    }
  });

  test('an upload over 10 MiB is 413, a file that is not an image 415, an unknown variant 400', async () => {
    const big = await postForm(
      multipartForm(
        { model: V_MODEL, prompt: 'big' },
        { bytes: Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]), type: 'image/png', name: 'big.png' },
      ),
    );
    expect(big.status).toBe(413);
    expect(((await big.json()) as any).error).toMatchObject({ param: 'input_reference', code: 'file_too_large' });

    const text = await postForm(
      multipartForm(
        { model: V_MODEL, prompt: 'not an image' },
        { bytes: Buffer.from('just text, honestly'), type: 'image/png', name: 'fake.png' },
      ),
    );
    expect(text.status).toBe(415);
    expect(((await text.json()) as any).error).toMatchObject({ param: 'input_reference', code: 'unsupported_media_type' });

    const mine = await alice.post('/v1/videos', { model: V_MODEL, prompt: 'variant check', seconds: '4' });
    const bad = await alice.get(`/v1/videos/${mine.body.id}/content?variant=poster`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ param: 'variant' });
  });

  test('a video task created at /v1/videos/generations reads as a video object, and Idempotency-Key holds here too', async () => {
    const legacy = await alice.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'the other door',
      duration: 4,
      ratio: '16:9',
      resolution: '480p',
    });
    const video = await openai.videos.retrieve(legacy.body.task_id);
    expect(video).toMatchObject({ id: legacy.body.task_id, object: 'video', prompt: 'the other door', seconds: '4', size: '854x480' });

    const headers = { 'Idempotency-Key': `videos-${Date.now()}` };
    const first = await alice.post('/v1/videos', { model: V_MODEL, prompt: 'idempotent video', seconds: '4' }, headers);
    const second = await alice.post('/v1/videos', { model: V_MODEL, prompt: 'idempotent video', seconds: '4' }, headers);
    expect(second.body.id).toBe(first.body.id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const other = await alice.post('/v1/videos', { model: V_MODEL, prompt: 'another video', seconds: '4' }, headers);
    expect(other.status).toBe(409);
  });
});

describe('one task, whichever door', () => {
  test('a video created at /v1/videos is listed in GET /v1/tasks, and a task created at /v1/videos/generations in GET /v1/videos; content before it is made is 404 content_not_ready', async () => {
    // A key of its own: its lists hold exactly the two tasks made here.
    const key = await makeKey(apiUrl, { id: `e2e-videos-doors-${Date.now()}` });
    const made = await key.post('/v1/videos', {
      model: V_MODEL,
      prompt: 'two doors: made at /v1/videos [sim:duration=3000]',
      seconds: '4',
    });
    expect(made.status).toBe(200);
    const videoId = made.body.id as string;

    const early = await key.get(`/v1/videos/${videoId}/content`);
    expect(early.status).toBe(404);
    expect(early.body.error).toMatchObject({ code: 'content_not_ready', param: 'video_id' });

    const legacy = await key.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'two doors: made at /v1/videos/generations',
      duration: 4,
    });
    expect(legacy.status).toBe(200);
    const legacyId = legacy.body.task_id as string;

    // Visibility shows a task a moment after it starts; by then both have finished or soon will.
    const tasks = await waitFor(async () => {
      const r = await key.get('/v1/tasks?page_size=100');
      const ids = (r.body.data as { task_id: string; status: string }[]).filter((t) => t.status === 'success').map((t) => t.task_id);
      return ids.length === 2 && r.body;
    }, 60_000);
    expect(tasks.total).toBe(2);
    expect(tasks.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ task_id: videoId, status: 'success', model: V_MODEL }),
        expect.objectContaining({ task_id: legacyId, status: 'success', model: V_MODEL }),
      ]),
    );
    const videos = await key.get('/v1/videos?limit=100');
    expect(videos.body.data.map((v: { id: string }) => v.id).sort()).toEqual([videoId, legacyId].sort());
    expect((await key.get(`/v1/videos/${videoId}/content`)).status).toBe(200);
  });
});

describe('budgets apply at /v1/videos as at /v1/videos/generations', () => {
  // B's V20 has a public price (CNY per second): a 4-second 720p video is reserved at its estimate when accepted.
  const V20_VIDEO = {
    model: 'V20',
    seconds: '4',
    input_reference: { image_url: 'https://x.test/head.jpeg' },
    last_frame_url: 'https://x.test/tail.jpeg',
    resolution: '720p',
  };

  test('a key over its budget: the openai SDK gets APIError 402 budget_exceeded, and no upstream job is made', async () => {
    const key = await makeKey(apiUrl, { id: `e2e-videos-budget-${Date.now()}`, budget: { amount: 2, currency: 'CNY', period: 'day' } });
    const sdk = new OpenAI({ apiKey: key.key!, baseURL: `${apiUrl}/v1`, maxRetries: 0 });
    const create = (prompt: string) => sdk.videos.create({ ...V20_VIDEO, prompt } as unknown as OpenAI.Videos.VideoCreateParams);

    // The first fits: its estimate is reserved (GET /v1/usage counts it while it runs).
    const first = await create('videos budget: a heron');
    expect(first.status).toBe('queued');
    expect((await key.get('/v1/usage')).body.data).toEqual([expect.objectContaining({ model: 'V20', tasks: 1 })]);

    // Its job reached the platform; the second's never does (other files' jobs may be made meanwhile: told apart by prompt).
    await sim.waitForRequest('B', 'submit', (b) => JSON.stringify(b ?? '').includes('videos budget: a heron'));
    const refused = await create('videos budget: a second heron').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(refused).toMatchObject({ status: 402, code: 'budget_exceeded', type: 'invalid_request_error' });
    expect((refused as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      budget: { period: 'day', amount: 2, currency: 'CNY' },
    });
    await new Promise((r) => setTimeout(r, 1_000));
    const submits = await sim.requests(undefined, 'submit');
    expect(submits.filter((r) => JSON.stringify(r.body ?? '').includes('a second heron'))).toEqual([]);
    // Nothing started: the key has still one video.
    expect((await sdk.videos.list()).data.map((v) => v.id)).toEqual([first.id]);
  });
});

describe('what uploads in progress may hold, and how long a body may take', () => {
  // An API of this file's own: a budget of 24 MiB (12 per key) and a 4 s body timeout, to reach both quickly.
  const MiB = 1024 * 1024;
  let gate: { url: string; proc: Proc };
  beforeAll(async () => {
    gate = await startExtraApi({ UPLOADS_MAX_MEMORY_BYTES: String(24 * MiB), BODY_TIMEOUT_MS: '4000' });
  }, 90_000);
  afterAll(() => gate?.proc.stop());

  /** A form with a 9.9 MiB image, as the uploads that held back their closing boundary had. */
  const form = (prompt: string) =>
    rawForm(
      { model: V_MODEL, prompt, seconds: '5' },
      { bytes: Buffer.concat([PNG, Buffer.alloc(Math.round(9.9 * MiB) - PNG.length)]), type: 'image/png' },
    );

  test("uploads held open take their declared size; past a key's half 429, past the budget 503, before any byte of the body; held ones end at the body timeout (408) and give their memory back", async () => {
    // Two uploads that send all but their closing boundary, and wait: alice's and bob's, 9.9 MiB each.
    const held = [
      postRawForm(gate.url, TEST_KEYS.alice.secret, form('held by alice'), 'all-but-the-end'),
      postRawForm(gate.url, TEST_KEYS.bob.secret, form('held by bob'), 'all-but-the-end'),
    ];
    const holding = async () =>
      Number(/^mediagate_upload_memory_bytes (\d+)/m.exec(await (await fetch(`${gate.url}/metrics`)).text())?.[1]);
    await waitFor(async () => (await holding()) >= 2 * 9.9 * MiB, 20_000);
    // Answered from the headers alone, no body byte sent: a second upload of either key is past its half.
    for (const key of [TEST_KEYS.alice, TEST_KEYS.bob]) {
      const again = await postRawForm(gate.url, key.secret, form(`${key.id} again`), 'nothing');
      expect([again.status, again.body.error]).toEqual([
        429,
        expect.objectContaining({ type: 'rate_limit_error', code: 'uploads_per_key', param: 'input_reference' }),
      ]);
    }
    const erin = await postRawForm(gate.url, TEST_KEYS.erin.secret, form('erin while full'), 'nothing');
    expect([erin.status, erin.body.error]).toEqual([
      503,
      expect.objectContaining({ type: 'service_unavailable_error', code: 'uploads_busy' }),
    ]);

    // The held uploads end at the body timeout, in the envelope.
    for (const r of await Promise.all(held)) expect([r.status, r.body.error?.code]).toEqual([408, 'body_timeout']);
    // Their memory is free again: erin's whole upload is read and its video made.
    await waitFor(async () => (await holding()) === 0, 10_000);
    const accepted = await waitFor(async () => {
      const r = await postRawForm(gate.url, TEST_KEYS.erin.secret, form('erin after the timeout'), 'all');
      return r.status === 503 ? undefined : r;
    }, 20_000);
    expect([accepted.status, accepted.body.object, accepted.body.status]).toEqual([200, 'video', 'queued']);
  });
});
