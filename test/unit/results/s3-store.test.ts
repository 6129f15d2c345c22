/**
 * The S3 result store against a real S3-compatible server: MinIO, built by `npm run s3:install` (scripts/minio.ts;
 * CI runs it), started here on 127.0.0.1 with its data in a temp dir. Not skipped when missing: the test fails
 * and says how to install it.
 */
import { Readable } from 'node:stream';
import { ListMultipartUploadsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ResultStoreError } from '../../../results/result-store';
import { S3ResultStore } from '../../../results/s3-store';
import { startMinio, type MinioServer } from '../../../scripts/minio';
import { sha } from '../../support/sha';

let minio: MinioServer;
let store: S3ResultStore;
const BUCKET = 'results-unit';

beforeAll(async () => {
  minio = await startMinio();
  await minio.createBucket(BUCKET);
  store = new S3ResultStore({
    bucket: BUCKET,
    endpoint: minio.endpoint,
    region: minio.region,
    prefix: 'gw/',
    credentials: { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey },
  });
}, 60_000);

afterAll(async () => {
  await store?.close();
  await minio?.stop();
});

function bytes(n: number, seed = 1): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

/** Yields `total` bytes in 1 MiB chunks, then fails instead of ending when `failAfter` is reached. */
function source(total: number, failAfter?: number): Readable {
  return Readable.from(
    (async function* () {
      let sent = 0;
      while (sent < total) {
        if (failAfter !== undefined && sent >= failAfter) throw new Error('upstream reset');
        const n = Math.min(1024 * 1024, total - sent);
        yield bytes(n, sent);
        sent += n;
      }
    })(),
  );
}

async function read(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('S3ResultStore (MinIO)', () => {
  test('put streams a multipart upload; head, get and ranges read it back', async () => {
    const size = 20 * 1024 * 1024 + 123; // three 8 MiB parts
    const expected = await read(source(size));
    const put = await store.put('task_s3/0-result.mp4', source(size), { contentType: 'video/mp4' });
    expect(put).toEqual({ key: 'task_s3/0-result.mp4', bytes: size, sha256: sha(expected) });

    const info = await store.head('task_s3/0-result.mp4');
    expect(info).toMatchObject({ key: 'task_s3/0-result.mp4', bytes: size, contentType: 'video/mp4' });
    const whole = await store.get('task_s3/0-result.mp4');
    expect(sha(await read(whole!.body))).toBe(sha(expected));
    const part = await store.get('task_s3/0-result.mp4', { start: 10, end: 19 });
    expect(part!.info.bytes).toBe(size);
    expect(await read(part!.body)).toEqual(expected.subarray(10, 20));
  });

  test('a source failing mid-upload leaves no object and no unfinished multipart upload', async () => {
    const key = 'task_s3/1-result.mp4';
    await expect(store.put(key, source(30 * 1024 * 1024, 18 * 1024 * 1024), { contentType: 'video/mp4' })).rejects.toThrow(
      ResultStoreError,
    );
    expect(await store.head(key)).toBeUndefined();
    expect(await store.get(key)).toBeUndefined();
    const uploads = await store.client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: 'gw/' }));
    expect(uploads.Uploads ?? []).toEqual([]);
  });

  test('a failed rewrite keeps the previous object whole', async () => {
    const key = 'task_s3/0-result.png';
    await store.put(key, Readable.from([Buffer.from('first')]), { contentType: 'image/png' });
    await expect(store.put(key, source(3 * 1024 * 1024, 1024 * 1024), { contentType: 'image/png' })).rejects.toThrow();
    expect((await read((await store.get(key))!.body)).toString()).toBe('first');
  });

  test('presigned GET works without credentials and stops working when it expires', async () => {
    await store.put('task_s3/2-result.png', Readable.from([Buffer.from('png bytes')]), { contentType: 'image/png' });
    const url = await store.presignGet('task_s3/2-result.png', { expiresInSeconds: 2, filename: 'task_s3-2.png' });
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/png');
    expect(ok.headers.get('content-disposition')).toContain('task_s3-2.png');
    expect(await ok.text()).toBe('png bytes');
    const ranged = await fetch(url, { headers: { Range: 'bytes=0-2' } });
    expect([ranged.status, await ranged.text()]).toEqual([206, 'png']);
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await fetch(url)).status).toBe(403);
  });

  test('deleteOlderThan deletes by age, only under the prefix; delete is idempotent', async () => {
    const outside = 'someone-else/keep.txt';
    await store.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: outside, Body: 'not ours' }));
    await store.put('task_old/0-result.png', Readable.from([Buffer.from('x')]), { contentType: 'image/png' });

    const none = await store.deleteOlderThan(new Date(Date.now() - 60_000));
    expect(none.deleted).toBe(0);
    const progress: number[] = [];
    const all = await store.deleteOlderThan(new Date(Date.now() + 60_000), (n) => progress.push(n));
    expect(all.deleted).toBeGreaterThanOrEqual(4);
    expect(progress.at(-1)).toBe(all.deleted);
    expect(await store.head('task_old/0-result.png')).toBeUndefined();
    expect(await store.head('task_s3/0-result.mp4')).toBeUndefined();
    // The object outside the prefix is untouched.
    const other = new S3ResultStore({
      bucket: BUCKET,
      endpoint: minio.endpoint,
      region: minio.region,
      credentials: { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey },
    });
    expect(await other.head(outside)).toBeDefined();
    await other.close();

    await expect(store.delete('task_old/0-result.png')).resolves.toBeUndefined();
  });

  test('an unreachable store is a ResultStoreError (infrastructure: Temporal retries the activity)', async () => {
    const down = new S3ResultStore({
      bucket: BUCKET,
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    await expect(down.put('task_x/0-result.png', Readable.from([Buffer.from('x')]), { contentType: 'image/png' })).rejects.toThrow(
      ResultStoreError,
    );
    await expect(down.head('task_x/0-result.png')).rejects.toThrow(ResultStoreError);
    await down.close();
  });
});
