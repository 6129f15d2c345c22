/** Bearer authentication on every /v1 route; the key (id, limits) lands in ctx.state.apiKey. */
import type { Next } from 'koa';
import { bearerToken, type ApiKey, type KeyStore } from '../../keys/api-keys';
import type { AppContext } from '../context';
import { unauthorized } from '../api-error';

/**
 * Authenticates the request's Bearer key (401 otherwise) and records it on the context. Also called directly by
 * the content route, which is mounted before this middleware because a signed link may stand in for the key.
 */
export function authenticateRequest(ctx: AppContext, keys: KeyStore): ApiKey {
  const token = bearerToken(ctx.get('Authorization'));
  const key = token === undefined ? undefined : keys.authenticate(token);
  if (!key) throw unauthorized();
  ctx.state.apiKey = key;
  ctx.state.log = ctx.state.log.child({ keyId: key.id });
  return key;
}

export function authenticate(keys: KeyStore) {
  return async (ctx: AppContext, next: Next) => {
    authenticateRequest(ctx, keys);
    await next();
  };
}
