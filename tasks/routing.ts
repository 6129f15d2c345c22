/**
 * A task that names a route (platforms/routes.ts), at its start: which members can take its request, in which
 * order the submit tries them, and which one its reservation is priced at. Start-path steps (tasks/start.ts); the
 * failover between members, once the task runs, is the submit activity's (activities/submit.ts).
 *
 * - One request for every member: the general form, validated by each member's own rules (its platform maps it
 *   onto its own fields later, as for a task that named the model). A member that cannot take it is skipped; when
 *   none can, the task is refused with the first member's 400, naming its field.
 * - A budgeted key that may not use unpriced models (allow_unpriced off) is served only by members with a price in
 *   its budget's currency; the others are skipped, and with none left the task is refused (402 `unpriced_model`).
 * - The order is the route's policy: `priority` as written; `cheapest` by the estimate of each member for this
 *   request, ascending, the members without a price last, the written order breaking ties; `weighted` a draw by
 *   weight for each place in turn.
 * - The reservation holds the dearest member's estimate (in the budget's currency where the key has a budget), so
 *   whichever member serves the task, its cost is covered.
 *
 * A route's priced members must share one currency (checked when the API starts), or "cheapest" and "dearest"
 * would compare amounts nobody converted.
 */
import type { Catalogue, ModelRecord } from '../core/catalogue';
import { configError } from '../core/config';
import type { GenerationRequest, Kind, TaskRoute } from '../core/task';
import type { ApiKey } from '../keys/api-keys';
import { ROUTES_FILE_VARIABLE } from '../platforms/routes-file';
import type { Route, RouteTable } from '../platforms/routes';
import type { TaskCost } from '../pricing/cost';
import type { TaskPricing } from '../pricing/price-table';
import { TaskRefused } from './refusal';
import { validateForModel, type SchemaCheckedBody } from './validation';

/** A member that can take the task's request: its record, the request as its rules left it, and its estimate. */
export interface RouteCandidate {
  entry: ModelRecord;
  request: GenerationRequest;
  /** The member's estimate for this request; null: it has no price. */
  cost: TaskCost | null;
}

/** A member that cannot serve the task, and why (the X-Route-Skipped header, when the client asks). */
export interface SkippedMember {
  model: string;
  platform: string;
  /** The refusal's code: its rule's (`invalid_value`, `unsupported_parameter`…) or `unpriced_model`. */
  code: string;
  /** The request field it refused, where a rule did. */
  param?: string;
  message: string;
}

/** A routed request after each member's validation: the members that take it, and the others. */
export interface RouteValidation {
  route: Route;
  able: RouteCandidate[];
  skipped: SkippedMember[];
}

/** What the start path makes of a routed request. */
export interface RoutedRequest {
  route: Route;
  /** The members that can take the request, in the order the submit tries them. */
  candidates: RouteCandidate[];
  skipped: SkippedMember[];
  /** The dearest candidate: the task's reservation and its estimate while it runs are priced at it. */
  reserveAt: RouteCandidate;
}

/** The route as the task carries it into its workflow (core/task.ts TaskRoute). */
export function taskRouteOf(routed: RoutedRequest): TaskRoute {
  return {
    name: routed.route.name,
    members: routed.candidates.map((c) => ({ platform: c.entry.platform, model: c.entry.id, request: c.request })),
  };
}

/** Whether the key's budget can count a task at this cost: it has a price, in the budget's currency. */
const countable = (key: ApiKey, cost: TaskCost | null): boolean => cost !== null && (!key.budget || cost.currency === key.budget.currency);

export class TaskRouting {
  constructor(
    private readonly routes: RouteTable,
    private readonly catalogue: Catalogue,
    private readonly enabled: ReadonlySet<string>,
    private readonly pricing: TaskPricing,
    /** In [0, 1): the weighted policy's draws (tests pin it). */
    private readonly random: () => number = Math.random,
  ) {
    for (const route of routes.routes) {
      const currencies = new Set(route.members.flatMap((m) => pricing.priceOf(m.entry.id)?.currency ?? []));
      if (currencies.size > 1)
        throw configError(
          ROUTES_FILE_VARIABLE,
          `route ${route.name}: its members are priced in ${[...currencies].join(' and ')} (PRICES_FILE); a route compares and reserves its members' prices, so they must share one currency: price them in one, or change the route`,
        );
    }
  }

  /** The route `model` names for this kind (its members on enabled platforms); undefined: not a route's name. */
  find(kind: Kind, model: string): Route | undefined {
    return this.routes.find(kind, model, this.enabled);
  }

  /** Step 1 for a route: each member's own validation of the request (400 when none takes it). */
  validate(route: Route, body: SchemaCheckedBody): RouteValidation {
    const able: RouteCandidate[] = [];
    const skipped: SkippedMember[] = [];
    let first: TaskRefused | undefined;
    for (const { entry } of route.members) {
      try {
        const { request } = validateForModel(this.catalogue, this.enabled, route.kind, { ...body, model: entry.id });
        able.push({ entry, request, cost: this.pricing.estimateTaskCost(request).cost });
      } catch (err) {
        if (!(err instanceof TaskRefused)) throw err;
        first ??= err;
        const { param, code } = err.details;
        skipped.push({ model: entry.id, platform: entry.platform, code, ...(param ? { param } : {}), message: err.message });
      }
    }
    if (able.length === 0 && first)
      throw new TaskRefused('invalid_request', `${first.message} (and no other member of the route '${route.name}' can take the request)`, {
        ...first.details,
      });
    return { route, able, skipped };
  }

  /**
   * After the key's allowlist: the members its budget can count (402 when none), in the policy's order, and the one
   * the reservation is priced at.
   */
  choose({ route, able, skipped: invalid }: RouteValidation, key: ApiKey): RoutedRequest {
    const skipped = [...invalid];
    const eligible = key.budget && !key.allowUnpriced ? able.filter((c) => countable(key, c.cost)) : able;
    for (const c of able)
      if (!eligible.includes(c))
        skipped.push({
          model: c.entry.id,
          platform: c.entry.platform,
          code: 'unpriced_model',
          param: 'model',
          message: `${c.entry.id} has no price in this API key's budget currency, and the key may not use unpriced models`,
        });
    if (eligible.length === 0) throw noPricedMember(route, key);
    const candidates = this.ordered(route, eligible);
    return { route, candidates, skipped, reserveAt: dearest(candidates, key) };
  }

  /** The candidates in the order of the route's policy. */
  private ordered(route: Route, candidates: RouteCandidate[]): RouteCandidate[] {
    if (route.policy === 'cheapest') {
      // Array.prototype.sort is stable: equal estimates keep the route's order; unpriced members go last.
      return [...candidates].sort((a, b) => (a.cost?.amount ?? Infinity) - (b.cost?.amount ?? Infinity));
    }
    if (route.policy === 'weighted') {
      const weightOf = (c: RouteCandidate) => route.members.find((m) => m.entry.id === c.entry.id)?.weight ?? 1;
      // A draw by weight for each place in turn (Efraimidis–Spirakis: each member's key u^(1/w), largest first).
      const keyed = candidates.map((c) => ({ c, key: Math.pow(this.random(), 1 / weightOf(c)) }));
      return keyed.sort((a, b) => b.key - a.key).map((k) => k.c);
    }
    return candidates;
  }
}

/** The candidate with the highest estimate the key's budget counts (the first in order on a tie); none priced: the first. */
function dearest(candidates: RouteCandidate[], key: ApiKey): RouteCandidate {
  let best = candidates[0]!;
  for (const c of candidates) {
    if (!countable(key, c.cost)) continue;
    if (!countable(key, best.cost) || c.cost!.amount > best.cost!.amount) best = c;
  }
  return best;
}

function noPricedMember(route: Route, key: ApiKey): TaskRefused {
  return new TaskRefused(
    'payment_required',
    `No member of the route '${route.name}' that can take this request has a price in ${key.budget!.currency}, so this API key's budget cannot count the task: a budgeted key may use unpriced models only if its operator allows it (allow_unpriced), or once they have a price (PRICES_FILE)`,
    { param: 'model', code: 'unpriced_model' },
  );
}
