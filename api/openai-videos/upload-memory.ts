/**
 * The memory uploads in progress may hold (POST /v1/videos as a form): a form is read into memory, up to
 * UPLOAD_MAX_BYTES for its file and its fields' bounds, and kept until the request ends. Without a bound across
 * requests, a few dozen slow uploads would hold hundreds of MiB. So the process has a budget
 * (UPLOADS_MAX_MEMORY_BYTES): an upload reserves what it declares (Content-Length) before anything is read, and
 * grows its reservation as bytes arrive past that; one key may hold at most half the budget, so a single client
 * cannot keep every other one from uploading. Past the key's half the upload is 429 `uploads_per_key`, past the
 * budget 503 `uploads_busy`, both with Retry-After, and nothing more of the body is read. A reservation is given back
 * when its request ends, answered or abandoned.
 *
 * The budget is this process's memory, so there is one per process: api/main.ts sets its size at start
 * (configureUploadMemory); until then the default applies.
 */
import { ApiError } from '../api-error';

/** Default UPLOADS_MAX_MEMORY_BYTES: ten uploads of the largest file at once. */
export const DEFAULT_UPLOADS_MAX_MEMORY_BYTES = 100 * 1024 * 1024;

/** How soon a refused upload may be tried again: the uploads ahead of it end within the body timeout. */
const RETRY_AFTER_SECONDS = 10;

/** What one upload holds: grow it as bytes arrive (throws past a bound), release it once when the request ends. */
export interface UploadReservation {
  grow(bytes: number): void;
  release(): void;
}

export class UploadMemory {
  private held = 0;
  private readonly byKey = new Map<string, number>();

  constructor(readonly maxBytes: number) {}

  /** Bytes held by uploads in progress, in total or by one key. */
  holding(keyId?: string): number {
    return keyId === undefined ? this.held : (this.byKey.get(keyId) ?? 0);
  }

  /** A reservation for one upload of `keyId`, starting with `declared` bytes (its Content-Length; 0 when unknown). */
  reserve(keyId: string, declared: number): UploadReservation {
    let mine = 0;
    let released = false;
    const take = (bytes: number) => {
      if (released || bytes <= 0) return;
      this.check(keyId, bytes);
      mine += bytes;
      this.held += bytes;
      this.byKey.set(keyId, (this.byKey.get(keyId) ?? 0) + bytes);
    };
    take(declared);
    let seen = 0;
    return {
      // Bytes arriving: only those past what is reserved already take more.
      grow: (bytes) => {
        seen += bytes;
        if (seen > mine) take(seen - mine);
      },
      release: () => {
        if (released) return;
        released = true;
        this.held -= mine;
        const left = (this.byKey.get(keyId) ?? 0) - mine;
        if (left > 0) this.byKey.set(keyId, left);
        else this.byKey.delete(keyId);
      },
    };
  }

  /** Throws when `bytes` more for `keyId` would pass the key's half or the whole budget (0: unbounded). */
  private check(keyId: string, bytes: number): void {
    if (this.maxBytes <= 0) return;
    const mib = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;
    const keyShare = Math.floor(this.maxBytes / 2);
    if (this.holding(keyId) + bytes > keyShare) {
      throw new ApiError(
        429,
        'rate_limit_error',
        `This API key's uploads in progress would hold more than ${mib(keyShare)} on this server; wait for one to finish`,
        {
          param: 'input_reference',
          code: 'uploads_per_key',
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        },
      );
    }
    if (this.held + bytes > this.maxBytes) {
      throw new ApiError(
        503,
        'service_unavailable_error',
        `This server is holding its maximum of ${mib(this.maxBytes)} of uploads in progress; try again shortly`,
        {
          param: 'input_reference',
          code: 'uploads_busy',
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        },
      );
    }
  }
}

let processUploadMemory = new UploadMemory(DEFAULT_UPLOADS_MAX_MEMORY_BYTES);

/** Sets the process's budget (UPLOADS_MAX_MEMORY_BYTES), once at start, before any upload. */
export function configureUploadMemory(maxBytes: number): void {
  processUploadMemory = new UploadMemory(maxBytes);
}

/** The process's budget. */
export function uploadMemory(): UploadMemory {
  return processUploadMemory;
}
