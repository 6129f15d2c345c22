/**
 * A stored video's thumbnail and spritesheet (GET /v1/videos/:id/content?variant=…), made once from the stored
 * video with ffmpeg (the static binary of @ffmpeg-installer/ffmpeg) and kept in the result store beside it, so
 * later reads serve the stored image. Concurrent first reads in one process share one ffmpeg run; across API
 * replicas both write the same key, and the store's atomic put keeps one whole file.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ResultStore } from '../../results/result-store';

export type DerivedVariant = 'thumbnail' | 'spritesheet';

/** How long one ffmpeg run may take: a frame or 25 small ones from a clip of seconds. */
const FFMPEG_TIMEOUT_MS = 60_000;
/** The spritesheet: 5 × 5 frames spread over the clip, each 160 px wide. */
const SPRITE_COLUMNS = 5;
const SPRITE_FRAMES = SPRITE_COLUMNS * SPRITE_COLUMNS;
const SPRITE_FRAME_WIDTH = 160;

/** Where a task's derived image is kept: beside its outputs, so retention and DELETE remove it with them. */
export function derivedKey(taskId: string, variant: DerivedVariant): string {
  return `${taskId}/${variant}.jpg`;
}

/**
 * The ffmpeg binary, loaded on first use: @ffmpeg-installer/ffmpeg throws when no binary exists for this
 * platform, and that must cost the thumbnails (404 variant_unavailable), never the API's start.
 */
let ffmpegPath: Promise<string | undefined> | undefined;
function ffmpegBinary(): Promise<string | undefined> {
  ffmpegPath ??= import('@ffmpeg-installer/ffmpeg').then(
    (m) => (m.default ?? m).path,
    () => undefined,
  );
  return ffmpegPath;
}

async function run(args: string[]): Promise<{ ok: boolean; stderr: string }> {
  const binary = await ffmpegBinary();
  if (!binary) return { ok: false, stderr: 'no ffmpeg binary for this platform (@ffmpeg-installer/ffmpeg)' };
  return new Promise((resolve) => {
    execFile(binary, ['-hide_banner', ...args], { timeout: FFMPEG_TIMEOUT_MS, maxBuffer: 1024 * 1024 }, (err, _stdout, stderr) =>
      resolve({ ok: !err, stderr }),
    );
  });
}

/** The clip's length in seconds from ffmpeg's own report of the input, or undefined when it names none. */
async function durationOf(file: string): Promise<number | undefined> {
  const { stderr } = await run(['-i', file]);
  const m = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(stderr);
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : undefined;
}

async function render(variant: DerivedVariant, input: string, output: string): Promise<boolean> {
  if (variant === 'thumbnail') {
    // The `thumbnail` filter picks the most representative of the first frames (not a black fade-in).
    return (await run(['-y', '-i', input, '-vf', 'thumbnail', '-frames:v', '1', '-f', 'image2', '-c:v', 'mjpeg', output])).ok;
  }
  const seconds = (await durationOf(input)) ?? SPRITE_FRAMES;
  const fps = Math.max(SPRITE_FRAMES / Math.max(seconds, 0.1), 0.01).toFixed(4);
  const filter = `fps=${fps},scale=${SPRITE_FRAME_WIDTH}:-2,tile=${SPRITE_COLUMNS}x${SPRITE_COLUMNS}`;
  return (await run(['-y', '-i', input, '-vf', filter, '-frames:v', '1', '-f', 'image2', '-c:v', 'mjpeg', output])).ok;
}

const inFlight = new Map<string, Promise<string | 'video_gone' | undefined>>();

/**
 * The key of the task's derived image, made now from the stored video under `videoKey` if it is not kept yet;
 * `video_gone` when the store no longer has the video (deleted), undefined when ffmpeg cannot make the image.
 */
export function ensureDerived(
  store: ResultStore,
  taskId: string,
  videoKey: string,
  variant: DerivedVariant,
): Promise<string | 'video_gone' | undefined> {
  const key = derivedKey(taskId, variant);
  const running = inFlight.get(key);
  if (running) return running;
  const made = (async () => {
    if (await store.head(key)) return key;
    const video = await store.get(videoKey);
    if (!video) return 'video_gone';
    const dir = await mkdtemp(join(tmpdir(), 'mediagate-derive-'));
    try {
      const input = join(dir, 'video');
      const output = join(dir, `${variant}.jpg`);
      await pipeline(video.body, createWriteStream(input));
      if (!(await render(variant, input, output))) return undefined;
      const bytes = await readFile(output).catch(() => undefined);
      if (!bytes || bytes.length === 0) return undefined;
      await store.put(key, Readable.from([bytes]), { contentType: 'image/jpeg' });
      return key;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })().finally(() => inFlight.delete(key));
  inFlight.set(key, made);
  return made;
}
