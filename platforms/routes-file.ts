/**
 * The operator's routes file: ROUTES_FILE names a JSON file that adds, changes or removes routes (platforms/routes.ts)
 * without a code change, the way the platforms' models files change model records:
 *
 *   {
 *     "routes": {
 *       "kling-2.1": { "kind": "video", "policy": "cheapest", "members": [{ "model": "K21" }, { "model": "VendorK-2.1" }] },
 *       "seedance-pro": { "kind": "video", "policy": "weighted",
 *                         "members": [{ "model": "vendor-video-1-0-pro-250528", "weight": 3 }, { "model": "VQ2" }] },
 *       "vidu-q2": null
 *     }
 *   }
 *
 * An entry replaces the route of its name wholesale (a shipped one, or none: a new route); null removes it. A
 * route has a kind (`video` or `image`, default `video`), a policy (default `priority`) and at least two members,
 * each a catalogue model id of that kind, at most once, with an optional weight (for `weighted`). Its name must
 * not be a model id. Read by the API at start: anything wrong stops it with a ConfigError naming ROUTES_FILE and
 * the entry.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Catalogue } from '../core/catalogue';
import { configError, optionalString, parseEnv } from '../core/config';
import { KINDS } from '../core/task';
import { DEFAULT_ROUTES } from './default-routes';
import { resolveRoute, ROUTE_POLICIES, RouteError, RouteTable, type Route, type RouteSpec } from './routes';

export const ROUTES_FILE_VARIABLE = 'ROUTES_FILE';

/** ROUTES_FILE: read by the API (which validates against routes, lists them and starts routed tasks). */
export const routesEnv = z.object({ [ROUTES_FILE_VARIABLE]: optionalString });

const MAX_MEMBERS = 8;

const routeEntry = z
  .strictObject({
    kind: z.enum(KINDS).default('video'),
    policy: z.enum(ROUTE_POLICIES).default('priority'),
    members: z
      .array(
        z.strictObject({
          model: z.string().min(1).max(128),
          weight: z.number().int().min(1).max(1000).optional(),
          evidence: z.string().min(1).max(300).optional(),
        }),
      )
      .min(2, { message: 'a route needs at least two members (catalogue models on different platforms)' })
      .max(MAX_MEMBERS),
    evidence: z.string().min(1).max(300).optional(),
  })
  .nullable();

const routesFileSchema = z.strictObject({ routes: z.record(z.string(), routeEntry) });

/** The file's entries by route name (null: removed), or a RouteError at the first mistake. */
export function parseRoutesFile(json: unknown): Map<string, RouteSpec | null> {
  const parsed = routesFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RouteError(issue.path.map(String).join('.') || '(file)', issue.message);
  }
  return new Map(Object.entries(parsed.data.routes));
}

/** The shipped routes with `file`'s entries over them, resolved against the catalogue. */
export function routeTableOf(catalogue: Catalogue, file: ReadonlyMap<string, RouteSpec | null> = new Map()): RouteTable {
  const routes: Route[] = [];
  for (const [name, spec] of Object.entries(DEFAULT_ROUTES)) {
    if (file.has(name)) continue;
    const route = resolveRoute(catalogue, name, spec, true);
    if (route) routes.push(route);
  }
  for (const [name, spec] of file) {
    if (spec === null) {
      if (!(name in DEFAULT_ROUTES)) throw new RouteError(`routes.${name}`, 'removes a route that does not exist');
      continue;
    }
    routes.push(resolveRoute(catalogue, name, spec)!);
  }
  return new RouteTable(routes);
}

/** The deployment's routes: the shipped ones with ROUTES_FILE (when `env` names one) over them. */
export function loadRoutes(catalogue: Catalogue, env: NodeJS.ProcessEnv): RouteTable {
  const path = parseEnv(routesEnv, env)[ROUTES_FILE_VARIABLE];
  if (path === undefined) return routeTableOf(catalogue);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw configError(ROUTES_FILE_VARIABLE, `${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return routeTableOf(catalogue, parseRoutesFile(json));
  } catch (err) {
    if (err instanceof RouteError) throw configError(ROUTES_FILE_VARIABLE, `${path}: ${err.message}`);
    throw err;
  }
}
