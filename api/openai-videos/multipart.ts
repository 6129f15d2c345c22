/**
 * `multipart/form-data` bodies of POST /v1/videos (the OpenAI SDKs always send `videos.create` as a form): its
 * text fields, with OpenAI's bracketed names (`input_reference[image_url]`) turned into nested objects, and at
 * most one uploaded file, read into memory within bounds. Every way such a body can be bad is a 4xx naming what:
 * a file over UPLOAD_MAX_BYTES or a body over its field bounds 413 (at once when its Content-Length says so), a
 * second file 400, a body that does not arrive in time 408, a malformed form 400. What all forms in progress hold
 * is bounded across requests (upload-memory.ts): past it 429 or 503, before the body is read.
 */
import busboy from 'busboy';
import { ApiError, invalidRequest } from '../api-error';
import type { AppContext } from '../context';
import { uploadMemory, type UploadReservation } from './upload-memory';

/** Largest uploaded reference image: the platforms take images of up to 10 MB (upstreams.md, V and T). */
export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
/** Largest text field: a prompt is at most 5,000 characters (platforms/request.ts), i.e. 20 KiB of UTF-8. */
const FIELD_MAX_BYTES = 64 * 1024;
const MAX_FIELDS = 64;
/** The largest form: its file, its fields at their bounds, and room for the parts' boundaries and headers. */
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

const tooLarge = (what: string) => new ApiError(413, 'invalid_request_error', what, { param: 'input_reference', code: 'file_too_large' });

/**
 * `a[b]` → sets fields.a.b; `a[]` (repeated) → appends to the list fields.a, as the `openai` SDK sends an array
 * in a form (e.g. `webhook_events[]`); a plain name sets fields.name. Deeper nesting is not part of the form.
 */
function setField(fields: Record<string, unknown>, name: string, value: string): void {
  const list = /^([A-Za-z_][A-Za-z0-9_]*)\[\]$/.exec(name);
  if (list) {
    const current = fields[list[1]!];
    fields[list[1]!] = Array.isArray(current) ? [...(current as unknown[]), value] : [value];
    return;
  }
  const m = /^([A-Za-z_][A-Za-z0-9_]*)\[([A-Za-z_][A-Za-z0-9_]*)\]$/.exec(name);
  if (!m) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw invalidRequest(`Form field '${name}' is not a field of this request`, name, 'unknown_parameter');
    fields[name] = value;
    return;
  }
  const outer = fields[m[1]!];
  const nested = outer && typeof outer === 'object' ? (outer as Record<string, unknown>) : {};
  nested[m[2]!] = value;
  fields[m[1]!] = nested;
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

/** Reads the whole form, bounded in size and time, within the process's upload memory. */
export function readMultipart(ctx: AppContext, timeoutMs: number): Promise<MultipartBody> {
  let reservation: UploadReservation;
  try {
    reservation = reserveMemory(ctx);
  } catch (err) {
    // Refused before reading a byte: the body is not wanted, so it is discarded and the connection closes after the
    // answer, as for a form refused part-way.
    ctx.set('Connection', 'close');
    ctx.req.resume();
    return Promise.reject(err as Error);
  }
  return new Promise<MultipartBody>((resolve, reject) => {
    const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    let file: UploadedFile | undefined;
    let settled = false;
    let parser: busboy.Busboy;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        // Whatever the client still sends is of no interest: answer, then close the connection.
        ctx.set('Connection', 'close');
        ctx.req.unpipe(parser);
        ctx.req.resume();
        reject(err);
      } else {
        resolve({ fields: { ...fields }, ...(file ? { file } : {}) });
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
      parser = busboy({
        headers: ctx.req.headers,
        limits: { fileSize: UPLOAD_MAX_BYTES, files: 1, fields: MAX_FIELDS, fieldSize: FIELD_MAX_BYTES },
      });
    } catch (err) {
      clearTimeout(timer);
      reject(invalidRequest(`The form could not be read: ${(err as Error).message}`, 'body', 'invalid_body'));
      return;
    }
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return finish(tooLarge(`Form field '${name}' is larger than ${FIELD_MAX_BYTES / 1024} KiB`));
      try {
        setField(fields, name, value);
      } catch (err) {
        finish(err as Error);
      }
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => finish(tooLarge(`The uploaded file is larger than ${UPLOAD_MAX_BYTES / (1024 * 1024)} MiB`)));
      stream.on('end', () => {
        if (settled) return;
        file = { field: name, filename: info.filename, declaredType: info.mimeType, bytes: Buffer.concat(chunks) };
      });
    });
    parser.on('filesLimit', () =>
      finish(invalidRequest('Only one file may be uploaded (input_reference)', 'input_reference', 'invalid_value')),
    );
    parser.on('fieldsLimit', () => finish(tooLarge(`The form has more than ${MAX_FIELDS} fields`)));
    parser.on('error', (err: Error) => finish(invalidRequest(`The form could not be read: ${err.message}`, 'body', 'invalid_body')));
    parser.on('close', () => finish());
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
