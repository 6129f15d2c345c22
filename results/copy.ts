/**
 * Copies one output from the platform's URL into the result store, streamed: the bytes pass through (hashed and
 * counted on the way) and are never held whole in memory, whatever the size.
 *
 * Every way a platform's URL can be wrong ends in a CopyFailure with a reason, never a crash or a hang:
 * - not http(s), a private/loopback address (directly, by DNS, or by redirect), too many redirects → refused;
 * - larger than RESULTS_MAX_BYTES (by Content-Length or by counting), not a video/image as expected → refused;
 * - connect, idle (no byte for RESULTS_IDLE_TIMEOUT_MS) and total (RESULTS_COPY_TIMEOUT_MS) timeouts, resets,
 *   408/429/5xx → retried here with backoff, at most RESULTS_COPY_ATTEMPTS times and within the caller's deadline.
 * A failure of the store itself is not the platform's fault: it surfaces as ResultStoreError for the activity to
 * throw (Temporal retries it). Cancellation (the activity's signal) surfaces as an abort error.
 */
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { guardedLookup, isPrivateAddress } from './address-guard';
import { judgeDeclared, judgeSniffed, mediaTypeOf, SNIFF_BYTES, type Expected } from './media-type';
import { ResultStoreError, type ResultStore } from './result-store';

export interface CopyLimits {
  maxBytes: number;
  connectTimeoutMs: number;
  /** No byte (or no response headers) for this long fails the attempt. */
  idleTimeoutMs: number;
  /** One attempt, start to end. */
  attemptTimeoutMs: number;
  /** Attempts for transient failures. */
  attempts: number;
  /** Origins fetched without the private-address guard (the simulator in development, RESULTS_ALLOW_PRIVATE_ORIGINS). */
  allowPrivateOrigins: ReadonlySet<string>;
  /** First pause between attempts (doubling, at most 10 s); tests shorten it. */
  backoffMs?: number;
}

/** Bounded label values for metrics and logs. */
export type CopyFailureReason =
  | 'bad_url'
  | 'private_address'
  | 'too_many_redirects'
  | 'upstream_status'
  | 'too_large'
  | 'content_type'
  | 'empty'
  | 'timeout'
  | 'network'
  | 'out_of_time';

export class CopyFailure extends Error {
  override name = 'CopyFailure';
  constructor(
    readonly reason: CopyFailureReason,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface CopyRequest {
  url: string;
  expected: Expected;
  /** The store key for the content type the copy settles on (the key carries its extension). */
  keyFor: (contentType: string) => string;
  /** Cancels everything (the activity's cancellation signal). */
  signal?: AbortSignal;
  /** Epoch ms by which every attempt must be over (the activity's own budget). */
  deadline?: number;
  /** Bytes written so far by this copy, for heartbeats and the benchmark. */
  onBytes?: (delta: number) => void;
}

export interface CopyResult {
  key: string;
  contentType: string;
  bytes: number;
  sha256: string;
  attempts: number;
}

const MAX_REDIRECTS = 5;

/** Drops a response body we will not read; undici reports a destroyed body as an error, which nobody needs here. */
function discard(body: Readable): void {
  if (body.destroyed) return;
  body.on('error', () => undefined);
  body.destroy();
}
const MAX_BACKOFF_MS = 10_000;

/** A URL for logs and error messages: never the query, where signed platform links keep their credentials. */
export function redact(url: string | URL): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.protocol}//${u.host}${u.pathname.length > 80 ? `${u.pathname.slice(0, 77)}...` : u.pathname}`;
  } catch {
    return '(malformed URL)';
  }
}

export class ResultCopier {
  /** Sockets whose every DNS answer is checked (results/address-guard.ts). */
  private readonly guarded: Dispatcher;
  /** For the allow-listed private origins only. */
  private readonly trusted: Dispatcher;

  constructor(
    private readonly store: ResultStore,
    private readonly limits: CopyLimits,
  ) {
    const common = { headersTimeout: limits.idleTimeoutMs, bodyTimeout: limits.idleTimeoutMs, keepAliveTimeout: 10_000 };
    this.guarded = new Agent({ ...common, connect: { timeout: limits.connectTimeoutMs, lookup: guardedLookup } });
    this.trusted = new Agent({ ...common, connect: { timeout: limits.connectTimeoutMs } });
  }

  async close(): Promise<void> {
    await Promise.all([this.guarded.close(), this.trusted.close()]);
  }

  /** Copies `req.url` into the store; throws CopyFailure (given up), ResultStoreError, or the signal's abort. */
  async copy(req: CopyRequest): Promise<CopyResult> {
    const deadline = req.deadline ?? Number.POSITIVE_INFINITY;
    let last: CopyFailure | undefined;
    for (let attempt = 1; attempt <= this.limits.attempts; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      try {
        return { ...(await this.attempt(req, Math.min(this.limits.attemptTimeoutMs, left))), attempts: attempt };
      } catch (err) {
        req.signal?.throwIfAborted();
        if (err instanceof ResultStoreError) throw err;
        last = err instanceof CopyFailure ? err : new CopyFailure('network', `copy failed: ${(err as Error).message}`, true);
        if (!last.retryable || attempt === this.limits.attempts) throw last;
        const pause = Math.min(MAX_BACKOFF_MS, (this.limits.backoffMs ?? 1_000) * 2 ** (attempt - 1));
        if (Date.now() + pause >= deadline) break;
        await sleep(pause, undefined, { signal: req.signal });
      }
    }
    throw new CopyFailure('out_of_time', `the copy ran out of time${last ? ` (last attempt: ${last.message})` : ''}`, false);
  }

  private async attempt(req: CopyRequest, timeoutMs: number): Promise<Omit<CopyResult, 'attempts'>> {
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    const onCancel = () => abort.abort();
    req.signal?.addEventListener('abort', onCancel, { once: true });
    /** What went wrong on our side of the wire, in the terms the caller acts on. */
    const classify = (err: unknown, during: string, target: URL): Error => {
      if (err instanceof CopyFailure) return err;
      // Our own abort (the activity's cancellation, or this attempt's time budget) fails whatever was under way —
      // the store's write too, which then rejects with a ResultStoreError, possibly before the source notices.
      // That is the cancellation or the timeout, never a failure of the store.
      if (req.signal?.aborted) return req.signal.reason instanceof Error ? req.signal.reason : new Error('cancelled');
      if (timedOut) return new CopyFailure('timeout', `${during} ${redact(target)} took longer than ${timeoutMs} ms`, true);
      if (err instanceof ResultStoreError) return err;
      const code = String((err as { code?: unknown }).code ?? (err as { cause?: { code?: unknown } }).cause?.code ?? '');
      if (code === 'EPRIVATEADDRESS') return new CopyFailure('private_address', `${redact(target)}: ${(err as Error).message}`, false);
      if (/TIMEOUT/.test(code)) return new CopyFailure('timeout', `${during} ${redact(target)}: ${code}`, true);
      return new CopyFailure('network', `${during} ${redact(target)}: ${code || (err as Error).message}`, true);
    };

    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      throw new CopyFailure('bad_url', 'the result URL is not a valid URL', false);
    }
    let res: Dispatcher.ResponseData | undefined;
    try {
      for (let hop = 0; ; hop++) {
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CopyFailure('bad_url', `${url.protocol} URLs are not fetched (only http and https)`, false);
        if (url.username || url.password) throw new CopyFailure('bad_url', 'URLs with credentials are not fetched', false);
        const trusted = this.limits.allowPrivateOrigins.has(url.origin);
        // A literal address is checked here; a name is checked when it resolves (the dispatcher's lookup).
        if (!trusted && isPrivateAddress(url.hostname)) {
          throw new CopyFailure('private_address', `${redact(url)} is a private address${hop > 0 ? ' (reached by a redirect)' : ''}`, false);
        }
        try {
          res = await request(url, {
            method: 'GET',
            headers: { accept: `${req.expected}/*, application/octet-stream;q=0.5` },
            dispatcher: trusted ? this.trusted : this.guarded,
            signal: abort.signal,
          });
        } catch (err) {
          throw classify(err, 'GET', url);
        }
        const location = res.headers.location;
        if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
          discard(res.body);
          res = undefined;
          if (hop >= MAX_REDIRECTS) throw new CopyFailure('too_many_redirects', `more than ${MAX_REDIRECTS} redirects from ${redact(req.url)}`, false);
          url = new URL(location, url);
          continue;
        }
        break;
      }

      if (res.statusCode !== 200) {
        const retryable = res.statusCode === 408 || res.statusCode === 429 || res.statusCode >= 500;
        throw new CopyFailure('upstream_status', `GET ${redact(url)} answered ${res.statusCode}`, retryable);
      }
      const declaredLength = Number(res.headers['content-length']);
      if (Number.isFinite(declaredLength) && declaredLength > this.limits.maxBytes) {
        throw new CopyFailure('too_large', `${redact(url)} is ${declaredLength} bytes, more than RESULTS_MAX_BYTES (${this.limits.maxBytes})`, false);
      }
      const declared = mediaTypeOf(res.headers['content-type'] as string | undefined);
      const byHeader = judgeDeclared(declared, req.expected);
      if (byHeader && !byHeader.ok) throw new CopyFailure('content_type', `${redact(url)}: ${byHeader.reason}`, false);

      // The first bytes, for the generic types that must be sniffed (read before the key is chosen).
      const source = res.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      let head = Buffer.alloc(0);
      let ended = false;
      try {
        while (head.length < SNIFF_BYTES) {
          const next = await source.next();
          if (next.done) {
            ended = true;
            break;
          }
          head = Buffer.concat([head, next.value]);
        }
      } catch (err) {
        throw classify(err, 'reading', url);
      }
      const verdict = byHeader ?? judgeSniffed(head, declared, req.expected);
      if (!verdict.ok) throw new CopyFailure('content_type', `${redact(url)}: ${verdict.reason}`, false);
      if (head.length === 0) throw new CopyFailure('empty', `${redact(url)} returned no bytes`, true);

      const { maxBytes } = this.limits;
      let total = 0;
      let sourceError: Error | undefined;
      const count = (chunk: Buffer) => {
        total += chunk.length;
        if (total > maxBytes) throw new CopyFailure('too_large', `${redact(url)} sent more than RESULTS_MAX_BYTES (${maxBytes}) bytes`, false);
        req.onBytes?.(chunk.length);
      };
      const target = url;
      async function* bytes(): AsyncGenerator<Buffer> {
        try {
          count(head);
          yield head;
          while (!ended) {
            const next = await source.next();
            if (next.done) break;
            count(next.value);
            yield next.value;
          }
          if (Number.isFinite(declaredLength) && total !== declaredLength) {
            throw new CopyFailure('network', `${redact(target)} ended after ${total} of ${declaredLength} bytes`, true);
          }
        } catch (err) {
          sourceError = classify(err, 'reading', target);
          throw sourceError;
        }
      }
      const contentType = verdict.contentType;
      const key = req.keyFor(contentType);
      try {
        const put = await this.store.put(key, Readable.from(bytes(), { objectMode: false }), { contentType, signal: abort.signal });
        return { key, contentType, bytes: put.bytes, sha256: put.sha256 };
      } catch (err) {
        if (sourceError) throw sourceError;
        if (req.signal?.aborted || timedOut) throw classify(err, 'writing', url);
        throw err instanceof ResultStoreError ? err : new ResultStoreError((err as Error).message, { cause: err });
      }
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCancel);
      if (res) discard(res.body);
    }
  }
}
