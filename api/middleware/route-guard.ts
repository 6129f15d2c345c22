/**
 * Decides 404 and 405 before anything else is done for a request (no authentication, no body read): a path no
 * route knows is 404 `route_not_found`; a known path with a method it does not take — including methods the
 * router has never heard of (TRACE, PROPFIND, PURGE, QUERY…) — is 405 `method_not_allowed` with `Allow`;
 * OPTIONS answers 204 with `Allow`.
 *
 * It is the one place a request is matched against the routers: the pattern of the route that will serve it
 * (e.g. `/v1/generations/:task_id`) is recorded in ctx.state.route for the access log and the metrics' label.
 */
import type Router from '@koa/router';
import type { Next } from 'koa';
import { ApiError } from '../api-error';
import type { AppContext, AppState } from '../context';

export function routeGuard(routers: readonly Router<AppState>[]) {
  return async (ctx: AppContext, next: Next) => {
    const allowed = new Set<string>();
    for (const router of routers) {
      const matched = router.match(ctx.path, ctx.method);
      for (const layer of matched.path) for (const m of layer.methods) allowed.add(m);
      // Only route layers (with methods) name a pattern; `use` layers match every path. The first router that
      // routes the request is the one whose handler runs (they are mounted in this order).
      if (matched.route && ctx.state.route === undefined) {
        const layer = matched.pathAndMethod.filter((l) => l.methods.length > 0).at(-1);
        if (layer) ctx.state.route = String(layer.path);
      }
    }
    if (allowed.size === 0)
      throw new ApiError(404, 'not_found_error', `No route for ${ctx.method} ${ctx.path}`, { code: 'route_not_found' });
    const allow = [...allowed].join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow);
      return;
    }
    if (!allowed.has(ctx.method)) {
      throw new ApiError(405, 'invalid_request_error', `Method ${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`, {
        code: 'method_not_allowed',
        headers: { Allow: allow },
      });
    }
    await next();
  };
}
