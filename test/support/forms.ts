/** multipart/form-data bodies as the OpenAI SDKs send POST /v1/videos, built by hand where a test needs odd ones. */
import { request as httpRequest } from 'node:http';

export interface FormFile {
  /** The form field; default `input_reference`. */
  field?: string;
  bytes: Buffer;
  /** The type the client declares (the gateway decides by the bytes). */
  type: string;
  name?: string;
}

export function multipartForm(fields: Record<string, string>, ...files: FormFile[]): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files)
    form.append(f.field ?? 'input_reference', new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name ?? 'upload.png');
  return form;
}

/** A form's bytes written by hand: all its parts (`head`), and its closing boundary (`tail`) apart, to hold back. */
export interface RawForm {
  head: Buffer;
  tail: Buffer;
  contentType: string;
}

export function rawForm(fields: Record<string, string>, file: FormFile, boundary = 'mediagate-test-boundary-0123456789'): RawForm {
  const parts = Object.entries(fields).map(([k, v]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`),
  );
  const fileHead = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'input_reference'}"; filename="${file.name ?? 'upload.png'}"\r\nContent-Type: ${file.type}\r\n\r\n`,
  );
  return {
    head: Buffer.concat([...parts, fileHead, file.bytes, Buffer.from('\r\n')]),
    tail: Buffer.from(`--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/**
 * POST /v1/videos with a hand-written form whose Content-Length is the whole form's, sending `send` of it: nothing
 * (the answer to the headers alone), everything but the closing boundary (an upload that holds its memory), or all.
 * Resolves with the answer whenever it comes; the socket is closed after it.
 */
export function postRawForm(
  baseUrl: string,
  secret: string,
  form: RawForm,
  send: 'nothing' | 'all-but-the-end' | 'all',
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}/v1/videos`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${secret}`,
        'Content-Type': form.contentType,
        'Content-Length': form.head.length + form.tail.length,
      },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        req.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode!, body: JSON.parse(text) });
        } catch {
          resolve({ status: res.statusCode!, body: text });
        }
      });
    });
    // The server may answer and close while the body is still being written: that answer is what counts.
    req.on('error', (err) => (answered ? undefined : reject(err)));
    req.flushHeaders();
    if (send !== 'nothing') req.write(form.head);
    if (send === 'all') req.end(form.tail);
  });
}

/** One part of a form built byte by byte: any bytes as the value, a file when it has a filename. */
export interface RawPart {
  name: string;
  value: Buffer | string;
  filename?: string;
  type?: string;
}

/**
 * A multipart/form-data body exactly as given, byte for byte (FormData re-encodes strings as UTF-8, so it cannot send
 * invalid UTF-8, an encoded surrogate or a raw NUL the way a hostile client can).
 */
export function rawMultipart(parts: RawPart[]): { body: Buffer; contentType: string } {
  const boundary = `----mediagate-test-${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`;
    chunks.push(
      Buffer.from(head, 'latin1'),
      Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value, 'utf8'),
      Buffer.from('\r\n', 'latin1'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
