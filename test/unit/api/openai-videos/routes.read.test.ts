/**
 * Reading videos over real HTTP (the real app and server; the task service answers scripted tasks, Temporal is not
 * under test here): GET /v1/videos/{id}/content answers 404 `content_not_ready` for a video not yet made (or failed)
 * and 404 `variant_unavailable` for a variant that cannot be made; GET /v1/videos refuses a `limit` outside 1–100
 * and an `order` other than asc|desc with a 400 naming the parameter, before reading any task.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { TaskRecord, TaskView } from '../../../../tasks/record';
import type { GenerationResult } from '../../../../core/task';
import { DirectoryResultStore } from '../../../../results/directory-store';
import { ResultLinks } from '../../../../results/result-links';
import { REPO } from '../../../support/stack';
import { useTestApi } from '../../../support/test-api';

const dir = mkdtempSync(join(tmpdir(), 'mediagate-videos-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = new DirectoryResultStore(dir);
const links = new ResultLinks({ mode: 'gateway', ttlSeconds: 3600, secret: 'unit-secret-0123456789abcdef', store });
const MP4 = readFileSync(join(REPO, 'sim', 'assets', 'sample.mp4'));
const MODEL = 'vendor-video-1-0-pro-250528';

/** The scripted tasks, by id: a video's record status and, once it succeeded, its result. */
const videos = new Map<string, { status: TaskRecord['status']; result?: GenerationResult }>();
/** How often the list read the tasks (it must not, for a refused query). */
let listed = 0;

const app = useTestApi({
  deps: { results: { store, links } },
  tasks: {
    async view(taskId: string): Promise<TaskView | undefined> {
      const v = videos.get(taskId);
      if (!v) return undefined;
      return {
        record: { task_id: taskId, status: v.status, model: MODEL } as TaskRecord,
        memo: { kind: 'video', asked: { prompt: 'a heron', seconds: 5 }, ...(v.result ? { result: v.result } : {}) } as TaskView['memo'],
        startTime: new Date(1_800_000_000_000),
      };
    },
    async *views(): AsyncIterable<TaskView> {
      listed++;
      yield* [] as TaskView[]; // this key has no videos
    },
  },
});

const content = (id: string, variant?: string) => app.api.get(`/v1/videos/${id}/content${variant ? `?variant=${variant}` : ''}`);

describe('GET /v1/videos/{id}/content', () => {
  test.each(['pending', 'running', 'failed'] as const)(
    'a %s video has no content yet: 404 content_not_ready naming video_id, whatever the variant',
    async (status) => {
      const id = `task_notready${status}`;
      videos.set(id, { status });
      for (const variant of [undefined, 'thumbnail', 'spritesheet']) {
        const r = await content(id, variant);
        expect(r.status).toBe(404);
        expect(r.body.error).toMatchObject({
          type: 'not_found_error',
          code: 'content_not_ready',
          param: 'video_id',
          message: expect.stringContaining(`Video ${id} has no content`),
        });
      }
    },
  );

  test('a video the gateway kept no copy of (the platform link only): every variant is 404 variant_unavailable naming variant', async () => {
    const id = 'task_linkonly';
    videos.set(id, { status: 'success', result: { created: 1, data: [{ url: 'https://cdn.example/v.mp4', stored: false }] } });
    for (const variant of ['video', 'thumbnail', 'spritesheet']) {
      const r = await content(id, variant);
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({
        type: 'not_found_error',
        code: 'variant_unavailable',
        param: 'variant',
        message: expect.stringContaining(`has no ${variant}`),
      });
    }
  });

  test('a stored video no frame can be taken from: the video is served, its thumbnail and spritesheet are 404 variant_unavailable', async () => {
    const id = 'task_garbled';
    const key = `${id}/0-result.mp4`;
    const garbled = Buffer.concat([MP4.subarray(0, 32), Buffer.alloc(64)]);
    await store.put(key, Readable.from([garbled]), { contentType: 'video/mp4' });
    videos.set(id, {
      status: 'success',
      result: {
        created: 1,
        data: [{ url: 'https://cdn.example/g.mp4', stored: true, key, contentType: 'video/mp4', bytes: garbled.length }],
      },
    });
    const video = await fetch(`${app.api.base}/v1/videos/${id}/content`, {
      headers: { Authorization: 'Bearer sk-api-harness-0123456789abcdef' },
    });
    expect(video.status).toBe(200);
    expect(Buffer.from(await video.arrayBuffer()).equals(garbled)).toBe(true);
    for (const variant of ['thumbnail', 'spritesheet']) {
      const r = await content(id, variant);
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'variant_unavailable', param: 'variant' });
    }
  });

  test('a video nobody has: 404 not_found (not content_not_ready)', async () => {
    const r = await content('task_nosuchvideo');
    expect(r.status).toBe(404);
    expect(r.body.error.code).not.toBe('content_not_ready');
  });
});

describe('GET /v1/videos: limit and order', () => {
  test.each([
    ['limit=0', 'limit', /at least 1/],
    ['limit=101', 'limit', /at most 100/],
    ['limit=-1', 'limit', /whole number/],
    ['limit=ten', 'limit', /whole number/],
    ['order=sideways', 'order', /asc|desc/],
    ['order=DESC', 'order', /asc|desc/],
  ])('%s → 400 naming %s; no task is read', async (query, param, why) => {
    listed = 0;
    const r = await app.api.get(`/v1/videos?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param, message: expect.stringMatching(why) });
    expect(listed).toBe(0);
  });

  test('the bounds themselves, limit=1 and limit=100, with order=asc or desc, are accepted', async () => {
    for (const query of ['limit=1&order=asc', 'limit=100&order=desc']) {
      const r = await app.api.get(`/v1/videos?${query}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
    }
  });
});
