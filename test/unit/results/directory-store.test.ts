/**
 * The embedded result store on a real directory: a write becomes visible only whole (a failing source leaves
 * nothing under the key and no stray file), ranges read the right bytes, metadata survives, retention deletes by
 * age and only by age, and keys cannot leave the directory.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { DirectoryResultStore } from '../../../results/directory-store';
import { resultKey, ResultStoreError } from '../../../results/result-store';
import { sha } from '../../support/sha';

let dir: string;
let store: DirectoryResultStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'results-dir-'));
  store = new DirectoryResultStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A body that yields `chunks`, then fails (or pauses forever) before the end. */
function failingBody(chunks: string[], error = new Error('upstream reset')): Readable {
  return Readable.from(
    (async function* () {
      for (const c of chunks) {
        yield Buffer.from(c);
        await new Promise((r) => setTimeout(r, 5));
      }
      throw error;
    })(),
  );
}

describe('DirectoryResultStore', () => {
  test('put commits the whole object with its metadata; get and head read it back', async () => {
    const body = Buffer.from('0123456789'.repeat(1000));
    const key = resultKey('task_abc', 0, 'result', 'video/mp4');
    expect(key).toBe('task_abc/0-result.mp4');
    const put = await store.put(key, Readable.from([body.subarray(0, 4000), body.subarray(4000)]), { contentType: 'video/mp4' });
    expect(put).toEqual({ key, bytes: body.length, sha256: sha(body) });

    const info = await store.head(key);
    expect(info).toMatchObject({ key, bytes: body.length, contentType: 'video/mp4', sha256: sha(body), etag: sha(body) });
    const got = await store.get(key);
    expect(await text(got!.body)).toBe(body.toString());
    // Nothing left behind in the area for writes in progress.
    expect(readdirSync(join(dir, '.partial'))).toEqual([]);
  });

  test('a source failing mid-write leaves nothing visible, and no partial file', async () => {
    const key = 'task_abc/0-result.mp4';
    await expect(store.put(key, failingBody(['abc', 'def']), { contentType: 'video/mp4' })).rejects.toThrow(ResultStoreError);
    expect(await store.head(key)).toBeUndefined();
    expect(await store.get(key)).toBeUndefined();
    expect(readdirSync(join(dir, '.partial'))).toEqual([]);
  });

  test('a failed rewrite keeps the previous object whole (the rename is the commit)', async () => {
    const key = 'task_abc/0-result.png';
    await store.put(key, Readable.from([Buffer.from('first version')]), { contentType: 'image/png' });
    await expect(store.put(key, failingBody(['second, but cut']), { contentType: 'image/png' })).rejects.toThrow();
    expect(await text((await store.get(key))!.body)).toBe('first version');
    await store.put(key, Readable.from([Buffer.from('third')]), { contentType: 'image/png' });
    expect(await text((await store.get(key))!.body)).toBe('third');
    expect((await store.head(key))!.sha256).toBe(sha('third'));
  });

  test('while a write is in progress, readers see the old object or none, never the partial bytes', async () => {
    const key = 'task_abc/1-result.png';
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = Readable.from(
      (async function* () {
        yield Buffer.from('partial-');
        await gate;
        yield Buffer.from('complete');
      })(),
    );
    const writing = store.put(key, slow, { contentType: 'image/png' });
    await new Promise((r) => setTimeout(r, 50));
    expect(await store.head(key)).toBeUndefined();
    release();
    await writing;
    expect(await text((await store.get(key))!.body)).toBe('partial-complete');
  });

  test('range reads', async () => {
    const key = 'task_abc/0-result.mp4';
    await store.put(key, Readable.from([Buffer.from('abcdefghijklmnopqrstuvwxyz')]), { contentType: 'video/mp4' });
    const mid = await store.get(key, { start: 2, end: 5 });
    expect(await text(mid!.body)).toBe('cdef');
    expect(mid!.info.bytes).toBe(26);
    expect(await text((await store.get(key, { start: 25, end: 25 }))!.body)).toBe('z');
  });

  test('deleteOlderThan deletes by age only, with sidecars, empty task folders and stale partial files', async () => {
    const now = Date.now();
    const old = new Date(now - 8 * 86_400_000);
    await store.put('task_old/0-result.mp4', Readable.from([Buffer.from('old video')]), { contentType: 'video/mp4' });
    await store.put('task_mixed/0-result.png', Readable.from([Buffer.from('old image')]), { contentType: 'image/png' });
    await store.put('task_mixed/1-result.png', Readable.from([Buffer.from('new image')]), { contentType: 'image/png' });
    await store.put('task_new/0-result.mp4', Readable.from([Buffer.from('new video')]), { contentType: 'video/mp4' });
    for (const f of ['task_old/0-result.mp4', 'task_mixed/0-result.png']) utimesSync(join(dir, f), old, old);
    // An interrupted write (a killed worker) left this behind.
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, '.partial', 'dead.part'), 'half');
    utimesSync(join(dir, '.partial', 'dead.part'), old, old);

    const seen: number[] = [];
    const res = await store.deleteOlderThan(new Date(now - 7 * 86_400_000), (n) => seen.push(n));
    expect(res).toEqual({ deleted: 2, bytes: 'old video'.length + 'old image'.length });
    expect(seen.length).toBeGreaterThan(0);
    expect(await store.head('task_old/0-result.mp4')).toBeUndefined();
    expect(existsSync(join(dir, 'task_old'))).toBe(false);
    expect(existsSync(join(dir, 'task_old', '0-result.mp4.meta.json'))).toBe(false);
    expect(await store.head('task_mixed/0-result.png')).toBeUndefined();
    expect(await store.head('task_mixed/1-result.png')).toBeDefined();
    expect(await store.head('task_new/0-result.mp4')).toBeDefined();
    expect(existsSync(join(dir, '.partial', 'dead.part'))).toBe(false);
  });

  test('delete removes the object; deleting a missing one is fine', async () => {
    await store.put('task_x/0-result.png', Readable.from([Buffer.from('x')]), { contentType: 'image/png' });
    await store.delete('task_x/0-result.png');
    expect(await store.head('task_x/0-result.png')).toBeUndefined();
    await expect(store.delete('task_x/0-result.png')).resolves.toBeUndefined();
  });

  test('keys cannot leave the directory or reach the partial area', async () => {
    for (const bad of ['../etc/passwd', 'task/../../x', '/abs/path', '.partial/x', 'task/.hidden', 'a//b', 'a\\b', '']) {
      await expect(store.head(bad)).rejects.toThrow(/invalid result key/);
    }
    expect(() => resultKey('../x', 0, 'result', 'video/mp4')).toThrow();
    expect(() => resultKey('task', 0, 'result', 'text/html')).toThrow();
    expect(resultKey('task_1', 0, 'last_frame', 'image/png')).toBe('task_1/0-last-frame.png');
  });
});
