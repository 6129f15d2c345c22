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
import { judgeDeclared, judgeSniffed, mediaTypeOf, SNIFF_BYTES, type Expected, type Verdict } from './media-type';
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

/**
 * One attempt's end, whichever comes first: the caller's cancellation (the activity's signal) or the attempt's own
 * time budget. Its signal aborts whatever the attempt has under way; `classify` says what an error then means.
 */
class AttemptBudget {
  private readonly controller = new AbortController();
  private timedOut = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onCancel = () => this.controller.abort();

  constructor(
    private readonly cancel: AbortSignal | undefined,
    readonly timeoutMs: number,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, timeoutMs);
    cancel?.addEventListener('abort', this.onCancel, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The attempt was ended on our side: cancelled, or out of time. */
  get endedByUs(): boolean {
    return Boolean(this.cancel?.aborted) || this.timedOut;
  }

  /** What went wrong on our side of the wire, in the terms the caller acts on. */
  classify(err: unknown, during: string, target: URL): Error {
    if (err instanceof CopyFailure) return err;
    // Our own abort (the activity's cancellation, or this attempt's time budget) fails whatever was under way —
    // the store's write too, which then rejects with a ResultStoreError, possibly before the source notices.
    // That is the cancellation or the timeout, never a failure of the store.
    if (this.cancel?.aborted) return this.cancel.reason instanceof Error ? this.cancel.reason : new Error('cancelled');
    if (this.timedOut) return new CopyFailure('timeout', `${during} ${redact(target)} took longer than ${this.timeoutMs} ms`, true);
    if (err instanceof ResultStoreError) return err;
    const code = String((err as { code?: unknown }).code ?? (err as { cause?: { code?: unknown } }).cause?.code ?? '');
    if (code === 'EPRIVATEADDRESS') return new CopyFailure('private_address', `${redact(target)}: ${(err as Error).message}`, false);
    if (/TIMEOUT/.test(code)) return new CopyFailure('timeout', `${during} ${redact(target)}: ${code}`, true);
    return new CopyFailure('network', `${during} ${redact(target)}: ${code || (err as Error).message}`, true);
  }

  end(): void {
    clearTimeout(this.timer);
    this.cancel?.removeEventListener('abort', this.onCancel);
  }
}

/** The result URL as given by the platform; not a URL at all is refused. */
export function parseResultUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new CopyFailure('bad_url', 'the result URL is not a valid URL', false);
  }
}

/**
 * Refuses a URL before anything is sent to it (first or reached by a redirect): only http(s), no credentials, and
 * no literal private address unless its origin is trusted. A name is checked when it resolves (the guarded
 * dispatcher's lookup, results/address-guard.ts).
 */
export function refuseUnfetchable(url: URL, trusted: boolean, hop: number): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CopyFailure('bad_url', `${url.protocol} URLs are not fetched (only http and https)`, false);
  if (url.username || url.password) throw new CopyFailure('bad_url', 'URLs with credentials are not fetched', false);
  if (!trusted && isPrivateAddress(url.hostname)) {
    throw new CopyFailure('private_address', `${redact(url)} is a private address${hop > 0 ? ' (reached by a redirect)' : ''}`, false);
  }
}

/** What a response's status and headers say before its body is read. */
export interface HeaderVerdict {
  /** Content-Length, NaN when absent (the body is then counted). */
  declaredLength: number;
  /** The declared media type, lower case, without parameters. */
  declared: string;
  /** The verdict on the declared type; undefined when it is generic and the first bytes must be sniffed. */
  byHeader: Verdict | undefined;
}

/**
 * Judges a response by its status and headers: anything but 200 fails (408, 429 and 5xx retryably), a declared
 * length over `maxBytes` and a declared type that is not the expected kind are refused.
 */
export function judgeResponseHeaders(
  res: { statusCode: number; headers: Record<string, string | string[] | undefined> },
  url: URL,
  expected: Expected,
  maxBytes: number,
): HeaderVerdict {
  if (res.statusCode !== 200) {
    const retryable = res.statusCode === 408 || res.statusCode === 429 || res.statusCode >= 500;
    throw new CopyFailure('upstream_status', `GET ${redact(url)} answered ${res.statusCode}`, retryable);
  }
  const declaredLength = Number(res.headers['content-length']);
  if (Number.isFinite(declaredLength) && declaredLength > maxBytes) {
    throw new CopyFailure('too_large', `${redact(url)} is ${declaredLength} bytes, more than RESULTS_MAX_BYTES (${maxBytes})`, false);
  }
  const declared = mediaTypeOf(res.headers['content-type'] as string | undefined);
  const byHeader = judgeDeclared(declared, expected);
  if (byHeader && !byHeader.ok) throw new CopyFailure('content_type', `${redact(url)}: ${byHeader.reason}`, false);
  return { declaredLength, declared, byHeader };
}

/** The body's first bytes (at least SNIFF_BYTES unless it ends sooner), for the generic types that must be sniffed. */
async function readHead(source: AsyncIterator<Buffer>, budget: AttemptBudget, url: URL): Promise<{ head: Buffer; ended: boolean }> {
  let head = Buffer.alloc(0);
  try {
    while (head.length < SNIFF_BYTES) {
      const next = await source.next();
      if (next.done) return { head, ended: true };
      head = Buffer.concat([head, next.value]);
    }
  } catch (err) {
    throw budget.classify(err, 'reading', url);
  }
  return { head, ended: false };
}

/**
 * The body as the store receives it: the head already read, then the rest, counted against `maxBytes` and the
 * declared length on the way (an overrun or a short body fails the write). `failure()` is the source's own error,
 * if it was the source that failed: the store's write then fails too, and the source is the one to blame.
 */
function countedBody(
  source: AsyncIterator<Buffer>,
  start: { head: Buffer; ended: boolean },
  limits: { maxBytes: number; declaredLength: number },
  budget: AttemptBudget,
  url: URL,
  onBytes: ((delta: number) => void) | undefined,
): { body: Readable; failure: () => Error | undefined } {
  let total = 0;
  let sourceError: Error | undefined;
  const count = (chunk: Buffer) => {
    total += chunk.length;
    if (total > limits.maxBytes)
      throw new CopyFailure('too_large', `${redact(url)} sent more than RESULTS_MAX_BYTES (${limits.maxBytes}) bytes`, false);
    onBytes?.(chunk.length);
  };
  async function* bytes(): AsyncGenerator<Buffer> {
    try {
      count(start.head);
      yield start.head;
      while (!start.ended) {
        const next = await source.next();
        if (next.done) break;
        count(next.value);
        yield next.value;
      }
      if (Number.isFinite(limits.declaredLength) && total !== limits.declaredLength) {
        throw new CopyFailure('network', `${redact(url)} ended after ${total} of ${limits.declaredLength} bytes`, true);
      }
    } catch (err) {
      sourceError = budget.classify(err, 'reading', url);
      throw sourceError;
    }
  }
  return { body: Readable.from(bytes(), { objectMode: false }), failure: () => sourceError };
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

  /** One attempt: fetch (following redirects), judge the headers, sniff the head, stream the rest into the store. */
  private async attempt(req: CopyRequest, timeoutMs: number): Promise<Omit<CopyResult, 'attempts'>> {
    const url = parseResultUrl(req.url);
    const budget = new AttemptBudget(req.signal, timeoutMs);
    let res: Dispatcher.ResponseData | undefined;
    try {
      const fetched = await this.fetchFollowingRedirects(url, req.expected, budget);
      res = fetched.res;
      const headers = judgeResponseHeaders(res, fetched.url, req.expected, this.limits.maxBytes);
      const source = res.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      const start = await readHead(source, budget, fetched.url);
      const verdict = headers.byHeader ?? judgeSniffed(start.head, headers.declared, req.expected);
      if (!verdict.ok) throw new CopyFailure('content_type', `${redact(fetched.url)}: ${verdict.reason}`, false);
      if (start.head.length === 0) throw new CopyFailure('empty', `${redact(fetched.url)} returned no bytes`, true);
      const body = countedBody(
        source,
        start,
        { maxBytes: this.limits.maxBytes, declaredLength: headers.declaredLength },
        budget,
        fetched.url,
        req.onBytes,
      );
      return await this.storeBody(req.keyFor(verdict.contentType), verdict.contentType, body, budget, fetched.url);
    } finally {
      budget.end();
      if (res) discard(res.body);
    }
  }

  /**
   * GETs `url`, following at most MAX_REDIRECTS redirects, each target refused before it is fetched if it must not
   * be (refuseUnfetchable); a trusted (allow-listed private) origin goes through the unguarded dispatcher.
   */
  private async fetchFollowingRedirects(
    first: URL,
    expected: Expected,
    budget: AttemptBudget,
  ): Promise<{ res: Dispatcher.ResponseData; url: URL }> {
    let url = first;
    for (let hop = 0; ; hop++) {
      const trusted = this.limits.allowPrivateOrigins.has(url.origin);
      refuseUnfetchable(url, trusted, hop);
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, {
          method: 'GET',
          headers: { accept: `${expected}/*, application/octet-stream;q=0.5` },
          dispatcher: trusted ? this.trusted : this.guarded,
          signal: budget.signal,
        });
      } catch (err) {
        throw budget.classify(err, 'GET', url);
      }
      const location = res.headers.location;
      if (!(res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string')) return { res, url };
      discard(res.body);
      if (hop >= MAX_REDIRECTS)
        throw new CopyFailure('too_many_redirects', `more than ${MAX_REDIRECTS} redirects from ${redact(first)}`, false);
      url = new URL(location, url);
    }
  }

  /**
   * Writes the counted body under `key`. A failed write is the source's failure when the source failed first, our
   * cancellation or timeout when we ended the attempt, and otherwise the store's own (ResultStoreError).
   */
  private async storeBody(
    key: string,
    contentType: string,
    body: ReturnType<typeof countedBody>,
    budget: AttemptBudget,
    url: URL,
  ): Promise<Omit<CopyResult, 'attempts'>> {
    try {
      const put = await this.store.put(key, body.body, { contentType, signal: budget.signal });
      return { key, contentType, bytes: put.bytes, sha256: put.sha256 };
    } catch (err) {
      const sourceError = body.failure();
      if (sourceError) throw sourceError;
      if (budget.endedByUs) throw budget.classify(err, 'writing', url);
      throw err instanceof ResultStoreError ? err : new ResultStoreError((err as Error).message, { cause: err });
    }
  }
}
