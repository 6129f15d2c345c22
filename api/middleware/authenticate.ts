/** Bearer authentication on every /v1 route; the key (id, limits) lands in ctx.state.apiKey. */
import type { Next } from 'koa';
import { bearerToken, type ApiKey, type KeyStore } from '../../keys/api-keys';
import type { ManagedKeys } from '../../keys/managed-keys';
import type { AppContext } from '../context';
import { unauthorized } from '../api-error';

/**
 * Authenticates the request's Bearer key (401 otherwise) and records it on the context. Also called directly by
 * the content route, which is mounted before this middleware because a signed link may stand in for the key.
 */
export async function authenticateRequest(ctx: AppContext, keys: KeyStore, managed?: ManagedKeys): Promise<ApiKey> {
  const token = bearerToken(ctx.get('Authorization'));
  // A key this replica does not know yet may have been made on another one since its last poll: the database is
  // asked before the 401 (keys/managed-keys.ts lookUp, with its short memory of unknown secrets).
  const key = token === undefined ? undefined : (keys.authenticate(token) ?? (await managed?.lookUp(token)));
  if (!key) throw unauthorized();
  ctx.state.apiKey = key;
  ctx.state.log = ctx.state.log.child({ keyId: key.id });
  return key;
}

export function authenticate(keys: KeyStore, managed?: ManagedKeys) {
  return async (ctx: AppContext, next: Next) => {
    await authenticateRequest(ctx, keys, managed);
    await next();
  };
}
