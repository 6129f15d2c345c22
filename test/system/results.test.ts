/**
 * Results that outlive the platform's links, end to end on real stacks: the Temporal dev server, the
 * simulator, a worker and an API as separate processes, once with the directory store and once with S3 (a real
 * MinIO started here; `npm run s3:install` builds it).
 *
 * - a task's outputs are copied before it succeeds, and still download byte-identical (sha256) after the
 *   simulator deleted its own copy;
 * - the links in the record work without a header (signed token, or S3 presigned), fail when altered or expired;
 * - the owner's Bearer key works too; another key gets 404, like a missing task; ranges, HEAD, 304, 416;
 * - an output the copy must refuse (here: over RESULTS_MAX_BYTES) leaves the task successful with the platform's
 *   link and `stored: false`;
 * - the retention workflow deletes old results (run directly with a short retention), and the schedule exists.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { TaskMemo } from '../../core/task';
import { CLEANUP_WORKFLOW_TYPE, RETENTION_SCHEDULE_ID } from '../../results/retention';
import { startMinio, type MinioServer } from '../../scripts/minio';
import { ApiClient } from '../support/client';
import { sha } from '../support/sha';
import { useStack } from '../support/use-stack';

jest.setTimeout(180_000);

const VIDEO = { model: 'vendor-video-1-0-pro-250528', prompt: 'a red fox in fresh snow', duration: 5, return_last_frame: true };

/** The result as the workflow recorded it: platform links, keys, sha256. */
async function recorded(client: Client, taskId: string) {
  const desc = await client.workflow.getHandle(taskId).describe();
  return (desc.memo as TaskMemo).result!;
}

async function download(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** Starts a task, waits for success, and deletes every output the simulator served for it. */
async function finishedTask(api: ApiClient, client: Client, simUrl: string, body = VIDEO) {
  const started = await api.post('/v1/async/videos/generations', body);
  expect(started.status).toBe(200);
  const taskId = started.body.task_id as string;
  const record = await api.waitForTask(taskId, 90_000);
  expect(record.status).toBe('success');
  const result = await recorded(client, taskId);
  // The platform's own bytes, fetched while they still exist; then the platform "expires" them.
  const originals = await Promise.all(
    [...result.data, ...(result.lastFrame ? [result.lastFrame] : [])].map(async (item) => (await download(item.url)).body),
  );
  for (const item of [...result.data, ...(result.lastFrame ? [result.lastFrame] : [])]) {
    const name = new URL(item.url).pathname.split('/').pop()!;
    expect((await fetch(`${simUrl}/_sim/files/${name}`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(item.url)).status).toBe(404);
  }
  return { taskId, record, result, originals };
}

describe('results kept in a directory', () => {
  const gw = useStack({ name: 'results-dir', simJobDurationMs: 500 });
  let task: Awaited<ReturnType<typeof finishedTask>>;

  beforeAll(async () => {
    task = await finishedTask(gw.alice, gw.client, gw.stack.simUrl);
  }, 180_000);

  test('the worker created the daily retention schedule (before any other worker on this namespace changed it)', async () => {
    const schedule = await gw.temporal.client.schedule.getHandle(RETENTION_SCHEDULE_ID).describe();
    expect(schedule.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: CLEANUP_WORKFLOW_TYPE,
      taskQueue: gw.stack.taskQueue,
      args: [{ retentionDays: 7 }],
    });
    expect(schedule.state.paused).toBe(false);
    expect(schedule.spec.calendars?.[0]).toMatchObject({
      hour: [{ start: 3, end: 3, step: 1 }],
      minute: [{ start: 30, end: 30, step: 1 }],
    });
  });

  test("the outputs were copied before success: recorded as stored, under one key each, in the stack's directory", () => {
    const [video] = task.result.data;
    expect(video).toMatchObject({
      stored: true,
      key: `${task.taskId}/0-result.mp4`,
      contentType: 'video/mp4',
      bytes: task.originals[0]!.length,
      sha256: sha(task.originals[0]!),
    });
    expect(task.result.lastFrame).toMatchObject({ stored: true, key: `${task.taskId}/0-last-frame.png`, contentType: 'image/png' });
    expect(existsSync(join(gw.stack.resultsDir, task.taskId, '0-result.mp4'))).toBe(true);
  });

  test('the record links to the gateway with a signed token; the link downloads byte-identical after the platform deleted its copy', async () => {
    const url = new URL(task.record.data[0].url);
    expect(url.origin).toBe(gw.stack.apiUrl);
    expect(url.pathname).toBe(`/v1/generations/${task.taskId}/content`);
    expect(url.searchParams.get('token')).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect(task.record.video_url).toBe(task.record.data[0].url);
    expect(JSON.stringify(task.record)).not.toContain(gw.stack.simUrl); // no platform link is handed out any more

    const got = await download(url.toString()); // no Authorization header: a <video> tag's request
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('video/mp4');
    expect(got.headers.get('content-length')).toBe(String(task.originals[0]!.length));
    expect(got.headers.get('accept-ranges')).toBe('bytes');
    expect(got.headers.get('etag')).toBe(`"${sha(task.originals[0]!)}"`);
    expect(sha(got.body)).toBe(sha(task.originals[0]!));

    const frame = await download(task.record.last_frame_url);
    expect([frame.status, frame.headers.get('content-type'), sha(frame.body)]).toEqual([200, 'image/png', sha(task.originals[1]!)]);
  });

  test('a fresh link on every read', async () => {
    await new Promise((r) => setTimeout(r, 1_100));
    const again = (await gw.alice.get(`/v1/generations/${task.taskId}`)).body;
    expect(again.data[0].url).not.toBe(task.record.data[0].url);
    expect((await download(again.data[0].url)).status).toBe(200);
    const listed = (await gw.alice.get('/v1/tasks')).body.data.find((t: { task_id: string }) => t.task_id === task.taskId);
    expect(new URL(listed.data[0].url).pathname).toBe(`/v1/generations/${task.taskId}/content`);
  });

  test("an altered link is refused; the owner's key works; another key gets 404, exactly like a missing task", async () => {
    const url = new URL(task.record.data[0].url);
    const tampered = new URL(url);
    tampered.searchParams.set('index', '1');
    expect((await download(tampered.toString())).status).toBe(403);
    const forged = new URL(url);
    const [exp, mac] = url.searchParams.get('token')!.split('.');
    forged.searchParams.set('token', `${Number(exp) + 3600}.${mac}`);
    const refused = await fetch(forged);
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([403, 'link_invalid']);

    const path = `/v1/generations/${task.taskId}/content?index=0`;
    const owner = await fetch(`${gw.stack.apiUrl}${path}`, { headers: { Authorization: 'Bearer sk-test-alice-0123456789abcdef' } });
    expect([owner.status, sha(await owner.arrayBuffer())]).toEqual([200, sha(task.originals[0]!)]);
    const bob = await new ApiClient(gw.stack.apiUrl, 'bob').get(path);
    const missing = await new ApiClient(gw.stack.apiUrl, 'bob').get('/v1/generations/task_doesNotExist00000000/content?index=0');
    expect([bob.status, bob.body.error.code]).toEqual([404, missing.body.error.code]);
    expect(bob.body.error.message).toBe(missing.body.error.message.replace('task_doesNotExist00000000', task.taskId));
    expect((await new ApiClient(gw.stack.apiUrl, null).get(path)).status).toBe(401);
    expect((await gw.alice.get(`/v1/generations/${task.taskId}/content?index=7`)).body.error.code).toBe('content_not_found');
  });

  test('ranges, HEAD, If-None-Match', async () => {
    const url = task.record.data[0].url as string;
    const size = task.originals[0]!.length;
    const part = await download(url, { Range: 'bytes=100-199' });
    expect([part.status, part.headers.get('content-range'), part.headers.get('content-length')]).toEqual([
      206,
      `bytes 100-199/${size}`,
      '100',
    ]);
    expect(part.body.equals(task.originals[0]!.subarray(100, 200))).toBe(true);
    const tail = await download(url, { Range: 'bytes=-10' });
    expect(tail.body.equals(task.originals[0]!.subarray(size - 10))).toBe(true);
    const beyond = await download(url, { Range: `bytes=${size}-` });
    expect([beyond.status, beyond.headers.get('content-range')]).toEqual([416, `bytes */${size}`]);
    const head = await fetch(url, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), (await head.arrayBuffer()).byteLength]).toEqual([200, String(size), 0]);
    const cached = await fetch(url, { headers: { 'If-None-Match': `"${sha(task.originals[0]!)}"` } });
    expect(cached.status).toBe(304);
  });

  test('a link expires after RESULT_URL_TTL', async () => {
    const shortLived = await gw.stack.startApi(undefined, { RESULT_URL_TTL: '2s' });
    const port = gw.stack.apiPorts[gw.stack.apis.indexOf(shortLived)];
    const record = (await new ApiClient(`http://127.0.0.1:${port}`, 'alice').get(`/v1/generations/${task.taskId}`)).body;
    expect((await download(record.data[0].url)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3_000));
    const expired = await fetch(record.data[0].url);
    expect([expired.status, ((await expired.json()) as { error: { code: string } }).error.code]).toEqual([403, 'link_expired']);
    await shortLived.stop();
  });

  test("an output the copy must refuse leaves the task successful with the platform's link and stored: false", async () => {
    const lane = await gw.stack.startLane({ RESULTS_MAX_BYTES: '100' });
    const api = new ApiClient(lane.apiUrl, 'alice');
    const started = await api.post('/v1/async/videos/generations', { ...VIDEO, return_last_frame: false });
    const record = await api.waitForTask(started.body.task_id, 90_000);
    expect(record.status).toBe('success');
    expect(record.data[0].stored).toBe(false);
    expect(new URL(record.data[0].url).origin).toBe(gw.stack.simUrl);
    expect((await download(record.data[0].url)).status).toBe(200);
    const metrics = await (await fetch(lane.worker.metricsUrl!)).text();
    expect(metrics).toMatch(/mediagate_result_copies_total\{outcome="failed",reason="too_large",role="result"\} 1/);
    const result = await recorded(gw.temporal.client, started.body.task_id);
    expect(result.data[0]!.storeError).toMatch(/RESULTS_MAX_BYTES/);
    await lane.api.stop();
    await lane.worker.stop();
  });

  test('the cleanup workflow deletes old results, whose links then answer 410', async () => {
    // A retention of 1 second, run now, instead of waiting a week for 03:30.
    await new Promise((r) => setTimeout(r, 1_500));
    const report = await gw.temporal.client.workflow.execute(CLEANUP_WORKFLOW_TYPE, {
      taskQueue: gw.stack.taskQueue,
      workflowId: `cleanup-test-${Date.now()}`,
      args: [{ retentionDays: 1 / 86_400 }],
    });
    expect((report as { deleted: number }).deleted).toBeGreaterThanOrEqual(2);
    expect(existsSync(join(gw.stack.resultsDir, task.taskId, '0-result.mp4'))).toBe(false);
    const record = (await gw.alice.get(`/v1/generations/${task.taskId}`)).body;
    const gone = await fetch(record.data[0].url);
    expect(((await gone.json()) as { error: unknown }).error).toMatchObject({
      code: 'content_expired',
      message: expect.stringContaining('after the retention period'),
    });
    expect(gone.status).toBe(410);
  });
});

describe('results kept in S3 (MinIO)', () => {
  let minio: MinioServer;
  // MinIO first: the stack's env names its endpoint and bucket; it stops after the stack.
  const gw = useStack(
    async () => {
      minio = await startMinio();
      await minio.createBucket('mediagate-results');
      return { name: 'results-s3', simJobDurationMs: 500, env: { ...minio.env('mediagate-results'), RESULTS_S3_PREFIX: 'gw/' } };
    },
    { afterStop: async () => minio?.stop() },
  );
  let task: Awaited<ReturnType<typeof finishedTask>>;

  beforeAll(async () => {
    task = await finishedTask(gw.alice, gw.client, gw.stack.simUrl);
  }, 180_000);

  test('the record carries presigned S3 links that download byte-identical after the platform deleted its copy', async () => {
    expect(task.result.data[0]).toMatchObject({ stored: true, key: `${task.taskId}/0-result.mp4`, sha256: sha(task.originals[0]!) });
    const url = new URL(task.record.data[0].url);
    expect(url.origin).toBe(minio.endpoint);
    expect(url.pathname).toBe(`/mediagate-results/gw/${task.taskId}/0-result.mp4`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe(String(7 * 86_400));
    const got = await download(url.toString());
    expect([got.status, sha(got.body)]).toEqual([200, sha(task.originals[0]!)]);
    const part = await download(url.toString(), { Range: 'bytes=0-9' });
    expect([part.status, part.body.equals(task.originals[0]!.subarray(0, 10))]).toEqual([206, true]);
    const frame = await download(task.record.last_frame_url);
    expect(sha(frame.body)).toBe(sha(task.originals[1]!));
  });

  test('the content endpoint streams from S3 to the owner, with ranges; another key gets 404', async () => {
    const path = `/v1/generations/${task.taskId}/content`;
    const owner = await fetch(`${gw.stack.apiUrl}${path}`, {
      headers: { Authorization: 'Bearer sk-test-alice-0123456789abcdef', Range: 'bytes=10-' },
    });
    const size = task.originals[0]!.length;
    expect([owner.status, owner.headers.get('content-range')]).toEqual([206, `bytes 10-${size - 1}/${size}`]);
    expect(Buffer.from(await owner.arrayBuffer()).equals(task.originals[0]!.subarray(10))).toBe(true);
    expect((await new ApiClient(gw.stack.apiUrl, 'bob').get(path)).status).toBe(404);
  });

  test('the cleanup workflow deletes old objects from the bucket', async () => {
    await new Promise((r) => setTimeout(r, 1_500)); // older than the 1-second retention below
    const report = await gw.temporal.client.workflow.execute(CLEANUP_WORKFLOW_TYPE, {
      taskQueue: gw.stack.taskQueue,
      workflowId: `cleanup-s3-${Date.now()}`,
      args: [{ retentionDays: 1 / 86_400 }],
    });
    expect((report as { deleted: number }).deleted).toBeGreaterThanOrEqual(2);
    const record = (await gw.alice.get(`/v1/generations/${task.taskId}`)).body;
    expect((await fetch(record.data[0].url)).status).toBe(404); // S3: NoSuchKey
    const viaApi = await gw.alice.get(`/v1/generations/${task.taskId}/content`);
    expect([viaApi.status, viaApi.body.error.code]).toEqual([410, 'content_expired']);
  });
});
