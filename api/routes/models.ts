/**
 * GET /v1/models and GET /v1/models/:model_id (OpenAI SDKs' `models.list` / `models.retrieve`): the catalogue's
 * models whose platform is enabled, then the routes (platforms/routes.ts) with a member on one, that the key may use.
 * A route is listed with `owned_by: "route"`, what it accepts (every value some member takes: routeLimits) and its
 * members in their order, each with its platform, weight, price and evidence. One entry per public id: an id offered for both video
 * and image (`VendorK-2.1` on platform T) lists both in `kinds`, with each kind's limits under `video`/`image`.
 * `owned_by` stays the platform's id (what PLATFORMS_ENABLED and the task's `platform` say); `platform_name` says
 * it in words.
 */
import type Router from '@koa/router';
import type { ModelRecord } from '../../core/catalogue';
import { platformById } from '../../platforms';
import { routeLimits, type Route } from '../../platforms/routes';
import type { ModelPrice } from '../../pricing/price';
import { priceJson, type TaskPricing } from '../../pricing/price-table';
import { sizesForRatios } from '../../platforms/rules';
import { ApiError } from '../api-error';
import type { AppContext, AppDeps, AppState } from '../context';

/** What one kind of a model accepts. */
function limits(e: ModelRecord) {
  return {
    ...(e.durations
      ? { durations: 'values' in e.durations ? { values: [...e.durations.values] } : { min: e.durations.min, max: e.durations.max } }
      : {}),
    ...(e.resolutions ? { resolutions: [...e.resolutions] } : {}),
    ratios: [...e.ratios],
    // Image models: the WxH sizes of the size table of docs/api.md "Image requests" whose ratio the model takes (validation's own table).
    ...(e.kind === 'image' ? { sizes: sizesForRatios(e.ratios) } : {}),
    ...(e.qualities ? { qualities: [...e.qualities] } : {}),
    ...(e.maxImages ? { max_images: e.maxImages } : {}),
    ...(e.maxPromptLength ? { max_prompt_length: e.maxPromptLength } : {}),
    ...(e.maxReferenceImages !== undefined ? { max_reference_images: e.maxReferenceImages } : {}),
    capabilities: [...e.capabilities],
    ...(e.evidence ? { source: e.evidence } : {}),
  };
}

/**
 * One model object from the entries sharing its id (video first). `price` is what the model costs
 * (pricing/price-table.ts priceJson: the shape PRICES_FILE takes), null when no price is known.
 */
export function modelView(entries: readonly ModelRecord[], price: ModelPrice | null = null) {
  const [first] = entries;
  if (!first) throw new Error('modelView needs at least one entry');
  return {
    id: first.id,
    object: 'model' as const,
    owned_by: first.platform,
    platform_name: platformById(first.platform).name,
    type: first.kind,
    kinds: entries.map((e) => e.kind),
    ...limits(first),
    ...(entries.length > 1 ? Object.fromEntries(entries.map((e) => [e.kind, limits(e)])) : {}),
    price: price && priceJson(price),
    // B reads a request without `action` as image-to-video (docs/api.md "Validation rules", rule 2); T and V read
    // it from the inputs. Said here, since a client cannot tell from the rest.
    ...(first.kind === 'video' ? { default_action: first.platform === 'B' ? ('image_to_video' as const) : ('by_input' as const) } : {}),
  };
}

/** A route as a model object: what it accepts, and its members in order (see the file's comment). */
export function routeView(route: Route, pricing: TaskPricing) {
  const platforms = [...new Set(route.members.map((m) => m.entry.platform))];
  return {
    id: route.name,
    object: 'model' as const,
    owned_by: 'route' as const,
    platform_name: `a route over ${platforms.map((p) => platformById(p).name).join(' and ')}`,
    type: route.kind,
    kinds: [route.kind],
    ...limits(routeLimits(route)),
    route: {
      policy: route.policy,
      members: route.members.map((m) => {
        const price = pricing.priceOf(m.entry.id);
        return {
          model: m.entry.id,
          platform: m.entry.platform,
          weight: m.weight,
          price: price && priceJson(price),
          ...(m.evidence ? { source: m.evidence } : {}),
        };
      }),
    },
    price: null,
  };
}

export function modelRoutes(router: Router<AppState>, deps: Pick<AppDeps, 'catalogue' | 'enabledPlatforms' | 'pricing' | 'routes'>): void {
  // The catalogue, the routes and the enabled platforms are fixed for the life of the app: the views are made once,
  // grouped by public id in catalogue order, then the routes; each request only filters them by what its key may use.
  const byId = new Map<string, ModelRecord[]>();
  for (const e of deps.catalogue.available(deps.enabledPlatforms)) byId.set(e.id, [...(byId.get(e.id) ?? []), e]);
  const views = new Map<string, ReturnType<typeof modelView> | ReturnType<typeof routeView>>([
    ...[...byId].map(([id, entries]) => [id, modelView(entries, deps.pricing.priceOf(id))] as const),
    ...(deps.routes?.available(deps.enabledPlatforms) ?? []).map((r) => [r.name, routeView(r, deps.pricing)] as const),
  ]);
  const mayUse = (ctx: AppContext, id: string): boolean => ctx.state.apiKey?.models?.has(id) ?? true;
  /** The prices each entry is counted at: its own, or (a route) its members'. */
  const pricesOf = new Map<string, readonly (ModelPrice | null)[]>([
    ...[...byId.keys()].map((id) => [id, [deps.pricing.priceOf(id)]] as const),
    ...(deps.routes?.available(deps.enabledPlatforms) ?? []).map(
      (r) => [r.name, r.members.map((m) => deps.pricing.priceOf(m.entry.id))] as const,
    ),
  ]);
  /** For a budgeted key, each entry says whether its budget can count it (most of the catalogue has no price). */
  const withBudget = (ctx: AppContext, view: ReturnType<typeof modelView> | ReturnType<typeof routeView>) => {
    const key = ctx.state.apiKey;
    if (!key?.budget) return view;
    const prices = pricesOf.get(view.id) ?? [];
    const currency = key.budget.currency;
    if (prices.some((p) => p?.currency === currency)) return { ...view, budget: { countable: true } };
    const other = prices.find((p) => p !== null)?.currency;
    const reason = other ? `priced in ${other}, not in this key's budget currency ${currency}` : 'no price is known (PRICES_FILE sets one)';
    return {
      ...view,
      budget: {
        countable: false,
        reason: `${reason}: tasks are refused with 402 unpriced_model${key.allowUnpriced ? ', but this key may use it (counted at zero)' : ''}`,
        ...(key.allowUnpriced ? { allowed_unpriced: true } : {}),
      },
    };
  };

  router.get('/v1/models', (ctx: AppContext) => {
    ctx.body = { object: 'list', data: [...views.values()].filter((v) => mayUse(ctx, v.id)).map((v) => withBudget(ctx, v)) };
  });

  router.get('/v1/models/:model_id', (ctx: AppContext) => {
    const id = String(ctx.params?.model_id ?? '');
    const view = mayUse(ctx, id) ? views.get(id) : undefined;
    if (!view)
      throw new ApiError(
        404,
        'not_found_error',
        `The model '${id}' does not exist or is not available to this key; GET /v1/models lists them`,
        { param: 'model_id', code: 'model_not_found' },
      );
    ctx.body = withBudget(ctx, view);
  });
}
