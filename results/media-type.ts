/**
 * Which bytes the copy accepts as a result: a video output must be a video, an image or a last frame an image.
 * The platform's Content-Type decides when it names a media type we keep (results/result-store.ts
 * MEDIA_EXTENSIONS). A generic type — `application/octet-stream`, `binary/octet-stream` (S3's default for
 * objects uploaded without one) or none at all — is common on object storage, so it is not refused outright:
 * the first bytes decide (magic numbers of MP4/MOV, WebM/Matroska, PNG, JPEG, WebP, GIF), and an unrecognised
 * body is refused. Anything else (text/html error pages, JSON, SVG, audio) is refused without reading the body.
 */
import { MEDIA_EXTENSIONS } from './result-store';

export type Expected = 'video' | 'image';

/** Content types that say nothing about the bytes. */
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/binary', 'application/x-binary']);

/** Bytes needed to recognise every format below. */
export const SNIFF_BYTES = 16;

/** The media type the bytes start with, or undefined. */
export function sniffMediaType(head: Buffer): string | undefined {
  const at = (offset: number, text: string) =>
    head.length >= offset + text.length && head.toString('latin1', offset, offset + text.length) === text;
  if (at(4, 'ftyp'))
    return at(8, 'qt  ') ? 'video/quicktime' : /^(avif|avis)$/.test(head.toString('latin1', 8, 12)) ? 'image/avif' : 'video/mp4';
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return head.includes('webm') ? 'video/webm' : 'video/x-matroska';
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (at(0, 'RIFF') && at(8, 'WEBP')) return 'image/webp';
  if (at(0, 'GIF87a') || at(0, 'GIF89a')) return 'image/gif';
  return undefined;
}

/** The bare media type of a Content-Type header: lower case, without parameters. */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

export type Verdict = { ok: true; contentType: string } | { ok: false; reason: string };

/** Decides on the declared type alone; `undefined` means "generic: sniff the first bytes". */
export function judgeDeclared(declared: string, expected: Expected): Verdict | undefined {
  if (GENERIC.has(declared)) return undefined;
  // Platforms label MP4 results variously; a few aliases of the types we keep.
  const normalised = declared === 'image/jpg' ? 'image/jpeg' : declared === 'video/x-m4v' ? 'video/mp4' : declared;
  if (normalised.startsWith(`${expected}/`) && MEDIA_EXTENSIONS[normalised]) return { ok: true, contentType: normalised };
  return { ok: false, reason: `content type ${declared || '(none)'} is not a ${expected} type the gateway keeps` };
}

/** Decides a generic-typed body by its first bytes. */
export function judgeSniffed(head: Buffer, declared: string, expected: Expected): Verdict {
  const sniffed = sniffMediaType(head);
  if (sniffed?.startsWith(`${expected}/`)) return { ok: true, contentType: sniffed };
  return {
    ok: false,
    reason: `content type ${declared || '(none)'} and the first bytes are not a ${expected}${sniffed ? ` (they look like ${sniffed})` : ''}`,
  };
}
