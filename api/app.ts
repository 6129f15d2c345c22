/** The Koa application: middleware order is the request's path through the gateway. */
import Router from '@koa/router';
import Koa from 'koa';
import type { AppDeps, AppState, AppContext } from './context';
import { ApiError } from './api-error';
import { streamErrorReporter } from './http/stream-errors';
import { adminAuthenticate } from './middleware/admin-auth';
import { authenticate } from './middleware/authenticate';
import { errorEnvelope } from './middleware/error-envelope';
import { jsonBody } from './middleware/json-body';
import { rateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { routeGuard } from './middleware/route-guard';
import { buildOpenApiDocument } from './openapi';
import { adminKeyRoutes } from './routes/admin-keys';
import { callbackRoutes } from './routes/callbacks';
import { cancelRoutes } from './routes/cancel';
import { contentRoutes } from './routes/content';
import { generationRoutes } from './routes/generations';
import { modelRoutes } from './routes/models';
import { taskRoutes } from './routes/tasks';
import { adminUsageRoutes, usageRoutes } from './routes/usage';
import { askWorkers } from './worker-readiness';
import { readsOwnBody, videoRoutes } from './openai-videos/routes';
import { videoInputRoutes } from './openai-videos/uploads';
import { eventRoutes } from './routes/events';
import { webhookRoutes } from './routes/webhooks';
import { consoleRoutes } from './console';
import { adminOperationRoutes } from './routes/admin-operations';
import { adminReconciliationRoutes } from './routes/admin-reconciliations';
import { sessionRoutes, signInRoutes } from './routes/admin-sessions';
import { adminTaskRoutes } from './routes/admin-tasks';

/** Largest request body (after decompression): a generation request is a few KiB. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** How long a client may take to send its body: a slow body holds a connection and its memory (BODY_TIMEOUT_MS). */
export const BODY_TIMEOUT_MS = 30_000;

/**
 * The API is ready once Temporal answers. What the workers say of the platforms' accounts is reported beside it,
 * still 200 (api/worker-readiness.ts): tasks for a platform without an account wait, they are not refused.
 */
async function readiness(workerReadyUrls: readonly string[]): Promise<Record<string, unknown>> {
  if (workerReadyUrls.length === 0) return { status: 'ready' };
  const { platformsWithoutAccount, unreachable } = await askWorkers(workerReadyUrls);
  const degraded = Object.keys(platformsWithoutAccount).length > 0;
  return {
    status: degraded ? 'degraded' : 'ready',
    ...(degraded ? { platforms_without_account: platformsWithoutAccount } : {}),
    ...(unreachable.length > 0 ? { workers_unreachable: unreachable } : {}),
  };
}

/**
 * The operator's doors: the console's sign-in (its body carries the admin token, so it comes before the admin API's
 * authentication), the admin API (its own secret, ADMIN_TOKEN, or a console session made with it — never an API
 * key, so it sits outside Bearer key auth), and the console's static pages, which reach the gateway only through it.
 */
function operatorRouters(deps: AppDeps) {
  const body = () => jsonBody({ limitBytes: MAX_BODY_BYTES, timeoutMs: deps.bodyTimeoutMs ?? BODY_TIMEOUT_MS });
  const signIn = new Router<AppState>();
  signIn.use(body());
  signInRoutes(signIn, deps);
  const admin = new Router<AppState>();
  admin.use(adminAuthenticate(deps.adminToken, deps.keys, deps.consoleSessions, deps.adminThrottle), body());
  adminKeyRoutes(admin, deps);
  adminUsageRoutes(admin, deps);
  sessionRoutes(admin, deps);
  adminTaskRoutes(admin, deps);
  adminOperationRoutes(admin, deps);
  adminReconciliationRoutes(admin, deps);
  return { signIn, admin, consolePages: consoleRoutes(deps.consoleDir) };
}

/**
 * Liveness, metrics, the OpenAPI document and readiness (Temporal reachable, the workers' accounts): no key needed.
 * The document states the catalogue and routes this app runs with; built on first request, once.
 */
function healthRouter(deps: Pick<AppDeps, 'metrics' | 'catalogue' | 'routes' | 'checkTemporal' | 'workerReadyUrls'>): Router<AppState> {
  const health = new Router<AppState>();
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  health.get('/healthz', (ctx: AppContext) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/metrics', (ctx: AppContext) => deps.metrics.serveMetrics(ctx));
  health.get('/openapi.json', (ctx: AppContext) => {
    document ??= buildOpenApiDocument({ catalogue: deps.catalogue, routes: deps.routes });
    ctx.body = document;
  });
  health.get('/readyz', async (ctx: AppContext) => {
    try {
      await deps.checkTemporal();
    } catch {
      throw new ApiError(503, 'service_unavailable_error', 'Temporal is not reachable', { code: 'not_ready' });
    }
    ctx.body = await readiness(deps.workerReadyUrls ?? []);
  });
  return health;
}

export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = deps.trustProxy;
  app.on('error', streamErrorReporter(deps.logger));

  const health = healthRouter(deps);

  const v1 = new Router<AppState>();
  generationRoutes(v1, deps);
  taskRoutes(v1, deps);
  cancelRoutes(v1, deps);
  modelRoutes(v1, deps);
  usageRoutes(v1, deps);
  videoRoutes(v1, deps);
  webhookRoutes(v1, deps);
  eventRoutes(v1, deps);

  // The order is the request's path: who asks and how it goes (logs, metrics, the error envelope); is the
  // route and method known (404/405, nothing read yet); who is calling (401, 429); only then the body.
  // Stored results' content: its own router, mounted before authentication, since a signed link (?token=) stands
  // in for the Bearer header there (api/routes/content.ts authenticates either way itself).
  const content = contentRoutes(deps);
  // Uploaded reference images, fetched by the platforms with a signed link and no key (api/openai-videos/uploads.ts).
  const videoInputs = videoInputRoutes(deps);
  // The platforms' announcements: outside Bearer auth (a platform has no API key); each is verified by its
  // platform's receiver — a per-task token or the platform's signature — and is only ever a hint to poll.
  const callbacks = new Router<AppState>();
  callbackRoutes(callbacks, deps);
  const { signIn, admin, consolePages } = operatorRouters(deps);

  app.use(requestContext(deps.logger));
  app.use(deps.metrics.httpMetrics());
  app.use(errorEnvelope());
  app.use(routeGuard([health, videoInputs, v1, content, callbacks, signIn, admin, consolePages]));
  app.use(health.routes());
  app.use(consolePages.routes());
  app.use(signIn.routes());
  app.use(content.routes());
  app.use(videoInputs.routes());
  app.use(callbacks.routes());
  app.use(admin.routes());
  app.use(authenticate(deps.keys, deps.managedKeys));
  app.use(rateLimit(deps.limits));
  app.use(jsonBody({ limitBytes: MAX_BODY_BYTES, timeoutMs: deps.bodyTimeoutMs ?? BODY_TIMEOUT_MS, readsOwnBody }));
  app.use(v1.routes());
  return app;
}
