/**
 * The admin routes' authentication, two ways:
 *
 * - `Authorization: Bearer <ADMIN_TOKEN>`, a secret of its own (≥ 32 characters), compared in constant time (as
 *   SHA-256 digests, so the comparison takes the same time whatever the length of what was sent) and never logged.
 *   An API key sent to an admin route is recognised and refused with 403 (it authenticates, but as a client, not
 *   the operator); anything else is 401.
 * - the console's session cookie (api/console-sessions.ts), for a request without an Authorization header: the
 *   session must be live in the database, and a request that changes anything must carry the session's CSRF token
 *   in X-CSRF-Token (403 otherwise), since a browser sends the cookie on its own.
 */
import type { Next } from 'koa';
import { ApiError } from '../api-error';
import { bearerToken, type KeyStore } from '../../keys/api-keys';
import { CSRF_HEADER, sameSecret, SESSION_COOKIE, type ConsoleSession, type ConsoleSessions } from '../console-sessions';
import type { AppContext } from '../context';
import type { AdminAuthThrottle } from '../admin-throttle';

export const adminUnauthorized = () =>
  new ApiError(401, 'authentication_error', 'Missing or invalid admin token. Send "Authorization: Bearer <ADMIN_TOKEN>".', {
    code: 'invalid_admin_token',
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

const sessionEnded = () =>
  new ApiError(401, 'authentication_error', 'The console session has ended or expired: sign in again', { code: 'session_expired' });

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether `token` is the admin token (constant time; with no ADMIN_TOKEN configured, nothing is). */
export function isAdminToken(adminToken: string | undefined, token: string): boolean {
  return adminToken !== undefined && sameSecret(token, adminToken);
}

/** The signed-in console session of a request, checked; a state-changing request's CSRF token with it. */
async function consoleSession(ctx: AppContext, sessions: ConsoleSessions | undefined, cookie: string): Promise<ConsoleSession> {
  const session = await sessions?.find(cookie);
  if (!session) throw sessionEnded();
  if (!SAFE_METHODS.has(ctx.method) && !sameSecret(ctx.get(CSRF_HEADER), session.csrfToken)) {
    throw new ApiError(403, 'permission_error', `A console request that changes something must carry the session's ${CSRF_HEADER}`, {
      code: 'csrf_token_invalid',
    });
  }
  return session;
}

export function adminAuthenticate(
  adminToken: string | undefined,
  keys: KeyStore,
  sessions?: ConsoleSessions,
  throttle?: AdminAuthThrottle,
) {
  return async (ctx: AppContext, next: Next) => {
    const token = bearerToken(ctx.get('Authorization'));
    const cookie = ctx.get('Authorization') === '' ? ctx.cookies.get(SESSION_COOKIE) : undefined;
    if (token === undefined && cookie) {
      ctx.state.consoleSession = await consoleSession(ctx, sessions, cookie);
      ctx.state.log = ctx.state.log.child({ admin: true, console: true });
      await next();
      return;
    }
    const right = token !== undefined && isAdminToken(adminToken, token);
    if (!right) {
      if (token !== undefined && keys.authenticate(token)) {
        throw new ApiError(403, 'permission_error', 'An API key cannot use the admin API; send the admin token', {
          code: 'admin_token_required',
        });
      }
      // A wrong bearer token is a guess at the admin token: counted per address (429 past the limit).
      if (token !== undefined) await throttle?.settle(ctx.ip, false);
      throw adminUnauthorized();
    }
    await throttle?.settle(ctx.ip, true);
    ctx.state.log = ctx.state.log.child({ admin: true });
    await next();
  };
}
