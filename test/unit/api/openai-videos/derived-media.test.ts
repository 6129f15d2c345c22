/**
 * Thumbnails and spritesheets (api/openai-videos/derived-media.ts) from a stored video, with the real ffmpeg binary
 * of @ffmpeg-installer/ffmpeg and a real directory result store: made once and kept; a video ffmpeg cannot read
 * gives none (the route's 404 variant_unavailable); a deleted video says so (the route's 410).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ensureDerived } from '../../../../api/openai-videos/derived-media';
import { DirectoryResultStore } from '../../../../results/directory-store';
import { REPO } from '../../../support/stack';

const dir = mkdtempSync(join(tmpdir(), 'mediagate-derived-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = new DirectoryResultStore(dir);
const MP4 = readFileSync(join(REPO, 'sim', 'assets', 'sample.mp4'));

test.each(['thumbnail', 'spritesheet'] as const)('a %s is made from the stored video once, as a JPEG, and kept', async (variant) => {
  await store.put('task_derived/0-result.mp4', Readable.from([MP4]), { contentType: 'video/mp4' });
  const key = await ensureDerived(store, 'task_derived', 'task_derived/0-result.mp4', variant);
  expect(key).toBe(`task_derived/${variant}.jpg`);
  const first = await store.head(key as string);
  expect(first?.contentType).toBe('image/jpeg');
  const bytes = await store.get(key as string);
  const head: Buffer[] = [];
  for await (const c of bytes!.body) head.push(c as Buffer);
  expect([...Buffer.concat(head).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  // Asked again, it is served as kept: the same object, not made a second time.
  await ensureDerived(store, 'task_derived', 'task_derived/0-result.mp4', variant);
  expect((await store.head(key as string))?.lastModified).toEqual(first?.lastModified);
});

test('a stored "video" ffmpeg cannot read gives no thumbnail; a deleted video is reported gone', async () => {
  await store.put('task_garbled/0-result.mp4', Readable.from([Buffer.concat([MP4.subarray(0, 32), Buffer.alloc(64)])]), {
    contentType: 'video/mp4',
  });
  expect(await ensureDerived(store, 'task_garbled', 'task_garbled/0-result.mp4', 'thumbnail')).toBeUndefined();
  expect(await store.head('task_garbled/thumbnail.jpg')).toBeUndefined();
  expect(await ensureDerived(store, 'task_gone', 'task_gone/0-result.mp4', 'spritesheet')).toBe('video_gone');
});
