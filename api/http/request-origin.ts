import type { AppContext } from '../context';

/**
 * The origin the client reached the gateway at (behind TRUST_PROXY, the forwarded one): the base of the links the
 * answer to this request renders when PUBLIC_BASE_URL is unset, and of a started task's webhook payloads.
 */
export const requestOrigin = (ctx: AppContext) => `${ctx.protocol}://${ctx.host}`;
