import type { Logger } from '../../core/logger';
import type { AppContext } from '../context';

/** Codes of a response stream cut short because its client went away: a normal end, not a fault. */
const CLIENT_LEFT = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * What Koa reports after the answer has started (a streamed body that failed part-way): by default it prints the
 * stack to stderr. A client leaving an event stream or a download is normal: one debug line per answer, though Koa
 * may report the same departure twice (the socket reset, then the stream's pipe closed early). Anything else is an
 * error line in the log, with the request's id and route.
 */
export function streamErrorReporter(logger: Logger) {
  const leftAlready = new WeakSet<object>();
  return (err: Error & { code?: string }, ctx?: AppContext) => {
    const log = ctx?.state.log ?? logger;
    const where = { route: ctx?.state.route ?? ctx?.path, method: ctx?.method };
    if ((err.code && CLIENT_LEFT.has(err.code)) || ctx?.req.destroyed) {
      if (ctx && leftAlready.has(ctx.req)) return;
      if (ctx) leftAlready.add(ctx.req);
      log.debug({ ...where, code: err.code }, 'The client left before the answer was complete');
      return;
    }
    log.error({ ...where, err }, 'An answer failed after it had started');
  };
}
