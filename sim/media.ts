/**
 * Result files with real bytes: a 1-second 64x36 H.264 MP4 and a 32x32 PNG, made once with ffmpeg and
 * committed, so clients downloading a result get a file their tools can open.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const cache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = readFileSync(join(__dirname, 'assets', name));
    cache.set(name, bytes);
  }
  return bytes;
}

export function mediaFor(ext: 'mp4' | 'png'): { contentType: string; bytes: Buffer } {
  return ext === 'mp4'
    ? { contentType: 'video/mp4', bytes: asset('sample.mp4') }
    : { contentType: 'image/png', bytes: asset('sample.png') };
}
