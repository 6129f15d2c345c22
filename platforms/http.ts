/**
 * Outbound HTTP for the adapters: connect and response timeouts, pooled connections, a bounded response body,
 * and network failures classified as retryable UpstreamErrors.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { retryable } from './upstream-error';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: unknown;
  text: string;
}

export interface HttpClient {
  send(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    opts?: { headers?: Record<string, string>; body?: string },
  ): Promise<HttpResponse>;
}

export interface HttpOptions {
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  /** Largest response body accepted; a platform reply never needs more. */
  maxResponseBytes?: number;
}

export function createHttpClient(opts: HttpOptions): HttpClient & { close(): Promise<void> } {
  const dispatcher: Dispatcher = new Agent({
    connect: { timeout: opts.connectTimeoutMs },
    headersTimeout: opts.responseTimeoutMs,
    bodyTimeout: opts.responseTimeoutMs,
    maxResponseSize: opts.maxResponseBytes ?? 2 * 1024 * 1024,
    keepAliveTimeout: 10_000,
  });

  return {
    async send(method, url, { headers, body } = {}) {
      let res: Dispatcher.ResponseData;
      let text: string;
      try {
        // One overall bound per call (connect + response), whatever mix of slow connect, headers and body.
        const signal = AbortSignal.timeout(opts.connectTimeoutMs + opts.responseTimeoutMs);
        res = await request(url, { method, headers, body, dispatcher, signal });
        text = await res.body.text();
      } catch (err) {
        const e = err as { code?: string; message?: string };
        throw retryable(
          `${method} ${new URL(url).host} failed: ${e.code ?? ''} ${e.message ?? String(err)}`.trim(),
          e.code ?? 'NETWORK_ERROR',
          { noAnswer: true },
        );
      }
      let parsed: unknown;
      try {
        parsed = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.statusCode, headers: res.headers, body: parsed, text };
    },
    close: () => dispatcher.close(),
  };
}
