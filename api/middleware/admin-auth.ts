/**
 * The admin routes' authentication: `Authorization: Bearer <ADMIN_TOKEN>`, a secret of its own (≥ 32 characters),
 * compared in constant time (as SHA-256 digests, so the comparison takes the same time whatever the length of
 * what was sent) and never logged. An API key sent to an admin route is recognised and refused with 403 (it
 * authenticates, but as a client, not the operator); anything else, or no header, is 401.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Next } from 'koa';
import { ApiError } from '../api-error';
import { bearerToken, sha256, type KeyStore } from '../../keys/api-keys';
import type { AppContext } from '../context';

export const adminUnauthorized = () =>
  new ApiError(401, 'authentication_error', 'Missing or invalid admin token. Send "Authorization: Bearer <ADMIN_TOKEN>".', {
    code: 'invalid_admin_token',
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

export function adminAuthenticate(adminToken: string | undefined, keys: KeyStore) {
  const expected = adminToken ? sha256(adminToken) : undefined;
  return async (ctx: AppContext, next: Next) => {
    const token = bearerToken(ctx.get('Authorization'));
    // With no ADMIN_TOKEN configured nothing authenticates as the operator: the admin API is off.
    const isAdmin = token !== undefined && expected !== undefined && timingSafeEqual(sha256(token), expected);
    if (!isAdmin) {
      if (token !== undefined && keys.authenticate(token)) {
        throw new ApiError(403, 'permission_error', 'An API key cannot use the admin API; send the admin token', {
          code: 'admin_token_required',
        });
      }
      throw adminUnauthorized();
    }
    ctx.state.log = ctx.state.log.child({ admin: true });
    await next();
  };
}
