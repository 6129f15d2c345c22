/**
 * The embedded result store: files under RESULTS_DIR (default data/results), so `npm start` keeps results with
 * nothing else installed. In docker-compose the API and the workers share it as a volume.
 *
 * Layout: `<dir>/<taskId>/<index>-<role>.<ext>` holds the bytes, `<same>.meta.json` beside it the content type
 * and sha256, `<dir>/.partial/` the writes in progress. A write goes to `.partial/` and is renamed into place
 * once complete and flushed: rename(2) within one filesystem is atomic, so a reader opens the old file or the
 * new one, never a partial one. The sidecar is committed before the data, so a visible file always has one.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertValidKey,
  contentTypeOfKey,
  measuringStream,
  ResultStoreError,
  type ByteRange,
  type PutOptions,
  type PutResult,
  type ResultStore,
  type StoredObjectInfo,
} from './result-store';

const PARTIAL = '.partial';
const META_SUFFIX = '.meta.json';

interface Sidecar {
  contentType: string;
  sha256: string;
  bytes: number;
}

export class DirectoryResultStore implements ResultStore {
  readonly kind = 'directory' as const;
  readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    const path = resolve(this.root, key);
    // assertValidKey already rules out `..`; this is the belt to its braces.
    if (!path.startsWith(`${this.root}/`)) throw new Error(`result key ${key} escapes the store`);
    return path;
  }

  async put(key: string, body: Readable, opts: PutOptions): Promise<PutResult> {
    const final = this.pathOf(key);
    const partialDir = join(this.root, PARTIAL);
    const tmp = join(partialDir, `${randomUUID()}.part`);
    const tmpMeta = `${tmp}${META_SUFFIX}`;
    try {
      await mkdir(partialDir, { recursive: true });
    } catch (err) {
      throw new ResultStoreError(`result store directory ${this.root} is not writable: ${(err as Error).message}`, { cause: err });
    }
    const measure = measuringStream();
    try {
      const out = createWriteStream(tmp, { flags: 'wx' });
      await pipeline(body, measure.stream, out, { signal: opts.signal });
      // Flushed before the rename: after a crash the renamed file must hold every byte, not a hole.
      const fh = await open(tmp, 'r');
      await fh.sync();
      await fh.close();
      const { sha256, bytes } = measure.measured();
      const meta: Sidecar = { contentType: opts.contentType, sha256, bytes };
      await writeFile(tmpMeta, JSON.stringify(meta));
      await mkdir(dirname(final), { recursive: true });
      await rename(tmpMeta, `${final}${META_SUFFIX}`);
      await rename(tmp, final);
      return { key, bytes, sha256 };
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      await rm(tmpMeta, { force: true }).catch(() => undefined);
      // The caller tells its source's failures (a cap, a timeout, a reset) from the disk's: it knows which it raised.
      throw new ResultStoreError(`writing ${key} to ${this.root} failed: ${(err as Error).message}`, { cause: err });
    }
  }

  async head(key: string): Promise<StoredObjectInfo | undefined> {
    const path = this.pathOf(key);
    let st;
    try {
      st = await stat(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new ResultStoreError(`reading ${key}: ${(err as Error).message}`, { cause: err });
    }
    const meta = await readFile(`${path}${META_SUFFIX}`, 'utf8')
      .then((t) => JSON.parse(t) as Sidecar)
      .catch(() => undefined);
    const sha256 = meta?.sha256;
    return {
      key,
      bytes: st.size,
      contentType: meta?.contentType ?? contentTypeOfKey(key),
      ...(sha256 ? { sha256 } : {}),
      etag: sha256 ?? `${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}`,
      lastModified: st.mtime,
    };
  }

  async get(key: string, range?: ByteRange): Promise<{ info: StoredObjectInfo; body: Readable } | undefined> {
    const info = await this.head(key);
    if (!info) return undefined;
    // Opened by path after the stat: a concurrent rename replaces the file whole, so we read one version or the other.
    const body = createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
    return { info, body };
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(path, { force: true });
    await rm(`${path}${META_SUFFIX}`, { force: true });
    await rmdir(dirname(path)).catch(() => undefined); // only if it is now empty
  }

  async deleteOlderThan(cutoff: Date, onProgress?: (deleted: number) => void): Promise<{ deleted: number; bytes: number }> {
    let deleted = 0;
    let bytes = 0;
    let entries: string[];
    try {
      entries = await readdir(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { deleted, bytes };
      throw err;
    }
    for (const entry of entries) {
      const dir = join(this.root, entry);
      const files = await readdir(dir).catch(() => [] as string[]);
      for (const name of files) {
        if (entry !== PARTIAL && name.endsWith(META_SUFFIX)) continue; // goes with its data file
        const path = join(dir, name);
        const st = await stat(path).catch(() => undefined);
        if (!st || !st.isFile() || st.mtime >= cutoff) continue;
        await rm(path, { force: true });
        if (entry !== PARTIAL) {
          await rm(`${path}${META_SUFFIX}`, { force: true });
          deleted += 1;
          bytes += st.size;
        }
      }
      // Sidecars whose data file is gone (a crash between the two renames, or between the two deletes).
      for (const name of files.filter((n) => n.endsWith(META_SUFFIX) && entry !== PARTIAL)) {
        const dataFile = join(dir, name.slice(0, -META_SUFFIX.length));
        const exists = await stat(dataFile).then(
          () => true,
          () => false,
        );
        const st = await stat(join(dir, name)).catch(() => undefined);
        if (!exists && st && st.mtime < cutoff) await rm(join(dir, name), { force: true });
      }
      if (entry !== PARTIAL) await rmdir(dir).catch(() => undefined); // only if now empty
      onProgress?.(deleted);
    }
    return { deleted, bytes };
  }
}
