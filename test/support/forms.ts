/** multipart/form-data bodies as the OpenAI SDKs send POST /v1/videos, built by hand where a test needs odd ones. */

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
