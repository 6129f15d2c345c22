/**
 * The gateway's HTTP API as the provider uses it: one JSON request with the key, its refusals as the AI SDK's
 * `APICallError` carrying the gateway's field name (`param`), code and message.
 */
import { APICallError } from '@ai-sdk/provider';

export interface GatewaySettings {
  /** The API's base, e.g. `https://gateway.example.com/v1`. */
  readonly baseURL: string;
  readonly apiKey: string;
  readonly headers: Record<string, string>;
  readonly fetch: typeof globalThis.fetch;
}

/** The gateway's error envelope (docs/api.md, "Errors"). */
export interface GatewayErrorBody {
  error: { message: string; type?: string; param?: string | null; code?: string | null; task_id?: string };
}

/** What a refusal carries in `APICallError.data`: the gateway's own words, unchanged. */
export interface MediagateRefusal {
  /** The field the gateway named (`duration`, `prompt`, `Idempotency-Key`…), or null when it named none. */
  param: string | null;
  code: string | null;
  message: string;
  status: number;
}

/** The gateway's refusal carried by an error the provider threw, or undefined for any other error. */
export function mediagateRefusal(error: unknown): MediagateRefusal | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  const data = error.data as Partial<MediagateRefusal> | undefined;
  return data && typeof data.message === 'string' && typeof data.status === 'number' ? (data as MediagateRefusal) : undefined;
}

/**
 * Statuses worth the same request again (with the same Idempotency-Key, so never a second task): the gateway was
 * busy (`429`, `503`), a first request under the key was still starting (`409 idempotency_key_in_use`), or it
 * failed before starting anything (`5xx`). Every other 4xx is a refusal: sent again it is refused again.
 */
function retryable(status: number, code: string | null): boolean {
  if (status === 409) return code === 'idempotency_key_in_use';
  return status === 408 || status === 429 || status >= 500;
}

export interface JsonAnswer<T> {
  body: T;
  headers: Record<string, string>;
}

/**
 * Sends one request to the gateway and returns its JSON answer; a non-2xx answer throws `APICallError` (with
 * `data`: a `MediagateRefusal`). `canRetry` says whether the SDK may send the same request again: only when it
 * carries an Idempotency-Key that the retry reuses (or it creates nothing).
 */
export async function gatewayJson<T>(
  settings: GatewaySettings,
  method: 'GET' | 'POST',
  path: string,
  opts: { body?: unknown; headers?: Record<string, string | undefined>; abortSignal?: AbortSignal; canRetry: boolean },
): Promise<JsonAnswer<T>> {
  const url = `${settings.baseURL}${path}`;
  const headers: Record<string, string> = { ...settings.headers, Authorization: `Bearer ${settings.apiKey}` };
  for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = v;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await settings.fetch(url, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.abortSignal,
    });
  } catch (cause) {
    if (opts.abortSignal?.aborted) throw cause;
    throw new APICallError({
      message: `mediagate: ${method} ${path} got no answer: ${(cause as Error).message}`,
      url,
      requestBodyValues: opts.body,
      cause,
      isRetryable: opts.canRetry,
    });
  }
  const text = await res.text();
  const responseHeaders = Object.fromEntries(res.headers.entries());
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (res.ok) return { body: parsed as T, headers: responseHeaders };
  const error = (parsed as GatewayErrorBody | undefined)?.error;
  const refusal: MediagateRefusal = {
    param: error?.param ?? null,
    code: error?.code ?? null,
    message: error?.message ?? (text.slice(0, 200) || res.statusText),
    status: res.status,
  };
  throw new APICallError({
    message: `mediagate refused the request (${res.status}${refusal.code ? ` ${refusal.code}` : ''}${refusal.param ? `, field ${refusal.param}` : ''}): ${refusal.message}`,
    url,
    requestBodyValues: opts.body,
    statusCode: res.status,
    responseHeaders,
    responseBody: text,
    isRetryable: opts.canRetry && retryable(res.status, refusal.code),
    data: refusal,
  });
}

/** Waits `ms`, or rejects as soon as the signal aborts. */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The bytes of a stored result: the link is signed (no key sent), and may live on another origin (a bucket). */
export async function download(
  settings: GatewaySettings,
  url: string,
  abortSignal: AbortSignal | undefined,
): Promise<{ data: Uint8Array; mediaType: string | undefined }> {
  const res = await settings.fetch(url, { signal: abortSignal });
  if (!res.ok) {
    const text = await res.text();
    throw new APICallError({
      message: `mediagate: the result at ${url.split('?')[0]} could not be read (${res.status}): ${text.slice(0, 200)}`,
      url: url.split('?')[0]!,
      requestBodyValues: undefined,
      statusCode: res.status,
      responseBody: text,
      isRetryable: res.status >= 500,
    });
  }
  return { data: new Uint8Array(await res.arrayBuffer()), mediaType: res.headers.get('content-type') ?? undefined };
}
