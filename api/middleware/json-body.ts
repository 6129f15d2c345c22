/**
 * Reads and parses a request's JSON body, after authentication (api/app.ts orders it so): an anonymous client
 * can make the API read nothing. Every way a body can be bad is a clean 4xx saying what failed:
 *
 * - a declared Content-Length over the limit: 413 at once, before a byte is read; a body that grows past it
 *   (chunked, or after decompression): 413 as soon as it does;
 * - a body that takes longer than `timeoutMs` to arrive: 408, and the connection is closed;
 * - Content-Encoding: `gzip`, `deflate` and `br` are decompressed; any other is 415 naming it; a corrupt
 *   compressed body is 400;
 * - a non-empty body that is not `application/json`: 415. An empty body (POST …/cancel from `fetch(url,
 *   {method: 'POST'})` sends `Content-Length: 0` and no type) needs no content type;
 * - bytes that are not UTF-8: 400 (never silently replaced with U+FFFD and forwarded);
 * - malformed JSON: 400 with the parser's reason; `__proto__`, `constructor` or `prototype` keys: 400 naming
 *   the key (they have no meaning in any request and are the prototype-pollution vector);
 * - nesting deeper than MAX_JSON_DEPTH: 400, found by a scan of the text before parsing (never a stack overflow);
 * - NUL or a lone surrogate in any string (or key): 400 naming the field.
 */
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Next } from 'koa';
import { ApiError, invalidRequest } from '../api-error';
import type { AppContext } from '../context';
import { firstTextFault } from '../../core/request-text';

export interface JsonBodyOptions {
  /** Largest body accepted, in bytes (after decompression). */
  limitBytes: number;
  /** How long a client may take to send its body. */
  timeoutMs: number;
  /** Requests whose route reads its own body (POST /v1/videos' forms: api/openai-videos/): left unread here. */
  readsOwnBody?: (ctx: AppContext) => boolean;
}

const tooLarge = (limit: number) =>
  new ApiError(413, 'invalid_request_error', `The request body is larger than ${Math.round(limit / 1024)} KiB`, { code: 'body_too_large' });

function decoder(encoding: string): Transform | undefined {
  switch (encoding) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new ApiError(
        415,
        'invalid_request_error',
        `Content-Encoding '${encoding}' is not supported; send the body uncompressed or as gzip, deflate or br`,
        {
          param: 'Content-Encoding',
          code: 'unsupported_content_encoding',
        },
      );
  }
}

/** Reads the whole (decompressed) body, bounded in size and time. */
function readBody(ctx: AppContext, opts: JsonBodyOptions, encoding: string): Promise<Buffer> {
  const req = ctx.req;
  const unzip = decoder(encoding);
  const source: Readable = unzip ? req.pipe(unzip) : req;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err?: Error, body?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      source.off('data', onData);
      if (err) {
        // Whatever the client still sends is of no interest: answer, then close the connection.
        ctx.set('Connection', 'close');
        req.unpipe();
        req.resume();
        reject(err);
      } else {
        resolve(body!);
      }
    };
    const timer = setTimeout(
      () =>
        finish(
          new ApiError(408, 'invalid_request_error', `The request body did not arrive within ${Math.round(opts.timeoutMs / 1000)} s`, {
            code: 'body_timeout',
          }),
        ),
      opts.timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > opts.limitBytes) return finish(tooLarge(opts.limitBytes));
      chunks.push(chunk);
    };
    source.on('data', onData);
    source.once('end', () => finish(undefined, Buffer.concat(chunks, size)));
    source.once('error', (err: Error) =>
      finish(
        unzip && !(err instanceof ApiError)
          ? invalidRequest(`The request body could not be decompressed (${encoding}): ${err.message}`, 'body', 'invalid_encoding')
          : err instanceof ApiError
            ? err
            : invalidRequest('The request body could not be read', 'body', 'invalid_body'),
      ),
    );
    req.once('aborted', () => finish(invalidRequest('The client aborted the request body', 'body', 'invalid_body')));
  });
}

/**
 * A body as raw bytes, with the same bounds (declared and actual size, time, encodings): for the platforms'
 * callbacks, whose signatures cover the exact bytes (api/routes/callbacks.ts).
 */
export async function readRawBody(ctx: AppContext, opts: JsonBodyOptions): Promise<Buffer> {
  if (!bodyFollows(ctx, opts)) return Buffer.alloc(0);
  return readBody(ctx, opts, ctx.get('Content-Encoding').trim().toLowerCase());
}

/**
 * Whether the request has a body to read, from its headers alone: a declared Content-Length must be a number
 * (400) within the limit (413, before a byte is read); no length and no chunking, or a length of 0, is no body.
 */
function bodyFollows(ctx: AppContext, opts: JsonBodyOptions): boolean {
  const declared = ctx.get('Content-Length');
  if (declared !== '' && !/^\d+$/.test(declared))
    throw invalidRequest('Content-Length must be a number of bytes', 'Content-Length', 'invalid_header');
  if (declared !== '' && Number(declared) > opts.limitBytes) throw tooLarge(opts.limitBytes);
  return ctx.get('Transfer-Encoding') !== '' || (declared !== '' && Number(declared) > 0);
}

/**
 * How deeply a request body may nest objects and arrays. A generation request nests three levels at most (the
 * body, a list of references, each reference); JSON.parse and any walk over the value recurse once per level, so a
 * body nested thousands deep would exhaust the stack (a 500) after burning CPU on it.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether the JSON text opens more than `max` nested objects or arrays, by one pass over the characters (no
 * recursion, time linear in the body): brackets inside strings do not count. Run before JSON.parse, so the
 * parser never sees a deep body. Malformed text is left for the parser to describe.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** A body's first forbidden key, or string or key with NUL or a lone surrogate (core/request-text.ts): 400 naming it. */
function checkParsedBody(root: unknown): void {
  const fault = firstTextFault(root);
  if (fault) throw invalidRequest(fault.message, fault.path, fault.kind === 'forbidden_key' ? 'invalid_json' : 'invalid_value');
}

export function parseJsonBody(bytes: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidRequest('The request body is not valid UTF-8', 'body', 'invalid_json');
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw invalidRequest(`The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`, 'body', 'invalid_json');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidRequest(`The request body is not valid JSON: ${(err as Error).message}`, 'body', 'invalid_json');
  }
  checkParsedBody(value);
  return value;
}

export function jsonBody(opts: JsonBodyOptions) {
  return async (ctx: AppContext, next: Next) => {
    if (ctx.method !== 'POST' && ctx.method !== 'PUT' && ctx.method !== 'PATCH') return next();
    if (opts.readsOwnBody?.(ctx)) return next();
    if (!bodyFollows(ctx, opts)) {
      // No body at all: nothing to parse, no content type needed.
      ctx.request.body = undefined;
      return next();
    }
    if (ctx.is('application/json') !== 'application/json') {
      throw new ApiError(415, 'invalid_request_error', 'Content-Type must be application/json', {
        param: 'Content-Type',
        code: 'unsupported_media_type',
      });
    }
    const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
    const bytes = await readBody(ctx, opts, encoding);
    ctx.request.body = bytes.length === 0 ? undefined : parseJsonBody(bytes);
    await next();
  };
}
