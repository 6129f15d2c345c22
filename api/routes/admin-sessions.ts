/**
 * The console's sign-in (api/console-sessions.ts): POST /admin/v1/sessions exchanges the admin token for a session
 * cookie and a CSRF token; GET /admin/v1/sessions/current says whether the cookie holds a live session and gives the
 * page its CSRF token again after a reload (the page keeps it in memory only); DELETE /admin/v1/sessions/current
 * signs out, on every replica at once.
 */
import type Router from '@koa/router';
import { ApiError } from '../api-error';
import { parseBody } from '../admin-input';
import { signInSchema } from '../admin-console-schemas';
import { SESSION_COOKIE, SESSION_COOKIE_PATH, type ConsoleSession } from '../console-sessions';
import type { AppContext, AppDeps, AppState } from '../context';
import { isAdminToken } from '../middleware/admin-auth';

const sessionBody = (s: Pick<ConsoleSession, 'expiresAt' | 'csrfToken'>) => ({
  object: 'console_session' as const,
  expires_at: s.expiresAt.toISOString(),
  csrf_token: s.csrfToken,
});

/** Sets the session cookie: HttpOnly, SameSite=Strict, Secure when the request came over https, expiring with it. */
export function setSessionCookie(ctx: AppContext, session: ConsoleSession): void {
  ctx.cookies.set(SESSION_COOKIE, session.value, {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.protocol === 'https',
    path: SESSION_COOKIE_PATH,
    expires: session.expiresAt,
    overwrite: true,
  });
}

export function clearSessionCookie(ctx: AppContext): void {
  ctx.cookies.set(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.protocol === 'https',
    path: SESSION_COOKIE_PATH,
    expires: new Date(0),
    overwrite: true,
  });
}

/**
 * A browser sends Origin with a POST: one naming another site is refused, so no other page can sign a browser in
 * (SameSite=Strict already keeps the cookie from its requests).
 */
function checkOrigin(ctx: AppContext): void {
  const origin = ctx.get('Origin');
  // The origin this API was reached on (Koa's ctx.origin is not used: it can echo the request's Origin header).
  if (origin !== '' && origin !== `${ctx.protocol}://${ctx.host}`) {
    throw new ApiError(403, 'permission_error', `Sign-in from another origin (${origin.slice(0, 100)}) is refused`, {
      code: 'cross_origin_sign_in',
    });
  }
}

/**
 * POST /admin/v1/sessions and GET /admin/v1/sessions/current: before admin authentication (the first carries the
 * token in its body; the second tells a page that loads whether its cookie still holds a session, without a 401).
 */
export function signInRoutes(router: Router<AppState>, deps: Pick<AppDeps, 'adminThrottle' | 'adminToken' | 'consoleSessions'>): void {
  router.get('/admin/v1/sessions/current', async (ctx: AppContext) => {
    const cookie = ctx.cookies.get(SESSION_COOKIE);
    const session = cookie ? await deps.consoleSessions?.find(cookie) : undefined;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = session ? { ...sessionBody(session), signed_in: true } : { object: 'console_session', signed_in: false };
  });

  router.post('/admin/v1/sessions', async (ctx: AppContext) => {
    checkOrigin(ctx);
    const { token } = parseBody(signInSchema, ctx.request.body);
    // The same answer however close the token was: compared in constant time, and nothing said of its shape;
    // an address past its wrong tokens of the minute gets 429 whatever it sent (api/admin-throttle.ts).
    const right = isAdminToken(deps.adminToken, token);
    await deps.adminThrottle?.settle(ctx.ip, right);
    if (!right) {
      throw new ApiError(401, 'authentication_error', 'The admin token is not correct.', { param: 'token', code: 'invalid_admin_token' });
    }
    if (!deps.consoleSessions) {
      throw new ApiError(503, 'service_unavailable_error', 'No database is configured (DATABASE_URL): the console cannot keep a session', {
        code: 'database_not_configured',
      });
    }
    const session = await deps.consoleSessions.start();
    setSessionCookie(ctx, session);
    ctx.state.log.info({ expiresAt: session.expiresAt.toISOString() }, 'Console session started');
    ctx.status = 201;
    ctx.body = sessionBody(session);
  });
}

/** Ending the current session: behind admin authentication, which found it (and checked its CSRF token). */
export function sessionRoutes(router: Router<AppState>, deps: Pick<AppDeps, 'consoleSessions'>): void {
  const current = (ctx: AppContext): ConsoleSession => {
    const session = ctx.state.consoleSession;
    if (!session)
      throw new ApiError(404, 'not_found_error', 'This request carries no console session (the admin token was sent)', {
        code: 'no_session',
      });
    return session;
  };
  router.delete('/admin/v1/sessions/current', async (ctx: AppContext) => {
    const session = current(ctx);
    await deps.consoleSessions?.end(session.value);
    clearSessionCookie(ctx);
    ctx.state.log.info('Console session ended');
    ctx.body = { object: 'console_session', deleted: true };
  });
}
