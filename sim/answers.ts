/**
 * The simulator's outermost middleware: what happens to an answer after the platform's handler made it. Errors
 * become an answer (a body the parser refused keeps its 4xx, in the platform's shape where it has one), a `slow`
 * fault holds it back, a `drop` fault loses it after the work was done, and the request's record gets the answer.
 */
import type { Middleware } from 'koa';
import type { RecordedRequest, SimHost, SimPlatformModule } from './host';
import type { SimulatorState } from './state';
import type { SimPlatform } from './vocabulary';

export function answerMiddleware(state: SimulatorState, host: SimHost, modules: readonly SimPlatformModule[]): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      // Body-parser errors (malformed JSON, too large) keep their 4xx status, as on the real platforms; a platform
      // may answer them in its own error shape.
      const status = (err as { status?: number }).status;
      if (!(status && status >= 400 && status < 500 && modules.some((m) => m.renderBodyError?.(ctx, err, host)))) {
        ctx.status = status && status >= 400 && status < 500 ? status : 500;
        ctx.body = { error: { code: ctx.status === 500 ? 'SimulatorError' : 'InvalidRequestBody', message: (err as Error).message } };
      }
    }
    if (ctx.state.simSlowAnswer) await new Promise((r) => setTimeout(r, state.slowAnswerMs));
    const record = ctx.state.simRecord as RecordedRequest | undefined;
    const dropFor = ctx.state.simDropAnswer as SimPlatform | undefined;
    if (dropFor) {
      state.stats[dropFor].answersDropped++;
      ctx.respond = false;
      ctx.req.socket.destroy();
    }
    if (record) {
      record.status = ctx.respond === false ? 0 : ctx.status;
      if (ctx.respond !== false && ctx.body !== undefined && !Buffer.isBuffer(ctx.body)) record.response = ctx.body;
    }
  };
}
