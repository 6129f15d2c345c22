/** Bearer authentication on every /v1 route; the key (id, limits) lands in ctx.state.apiKey. */
import type { Next } from 'koa';
import { bearerToken, type KeyStore } from '../api-keys';
import type { AppContext } from '../context';
import { unauthorized } from '../api-error';

export function authenticate(keys: KeyStore) {
  return async (ctx: AppContext, next: Next) => {
    const token = bearerToken(ctx.get('Authorization'));
    const key = token === undefined ? undefined : keys.authenticate(token);
    if (!key) throw unauthorized();
    ctx.state.apiKey = key;
    ctx.state.log = ctx.state.log.child({ keyId: key.id });
    await next();
  };
}
