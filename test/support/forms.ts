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
  for (const f of files) form.append(f.field ?? 'input_reference', new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name ?? 'upload.png');
  return form;
}
