/**
 * The result store: where the gateway keeps its own copy of every output a platform produced, so the client's
 * links outlive the platform's. One small interface, two implementations chosen by configuration
 * (results/results-config.ts): a directory (the embedded default, results/directory-store.ts) and any
 * S3-compatible object store (results/s3-store.ts).
 *
 * Keys are logical paths `<taskId>/<index>-<role>.<ext>` (resultKey below): deterministic, so a retried copy
 * writes the same object again instead of a second one, and scoped by task, so nothing of one task can be read
 * under another's id.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';

/** What a stored object is, as a reader needs it to answer HTTP (Content-Type, Content-Length, ETag). */
export interface StoredObjectInfo {
  key: string;
  bytes: number;
  contentType: string;
  /** Hex sha256 of the bytes, where the store kept it (the directory store does; S3 has the task record's). */
  sha256?: string;
  /** The store's own validator (S3's ETag, or the sha256). */
  etag: string;
  lastModified: Date;
}

/** An inclusive byte range, as HTTP Range has it: `start` to `end`, both within the object. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PutOptions {
  contentType: string;
  /** Aborting stops the write; nothing becomes visible. */
  signal?: AbortSignal;
}

export interface PutResult {
  key: string;
  bytes: number;
  /** Hex sha256 of what was written (computed while writing). */
  sha256: string;
}

export interface ResultStore {
  /** `directory` or `s3`: for logs and the benchmark. */
  readonly kind: 'directory' | 's3';
  /**
   * Writes `body` under `key`. The object becomes visible only once every byte is written (a temporary file
   * renamed into place; S3's PUT / CompleteMultipartUpload, which are atomic): a reader sees the previous object
   * or the whole new one, never part of one. Rejects, leaving nothing visible, if `body` errors or `signal` aborts.
   */
  put(key: string, body: Readable, opts: PutOptions): Promise<PutResult>;
  /** The object's metadata, or undefined when there is none under `key`. */
  head(key: string): Promise<StoredObjectInfo | undefined>;
  /** The object's bytes (all, or one range) and metadata, or undefined when there is none under `key`. */
  get(key: string, range?: ByteRange): Promise<{ info: StoredObjectInfo; body: Readable } | undefined>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Deletes every object last written before `cutoff`, and what interrupted writes left behind (temporary files,
   * unfinished multipart uploads) that is older than `cutoff` too. `onProgress` is called after every batch
   * (the cleanup activity heartbeats with it).
   */
  deleteOlderThan(cutoff: Date, onProgress?: (deleted: number) => void): Promise<{ deleted: number; bytes: number }>;
  /** A URL that GETs the object without credentials until it expires (S3 presigned GET); absent on the directory store. */
  presignGet?(key: string, opts: { expiresInSeconds: number; filename: string }): Promise<string>;
  close?(): Promise<void>;
}

/** What one output is: the job's result (data[index]) or platform V's last frame. */
export type OutputRole = 'result' | 'last_frame';

/**
 * Media types the gateway keeps, with the extension their key gets. Only these: anything else a platform might
 * serve is not a generated video or image (an HTML error page, a JSON body), or is scriptable (SVG), and must
 * never be served from the gateway's own origin.
 */
export const MEDIA_EXTENSIONS: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'video/x-matroska': 'mkv',
  'video/mpeg': 'mpg',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
  'image/bmp': 'bmp',
};

const EXTENSION_TYPES: Record<string, string> = Object.fromEntries(Object.entries(MEDIA_EXTENSIONS).map(([type, ext]) => [ext, type]));

/** The content type a key's extension stands for (application/octet-stream for anything unknown). */
export function contentTypeOfKey(key: string): string {
  const ext = /\.([a-z0-9]+)$/.exec(key)?.[1];
  return (ext && EXTENSION_TYPES[ext]) ?? 'application/octet-stream';
}

/** Task ids are URL-safe (tasks/idempotency.ts newTaskId and idempotentTaskId), so they are safe path segments too. */
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The one key an output is stored under: the same on every attempt, so a retried copy replaces, never adds. */
export function resultKey(taskId: string, index: number, role: OutputRole, contentType: string): string {
  if (!TASK_ID.test(taskId)) throw new Error(`not a task id: ${JSON.stringify(taskId)}`);
  if (!Number.isInteger(index) || index < 0) throw new Error(`bad output index ${index}`);
  const ext = MEDIA_EXTENSIONS[contentType];
  if (!ext) throw new Error(`no extension for content type ${contentType}`);
  return `${taskId}/${index}-${role === 'last_frame' ? 'last-frame' : 'result'}.${ext}`;
}

/**
 * Every key the stores accept: path segments of safe characters, none of them `.` or `..`, none starting with a
 * dot (the stores keep their temporary files under `.partial/`). The directory store maps keys onto file paths,
 * so this is what keeps a key inside RESULTS_DIR.
 */
const KEY = /^(?!\.)[A-Za-z0-9_-][A-Za-z0-9_.-]{0,200}(?:\/(?!\.)[A-Za-z0-9_-][A-Za-z0-9_.-]{0,200}){0,4}$/;

export function assertValidKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((s) => s === '.' || s === '..')) throw new Error(`invalid result key ${JSON.stringify(key)}`);
}

/** A failure of the store itself (disk, S3 unreachable or refusing): transient infrastructure, retried by Temporal. */
export class ResultStoreError extends Error {
  override name = 'ResultStoreError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A pass-through stream that counts and hashes what a store writes, for its PutResult: both stores measure the
 * bytes on their way in rather than trusting a declared length.
 */
export function measuringStream(): { stream: Transform; measured(): { bytes: number; sha256: string } } {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, measured: () => ({ bytes, sha256: hash.digest('hex') }) };
}
