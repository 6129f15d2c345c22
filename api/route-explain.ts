/**
 * What a client may ask of a task started with a route (platforms/routes.ts), at every door that creates tasks: by
 * default the answer says nothing of the route's members (the task's record names the one that served it, once it
 * did: `served_by`). A request with `X-Route-Explain: true` is answered with two headers, as RFC 8941 lists:
 *
 *   X-Route-Candidates: "VendorK-2.1";platform="T", "K21";platform="B"
 *   X-Route-Skipped: "GV-3.1";platform="T";code="invalid_value";param="duration";message="duration 4 is not supported by GV-3.1; use 8 seconds"
 *
 * the members that can take the request, in the order the worker tries them (the route's policy applied), and those
 * that cannot, each with the code and field of its refusal (`unpriced_model` for a member the key's budget cannot
 * count). X-Route-Skipped is absent when no member was skipped. `false`, `0` or no header: nothing is said.
 */
import { z } from 'zod';
import type { StartOutcome } from '../tasks/start';
import type { AppContext } from './context';
import { invalidRequest } from './api-error';

export const ROUTE_EXPLAIN_HEADER = 'X-Route-Explain';

/** X-Route-Explain as the OpenAPI document states it (api/openapi.ts). */
export const routeExplainHeader = z
  .string()
  .regex(/^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$/)
  .optional()
  .describe(
    'For a route (GET /v1/models lists them, owned_by "route"): true or 1 asks for the X-Route-Candidates and X-Route-Skipped answer headers (the members that can take the request, in the order tried; those that cannot, each with the code and field of its refusal); false, 0 or no header: nothing is said of the members',
  );

/** The headers a routed task's answer carries when X-Route-Explain asked for them. */
export const routeExplainResponseHeaders = {
  'X-Route-Candidates': {
    description: 'With X-Route-Explain: true, for a route: the members that can take the request, in the order tried (an RFC 8941 list)',
    schema: { type: 'string' as const },
  },
  'X-Route-Skipped': {
    description:
      'With X-Route-Explain: true, for a route whose members could not all take the request: each skipped member with its code, param and message (an RFC 8941 list)',
    schema: { type: 'string' as const },
  },
};

/** The header's value: true, false (absent), or a 400 naming it. */
export function routeExplainAsked(ctx: AppContext): boolean {
  const sent = ctx.req.headers['x-route-explain'];
  if (sent === undefined) return false;
  const v = (Array.isArray(sent) ? sent.join(', ') : sent).trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw invalidRequest(`${ROUTE_EXPLAIN_HEADER} must be "true" or "false" (or 1 or 0)`, ROUTE_EXPLAIN_HEADER, 'invalid_header');
}

/** An RFC 8941 sf-string: printable ASCII, quotes and backslashes escaped (anything else dropped). */
function sfString(s: string): string {
  return `"${s.replace(/[^\x20-\x7e]/g, '').replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Sets the headers for a routed task whose client asked (see the file's comment). */
export function explainRoute(ctx: AppContext, started: StartOutcome, asked: boolean): void {
  if (!asked || !started.candidates) return;
  ctx.set('X-Route-Candidates', started.candidates.map((c) => `${sfString(c.model)};platform=${sfString(c.platform)}`).join(', '));
  const skipped = started.skipped ?? [];
  if (skipped.length === 0) return;
  ctx.set(
    'X-Route-Skipped',
    skipped
      .map(
        (s) =>
          `${sfString(s.model)};platform=${sfString(s.platform)};code=${sfString(s.code)}${s.param ? `;param=${sfString(s.param)}` : ''};message=${sfString(s.message)}`,
      )
      .join(', '),
  );
}
