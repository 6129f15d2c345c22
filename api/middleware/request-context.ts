/**
 * Request id (accepts a sane `X-Request-Id`, else generates one, and echoes it back), a child logger carrying
 * it, and one access-log line per request. The log line names the route pattern, never the Authorization
 * header or the body.
 */
import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import type { Logger } from '../../core/logger';
import { recordedStatus, type AppContext } from '../context';

const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(logger: Logger) {
  return async (ctx: AppContext, next: Next) => {
    const given = ctx.get('X-Request-Id');
    const requestId = ACCEPTED_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info(
        {
          method: ctx.method,
          route: ctx.state.route ?? ctx.path,
          status: recordedStatus(ctx),
          ms: Math.round(ms * 10) / 10,
          keyId: ctx.state.apiKey?.id,
        },
        'request',
      );
    }
  };
}
