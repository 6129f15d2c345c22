/**
 * A task's usage and cost: the estimate when it is accepted (from what the request says) and the final figure
 * when it ends (from what the platform reports it billed, where it reports it). Pure: no I/O, no Temporal, no
 * HTTP, no platform — the platform's reported figures arrive already normalised (ReportedUsage, core/task.ts).
 *
 * The ledger reserves `estimateTaskCost` when a task is accepted and settles to `finalTaskCost` when it ends.
 */
import type { DurationRule, ModelRecord } from '../core/catalogue';
import type { Kind, ReportedUsage } from '../core/task';
import { decimalOf, lookup, priceForTier, rateFor, type Currency, type Micros, type ModelPrice } from './price';

/** What a task used, in the units its platform bills: video seconds, images, tokens (each where it applies). */
export interface TaskUsage {
  seconds?: number;
  images?: number;
  tokens?: number;
}

/** An exact amount of money (integer micros) and whether it is still an estimate. */
export interface TaskCost {
  amount: Micros;
  currency: Currency;
  /** True until the task has ended and its final figure is known. */
  estimated: boolean;
}

/** `cost` is null when the model has no known price (a budget then counts the task at zero). */
export interface UsageAndCost {
  usage: TaskUsage;
  cost: TaskCost | null;
}

/** How a task ended, for its final cost. */
export type TaskOutcome = 'success' | 'failed' | 'cancelled';

/**
 * The request fields that decide a price (docs/api.md "Video requests" and "Image requests"): what the workflow is started with carries them, and the
 * task's memo keeps a copy (`billing`), so a task's cost can be read without its workflow input.
 */
export interface PricedRequest {
  kind: Kind;
  model: string;
  duration?: number;
  resolution?: string;
  generate_audio?: boolean;
  n?: number;
  size?: string;
  quality?: string;
  /** The price tier asked for (`flex`: platform V's offline tier, at its own price); absent: the standard one. */
  service_tier?: string;
}

/** The price-deciding fields of a validated request (everything else in it is ignored). */
export function pricedRequest(from: { kind: Kind; model: string; [field: string]: unknown } | PricedRequest): PricedRequest {
  const request = from as { kind: Kind; model: string; [field: string]: unknown };
  const out: PricedRequest = { kind: request.kind, model: request.model };
  if (typeof request.duration === 'number') out.duration = request.duration;
  if (typeof request.resolution === 'string') out.resolution = request.resolution;
  if (typeof request.generate_audio === 'boolean') out.generate_audio = request.generate_audio;
  if (typeof request.n === 'number') out.n = request.n;
  if (typeof request.size === 'string') out.size = request.size;
  if (typeof request.quality === 'string') out.quality = request.quality;
  if (typeof request.service_tier === 'string') out.service_tier = request.service_tier;
  return out;
}

/** The longest duration a model allows: what an estimate assumes when the request leaves the duration open. */
function longest(rule: DurationRule | undefined): number | undefined {
  if (!rule) return undefined;
  return 'values' in rule ? Math.max(...rule.values) : rule.max;
}

/**
 * The resolution an estimate prices: the request's, else the model's dearest, so an estimate of a request that
 * leaves it to the platform never reserves less than the platform may bill.
 */
function pricedResolution(req: PricedRequest, record: ModelRecord, price: ModelPrice): string | undefined {
  if (req.resolution) return req.resolution;
  const sound = req.generate_audio === true;
  const cost = (res: string) => {
    const perSecond = lookup(price.perSecond, res);
    if (perSecond !== undefined) return rateFor(perSecond, sound);
    return lookup(price.perToken?.tokensPerSecond, res) ?? 0;
  };
  return [...(record.resolutions ?? [])].sort((a, b) => cost(b) - cost(a))[0];
}

/** `tokens × rate per million`, rounded to the nearest micro. */
function tokenCost(tokens: number, perMillion: Micros): Micros {
  return Math.round((tokens * perMillion) / 1_000_000);
}

interface Priced {
  usage: TaskUsage;
  amount: Micros | undefined;
}

function priceVideo(req: PricedRequest, record: ModelRecord, price: ModelPrice | null, reported: ReportedUsage): Priced {
  const seconds = reported.seconds ?? req.duration ?? longest(record.durations);
  // The tokens the platform reported are usage whether or not the model has a price.
  const usage: TaskUsage = {
    ...(seconds === undefined ? {} : { seconds }),
    ...(reported.tokens === undefined ? {} : { tokens: reported.tokens }),
  };
  if (!price) return { usage, amount: undefined };
  const sound = req.generate_audio === true;
  const resolution = pricedResolution(req, record, price);
  if (price.perToken) {
    const perSecond = lookup(price.perToken.tokensPerSecond, resolution);
    const tokens = reported.tokens ?? (perSecond !== undefined && seconds !== undefined ? Math.round(perSecond * seconds) : undefined);
    if (tokens === undefined) return { usage, amount: undefined };
    return { usage: { ...usage, tokens }, amount: tokenCost(tokens, rateFor(price.perToken.perMillion, sound)) };
  }
  const rate = lookup(price.perSecond, resolution);
  if (rate === undefined || seconds === undefined) return { usage, amount: undefined };
  return { usage, amount: Math.round(rateFor(rate, sound) * seconds) };
}

function priceImages(req: PricedRequest, price: ModelPrice | null, reported: ReportedUsage): Priced {
  const images = reported.images ?? req.n ?? 1;
  const rate = price && (lookup(price.perImage, req.quality) ?? lookup(price.perImage, req.size));
  return { usage: { images }, amount: rate === undefined || rate === null ? undefined : rate * images };
}

function priced(req: PricedRequest, record: ModelRecord, price: ModelPrice | null, reported: ReportedUsage): Priced {
  return req.kind === 'video' ? priceVideo(req, record, price, reported) : priceImages(req, price, reported);
}

/**
 * The estimate when a task is accepted, from what the request says (model, duration, resolution, sound, n,
 * image size and quality); where the request leaves one open, the model's longest duration and dearest
 * resolution, and for a per-token price the most tokens a second of the resolution bills (`tokensPerSecond`),
 * so a reservation is the most the request can be billed — an upper bound of the final figure unless the
 * platform reports more than the request asked for (docs/api.md "Budgets"). `cost` is null when the model (or
 * this case of it) has no price.
 */
export function estimateTaskCost(request: PricedRequest, record: ModelRecord, modelPrice: ModelPrice | null): UsageAndCost {
  const price = priceForTier(modelPrice, request.service_tier);
  const { usage, amount } = priced(request, record, price, {});
  return { usage, cost: amount === undefined || !price ? null : { amount, currency: price.currency, estimated: true } };
}

/**
 * The final figure when a task ends: from what the platform reported it billed (`reported`: V's output tokens, a
 * duration or image count where the platform's answer carries one), else from the request.
 *
 * `billed` says whether the platform bills the task's job; a success always is. A task that failed or was
 * cancelled costs zero when no job of it was left to the platform to bill: none was created, the one created
 * failed upstream (the platforms do not bill a failed job, docs/reference/prices.md), or the platform accepted its
 * cancel (V, a queued job). One whose job could not be stopped — cancelled by its client or ended by its deadline
 * on a platform without a cancel (T, B), or on V once running — is billed like a success by the platform, and
 * costs what its job does: from what the platform reported, else from the request (the estimate's figure).
 */
export function finalTaskCost(
  request: PricedRequest,
  record: ModelRecord,
  modelPrice: ModelPrice | null,
  reported: ReportedUsage,
  outcome: TaskOutcome,
  billed: boolean = outcome === 'success',
): UsageAndCost {
  // A tier's request is billed at that tier's price, or has none (pricing/price.ts priceForTier).
  const price = priceForTier(modelPrice, request.service_tier);
  if (outcome !== 'success' && !billed) {
    const usage: TaskUsage = request.kind === 'video' ? { seconds: 0 } : { images: 0 };
    if (price?.perToken) usage.tokens = 0;
    return { usage, cost: price ? { amount: 0, currency: price.currency, estimated: false } : null };
  }
  const { usage, amount } = priced(request, record, price, reported);
  return { usage, cost: amount === undefined || !price ? null : { amount, currency: price.currency, estimated: false } };
}

/** The JSON form of a cost (spec: `{ "amount", "currency", "estimated" }`, amount in decimal units). */
export function costJson(cost: TaskCost | null): { amount: number; currency: Currency; estimated: boolean } | null {
  return cost && { amount: decimalOf(cost.amount), currency: cost.currency, estimated: cost.estimated };
}
