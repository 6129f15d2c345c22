/** The Koa application: middleware order is the request's path through the gateway. */
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import type { AppDeps, AppState, AppContext } from './context';
import { ApiError } from './api-error';
import { httpMetrics, serveMetrics } from './api-metrics';
import { authenticate } from './middleware/authenticate';
import { errorEnvelope } from './middleware/error-envelope';
import { rateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { openApiDocument } from './openapi';
import { cancelRoutes } from './routes/cancel';
import { generationRoutes } from './routes/generations';
import { modelRoutes } from './routes/models';
import { taskRoutes } from './routes/tasks';

export const MAX_BODY = '1mb';

export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = deps.trustProxy;

  const health = new Router<AppState>();
  health.get('/healthz', (ctx: AppContext) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/metrics', serveMetrics);
  health.get('/openapi.json', (ctx: AppContext) => {
    ctx.body = openApiDocument();
  });
  health.get('/readyz', async (ctx: AppContext) => {
    try {
      await deps.checkTemporal();
      ctx.body = { status: 'ready' };
    } catch {
      throw new ApiError(503, 'service_unavailable_error', 'Temporal is not reachable', { code: 'not_ready' });
    }
  });

  const v1 = new Router<AppState>();
  v1.use(authenticate(deps.keys));
  v1.use(rateLimit(deps.limits));
  generationRoutes(v1, deps);
  taskRoutes(v1, deps);
  cancelRoutes(v1, deps);
  modelRoutes(v1, deps);

  app.use(requestContext(deps.logger));
  app.use(httpMetrics([health]));
  app.use(errorEnvelope());
  app.use(health.routes());
  app.use(requireJson);
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: MAX_BODY, encoding: 'utf-8' }));
  app.use(recordRoute(v1));
  app.use(v1.routes());
  app.use(v1.allowedMethods({ throw: true }));
  return app;
}

/** POST bodies must be JSON: anything else is 415 before a byte is parsed. */
async function requireJson(ctx: AppContext, next: Koa.Next) {
  // ctx.is() is null when there is no body at all: that is left to validation ("model is required").
  if (ctx.method === 'POST' && ctx.is('application/json') === false) {
    throw new ApiError(415, 'invalid_request_error', 'Content-Type must be application/json', { code: 'unsupported_media_type' });
  }
  await next();
}

/** Puts the matched route pattern into ctx.state.route for logs and metrics. */
function recordRoute(router: Router<AppState>) {
  return async (ctx: AppContext, next: Koa.Next) => {
    const matched = router.match(ctx.path, ctx.method);
    // Only route layers (with methods) name a pattern; `use` layers match every path.
    const layer = matched.route ? matched.pathAndMethod.filter((l) => l.methods.length > 0).at(-1) : undefined;
    if (layer) ctx.state.route = layer.path as string;
    await next();
  };
}
