/**
 * `multipart/form-data` bodies of POST /v1/videos (the OpenAI SDKs always send `videos.create` as a form): its
 * text fields, decoded into the strings a JSON body of the same request would carry, with OpenAI's bracketed names
 * (`input_reference[image_url]`) turned into nested objects, and at most one uploaded file, read into memory within
 * bounds.
 *
 * Every part is read as raw bytes (the parser's `isPartAFile`), and a text field's bytes are decoded here as
 * UTF-8, strictly: bytes that are not UTF-8 (`\xff`, an encoded surrogate) are refused naming the field, never
 * replaced with U+FFFD and forwarded. A part's own `charset` parameter is not honoured: a form's text is UTF-8, as
 * the WHATWG HTML standard's form submission makes it. What the strings may hold (no NUL, no lone surrogate, no
 * `__proto__`…) is checked by the start path like any request's (tasks/validation.ts).
 *
 * Every way such a body can be bad is a 4xx naming what: a file over UPLOAD_MAX_BYTES or a body over its field
 * bounds 413 (at once when its Content-Length says so), a second file 400, a field with no name or a name that is not
 * one of ours 400, a body that does not arrive in time 408, a malformed form 400. What all forms in progress hold is
 * bounded across requests (upload-memory.ts): past it 429 or 503, before the body is read.
 */
import Busboy, { type BusboyFileStream } from '@fastify/busboy';
import { ApiError, invalidRequest } from '../api-error';
import type { AppContext } from '../context';
import { uploadMemory, type UploadReservation } from './upload-memory';

/** Largest uploaded reference image: the platforms take images of up to 10 MB (V and T say so; B less). */
export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
/** Largest text field: a prompt is at most 5,000 characters (platforms/request.ts), i.e. 20 KiB of UTF-8. */
const FIELD_MAX_BYTES = 64 * 1024;
const MAX_FIELDS = 64;
/** The largest form that can be read: the file, every field at its bound, and room for the parts' headers. */
export const MAX_FORM_BYTES = UPLOAD_MAX_BYTES + MAX_FIELDS * FIELD_MAX_BYTES + 64 * 1024;

export interface UploadedFile {
  field: string;
  filename?: string;
  declaredType: string;
  bytes: Buffer;
}

export interface MultipartBody {
  fields: Record<string, unknown>;
  file?: UploadedFile;
}

export const isMultipart = (ctx: AppContext) => ctx.is('multipart/form-data') === 'multipart/form-data';

/** A refused form up to this size is read to its end before the answer's connection is reused (readMultipart). */
const DRAINED_REFUSAL_BYTES = 64 * 1024 * 1024;

const tooLarge = (what: string, param = 'input_reference') =>
  new ApiError(413, 'invalid_request_error', what, { param, code: 'file_too_large' });

/** A name our fields may have: `a`, `a[b]` (nested) or `a[]` (a list). */
const PLAIN = /^([A-Za-z_][A-Za-z0-9_]*)$/;
const NESTED = /^([A-Za-z_][A-Za-z0-9_]*)\[([A-Za-z_][A-Za-z0-9_]*)\]$/;
const LISTED = /^([A-Za-z_][A-Za-z0-9_]*)\[\]$/;

/**
 * `a[b]` → sets fields.a.b; `a[]` (repeated) → appends to the list fields.a, as the `openai` SDK sends an array
 * in a form (e.g. `webhook_events[]`); a plain name sets fields.name. Deeper nesting is not part of the form.
 * `fields` has no prototype, so no name reaches Object.prototype here; the names no request may use are refused by
 * the start path's text check.
 */
function setField(fields: Record<string, unknown>, name: string, value: string): void {
  const list = LISTED.exec(name);
  if (list) {
    const current = fields[list[1]!];
    fields[list[1]!] = Array.isArray(current) ? [...(current as unknown[]), value] : [value];
    return;
  }
  const nested = NESTED.exec(name);
  if (nested) {
    const outer = fields[nested[1]!];
    const inner =
      outer && typeof outer === 'object' && !Array.isArray(outer)
        ? (outer as Record<string, unknown>)
        : (Object.create(null) as Record<string, unknown>);
    inner[nested[2]!] = value;
    fields[nested[1]!] = inner;
    return;
  }
  if (!PLAIN.test(name)) throw invalidRequest(`Form field '${name}' is not a field of this request`, name, 'unknown_parameter');
  fields[name] = value;
}

/** A text field's bytes as UTF-8, or a 400 naming the field. */
function decodeField(name: string, bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalidRequest(`Form field '${name}' is not valid UTF-8`, name, 'invalid_value');
  }
}

/** Plain objects (with a prototype, as JSON.parse makes them) of the fields, so the rest of the API reads them alike. */
function plain(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    Object.defineProperty(out, k, {
      value: v && typeof v === 'object' && !Array.isArray(v) ? plain(v as Record<string, unknown>) : v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * The form's share of the process's upload memory, reserved for what its Content-Length declares before anything
 * is read, and given back when the request ends (answered, refused or abandoned). Throws a 413 for a declared size
 * no form may have, and upload-memory.ts's 429 or 503 past the budget.
 */
function reserveMemory(ctx: AppContext): UploadReservation {
  const declared = Number(ctx.get('Content-Length')) || 0;
  if (declared > MAX_FORM_BYTES)
    throw tooLarge(`The form is larger than ${UPLOAD_MAX_BYTES / (1024 * 1024)} MiB and its fields' bounds allow`);
  const reservation = uploadMemory().reserve(ctx.state.apiKey?.id ?? '', declared);
  ctx.res.once('close', () => reservation.release());
  return reservation;
}

/**
 * A refused form's connection: a body of a declared size a client may well send by mistake (up to
 * DRAINED_REFUSAL_BYTES) is read to its end and discarded, so the client reads the answer rather than a reset while it
 * is still sending (which HTTP clients such as undici report instead of the answer); a larger one, or one of no
 * declared size, is cut off after the answer.
 */
function closeUnlessSmall(ctx: AppContext): void {
  const declared = Number(ctx.get('Content-Length'));
  if (!(declared > 0 && declared <= DRAINED_REFUSAL_BYTES)) ctx.set('Connection', 'close');
}

/** Reads the whole form, bounded in size and time, within the process's upload memory. */
export function readMultipart(ctx: AppContext, timeoutMs: number): Promise<MultipartBody> {
  let reservation: UploadReservation;
  try {
    reservation = reserveMemory(ctx);
  } catch (err) {
    // Refused before reading a byte: the body is not wanted, so it is discarded, as for a form refused part-way.
    closeUnlessSmall(ctx);
    ctx.req.resume();
    return Promise.reject(err as Error);
  }
  return new Promise<MultipartBody>((resolve, reject) => {
    const fields = Object.create(null) as Record<string, unknown>;
    let file: UploadedFile | undefined;
    let fileParts = 0;
    let settled = false;
    let parser: ReturnType<typeof Busboy>;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        // Whatever the client still sends is of no interest: it is discarded (closeUnlessSmall says for how long).
        closeUnlessSmall(ctx);
        ctx.req.unpipe(parser);
        ctx.req.resume();
        reject(err);
      } else {
        resolve({ fields: plain(fields), ...(file ? { file } : {}) });
      }
    };
    const timer = setTimeout(
      () =>
        finish(
          new ApiError(408, 'invalid_request_error', `The request body did not arrive within ${Math.round(timeoutMs / 1000)} s`, {
            code: 'body_timeout',
          }),
        ),
      timeoutMs,
    );
    try {
      parser = Busboy({
        headers: ctx.req.headers as { 'content-type': string },
        // Every part as bytes: text fields are decoded here, strictly (see the file's comment).
        isPartAFile: () => true,
        limits: { fileSize: UPLOAD_MAX_BYTES, files: MAX_FIELDS + 1, fieldSize: FIELD_MAX_BYTES },
      });
    } catch (err) {
      clearTimeout(timer);
      reject(invalidRequest(`The form could not be read: ${(err as Error).message}`, 'body', 'invalid_body'));
      return;
    }
    const onPart = (name: string | undefined, stream: BusboyFileStream, filename: string | undefined, mimeType: string) => {
      if (settled) return void stream.resume();
      if (name === undefined || name === '') return finish(invalidRequest('A form part has no name', 'body', 'invalid_body'));
      const isFile = filename !== undefined;
      if (isFile && ++fileParts > 1)
        return finish(invalidRequest('Only one file may be uploaded (input_reference)', 'input_reference', 'invalid_value'));
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (c: Buffer) => {
        size += c.length;
        if (!isFile && size > FIELD_MAX_BYTES)
          return finish(tooLarge(`Form field '${name}' is larger than ${FIELD_MAX_BYTES / 1024} KiB`, name));
        chunks.push(c);
      });
      stream.on('limit', () => finish(tooLarge(`The uploaded file is larger than ${UPLOAD_MAX_BYTES / (1024 * 1024)} MiB`)));
      stream.on('error', (err: Error) => finish(invalidRequest(`The form could not be read: ${err.message}`, 'body', 'invalid_body')));
      stream.on('end', () => {
        if (settled) return;
        const bytes = Buffer.concat(chunks, size);
        if (isFile) {
          file = { field: name, filename, declaredType: mimeType, bytes };
          return;
        }
        try {
          setField(fields, name, decodeField(name, bytes));
        } catch (err) {
          finish(err as Error);
        }
      });
    };
    parser.on('file', (name, stream, filename, _encoding, mimeType) => onPart(name, stream, filename, mimeType));
    parser.on('filesLimit', () => finish(tooLarge(`The form has more than ${MAX_FIELDS} fields`, 'body')));
    parser.on('error', (err: unknown) =>
      finish(invalidRequest(`The form could not be read: ${(err as Error).message}`, 'body', 'invalid_body')),
    );
    parser.on('finish', () => finish());
    ctx.req.once('aborted', () => finish(invalidRequest('The client aborted the request body', 'body', 'invalid_body')));
    // Bytes past what the Content-Length declared (a chunked body, or one that says less than it sends) take more of
    // the budget as they arrive; past it the form is refused and the rest left unread.
    const count = (chunk: Buffer) => {
      try {
        reservation.grow(chunk.length);
      } catch (err) {
        ctx.req.off('data', count);
        finish(err as Error);
      }
    };
    ctx.req.on('data', count);
    ctx.req.pipe(parser);
  });
}
