/**
 * The API's HTTP server: Node's, with the timeouts the gateway needs and the error envelope on the answers
 * Node's own parser gives before any request reaches Koa (api/main.ts starts it; tests start the same one).
 */
import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './api-error';

/** How long a client may take to send its request line and headers, from its first byte. */
export const HEADERS_TIMEOUT_MS = 15_000;
/**
 * How often Node checks the headers (and request) timeouts: it only looks every this often, so a client
 * trickling a header byte at a time is cut off within HEADERS_TIMEOUT_MS plus this (Node's default is 30 s).
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

export interface ApiServerOptions {
  syncTimeoutMs: number;
  /** Default HEADERS_TIMEOUT_MS; tests shorten it. */
  headersTimeoutMs?: number;
  /** Default TIMEOUT_CHECK_INTERVAL_MS; tests shorten it. */
  timeoutCheckIntervalMs?: number;
}

/** The status and envelope for a request Node's parser refused, by its error code. */
function parserRefusal(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(431, 'invalid_request_error', 'The request headers are too large', { code: 'headers_too_large' });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, 'invalid_request_error', 'The request headers did not arrive in time', { code: 'headers_timeout' });
    default:
      // Malformed request line or headers, conflicting Content-Length and Transfer-Encoding (request smuggling).
      return new ApiError(400, 'invalid_request_error', 'The request is not valid HTTP/1.1', { code: 'malformed_request' });
  }
}

/**
 * Node answers a request its parser refuses (431 for oversized headers, 400 for a malformed or ambiguous one, 408
 * for headers that never finish) with an empty body; the API promises its envelope on every non-2xx answer.
 * Such a request never reaches Koa, so the answer is written on the socket here, and the connection closed: the
 * parser's state is unknown after an error, so nothing more can be read from it safely.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // Nothing to answer (the client reset the connection), the socket is not writable any more, or an answer to an
  // earlier request on it is already under way (a pipelined request failed): bytes written now would be spliced
  // into that answer. Node's own handler makes the same checks (lib/_http_server.js, socketOnError).
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  const refusal = parserRefusal(err.code);
  const body = JSON.stringify(refusal.toBody());
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n' +
      '\r\n' +
      body,
  );
}

export function createApiServer(handler: RequestListener, opts: ApiServerOptions): Server {
  const server = createServer({ connectionsCheckingInterval: opts.timeoutCheckIntervalMs ?? TIMEOUT_CHECK_INTERVAL_MS }, handler);
  // Nothing in the HTTP stack may cut a sync wait short: the socket has no idle timeout, and the whole
  // request may take the sync wait plus a minute to upload and answer.
  server.requestTimeout = opts.syncTimeoutMs + 60_000;
  // A client gets a bounded time for its headers, however slowly it trickles them (a connection held open that
  // way costs a socket and its buffers; Slowloris). The body has its own bound (api/middleware/json-body.ts).
  server.headersTimeout = opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  server.timeout = 0;
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  return server;
}
