/**
 * Routes: public model names served by several platforms. A route (e.g. `kling-2.1`) names catalogue models on
 * different platforms — its members, in an order — and a policy for choosing among them per task: `priority` (the
 * first member that can take the request), `cheapest` (by the price table, among the members with a price; the
 * order breaks ties) or `weighted` (a draw by the members' weights). Routes are data over the catalogue: the pairs
 * the platforms' documentation confirms are shipped (platforms/default-routes.ts) and the operator's ROUTES_FILE
 * adds, changes or removes routes (platforms/routes-file.ts). What a task does with its route — which members can
 * take its request, their order, what is reserved — is the start path's (tasks/routing.ts); failing over between
 * members is the submit activity's (activities/submit.ts).
 *
 * No I/O here: the table is built from the catalogue, the defaults and a parsed file.
 */
import { CAPABILITIES, type Catalogue, type DurationRule, type ModelRecord } from '../core/catalogue';
import type { Kind } from '../core/task';

export const ROUTE_POLICIES = ['priority', 'cheapest', 'weighted'] as const;
export type RoutePolicy = (typeof ROUTE_POLICIES)[number];

/** A route's name: what clients send as `model`, so it is spelled like a model id and must not be one. */
export const ROUTE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** One member as written (the defaults, the file): a catalogue model id of the route's kind. */
export interface RouteMemberSpec {
  readonly model: string;
  /** Its share of the route's tasks under `weighted` (default 1); other policies ignore it. */
  readonly weight?: number;
  /** Why this model is the route's vendor model, with the evidence tags the catalogues use. */
  readonly evidence?: string;
}

export interface RouteSpec {
  readonly kind: Kind;
  readonly policy: RoutePolicy;
  readonly members: readonly RouteMemberSpec[];
  /** Where the pairing comes from, for GET /v1/models and docs/api.md. */
  readonly evidence?: string;
}

/** A member resolved against the catalogue. */
export interface RouteMember {
  readonly entry: ModelRecord;
  readonly weight: number;
  readonly evidence?: string;
}

/** A route resolved against the catalogue: its members' records, in the route's order. */
export interface Route {
  readonly name: string;
  readonly kind: Kind;
  readonly policy: RoutePolicy;
  readonly members: readonly RouteMember[];
  readonly evidence?: string;
}

/** A route whose definition cannot be served, at `path` (e.g. `routes.kling-2.1.members.1.model`). */
export class RouteError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
  }
}

/**
 * Resolves one route's members against the catalogue. `lenient` (the shipped defaults): a member the deployment
 * withdrew (a models file's null) is left out, and a route left with none is dropped (undefined); otherwise
 * (the operator's file) a member that is not in the catalogue is an error.
 */
export function resolveRoute(catalogue: Catalogue, name: string, spec: RouteSpec, lenient = false): Route | undefined {
  const path = `routes.${name}`;
  if (!ROUTE_NAME.test(name)) throw new RouteError(path, 'a route name is 1 to 128 letters, digits, ".", "_" or "-"');
  if (catalogue.find('video', name) || catalogue.find('image', name))
    throw new RouteError(path, `'${name}' is a catalogue model's id; a route needs a name of its own`);
  const members: RouteMember[] = [];
  spec.members.forEach((m, i) => {
    const entry = catalogue.find(spec.kind, m.model);
    if (!entry) {
      if (lenient) return;
      throw new RouteError(`${path}.members.${i}.model`, `no ${spec.kind} model '${m.model}' in the catalogue`);
    }
    if (members.some((x) => x.entry.id === entry.id))
      throw new RouteError(`${path}.members.${i}.model`, `'${m.model}' is already a member of this route`);
    members.push({ entry, weight: m.weight ?? 1, ...(m.evidence ? { evidence: m.evidence } : {}) });
  });
  if (members.length === 0) return undefined;
  return { name, kind: spec.kind, policy: spec.policy, members, ...(spec.evidence ? { evidence: spec.evidence } : {}) };
}

/** The deployment's routes by name. */
export class RouteTable {
  private readonly byName = new Map<string, Route>();

  constructor(readonly routes: readonly Route[]) {
    for (const r of routes) this.byName.set(r.name, r);
  }

  /** The route `name` of `kind` with only the members whose platform is enabled; undefined: none left, or no such route. */
  find(kind: Kind, name: string, enabled: ReadonlySet<string>): Route | undefined {
    const route = this.byName.get(name);
    if (!route || route.kind !== kind) return undefined;
    const members = route.members.filter((m) => enabled.has(m.entry.platform));
    return members.length > 0 ? { ...route, members } : undefined;
  }

  /** Every route with a member on an enabled platform, each with those members only. */
  available(enabled: ReadonlySet<string>): Route[] {
    return this.routes.flatMap((r) => this.find(r.kind, r.name, enabled) ?? []);
  }

  /** Whether `name` is a route's (of any kind). */
  has(name: string): boolean {
    return this.byName.has(name);
  }
}

/** The seconds a duration rule allows (rules are integer seconds; at most 600 in any request). */
function secondsOf(rule: DurationRule): number[] {
  if ('values' in rule) return [...rule.values];
  return Array.from({ length: Math.max(0, rule.max - rule.min + 1) }, (_, i) => rule.min + i);
}

/** The union of several duration rules: a range where it is one, else the list of values. */
function unionDurations(rules: readonly DurationRule[]): DurationRule | undefined {
  if (rules.length === 0) return undefined;
  const all = [...new Set(rules.flatMap(secondsOf))].sort((a, b) => a - b);
  const contiguous = all.length > 2 && all.every((v, i) => i === 0 || v === all[i - 1]! + 1);
  return contiguous ? { min: all[0]!, max: all.at(-1)! } : { values: all };
}

/** Values of several lists, once each (compared case-insensitively: `720P` and `720p` are one resolution), in order. */
function unionOf(lists: readonly (readonly string[] | undefined)[]): string[] {
  const out: string[] = [];
  for (const v of lists.flatMap((l) => l ?? [])) if (!out.some((o) => o.toLowerCase() === v.toLowerCase())) out.push(v);
  return out;
}

const maxOf = (values: (number | undefined)[]): number | undefined => {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length > 0 ? Math.max(...known) : undefined;
};

/**
 * What a route accepts, as one record: every value some member takes (durations, resolutions, ratios, qualities,
 * capabilities) and the largest of its members' limits. A request within it may still suit only some members; each
 * member's own rules decide (tasks/routing.ts). `GET /v1/models` shows it, and the Videos API maps `size` and
 * `seconds` through it.
 */
export function routeLimits(route: Route): ModelRecord {
  const entries = route.members.map((m) => m.entry);
  const durations = unionDurations(entries.flatMap((e) => (e.durations ? [e.durations] : [])));
  const maxImages = maxOf(entries.map((e) => e.maxImages));
  const maxPromptLength = maxOf(entries.map((e) => e.maxPromptLength));
  const maxReferenceImages = maxOf(entries.map((e) => e.maxReferenceImages));
  const resolutions = unionOf(entries.map((e) => e.resolutions));
  const qualities = unionOf(entries.map((e) => e.qualities));
  return {
    id: route.name,
    platform: [...new Set(entries.map((e) => e.platform))].join(','),
    kind: route.kind,
    upstream: {},
    ...(durations ? { durations } : {}),
    ...(resolutions.length > 0 ? { resolutions } : {}),
    ratios: unionOf(entries.map((e) => e.ratios)),
    ...(qualities.length > 0 ? { qualities } : {}),
    ...(maxImages !== undefined ? { maxImages } : {}),
    ...(maxPromptLength !== undefined ? { maxPromptLength } : {}),
    ...(maxReferenceImages !== undefined ? { maxReferenceImages } : {}),
    capabilities: CAPABILITIES.filter((c) => entries.some((e) => e.capabilities.includes(c))),
    ...(route.evidence ? { evidence: route.evidence } : {}),
  };
}
