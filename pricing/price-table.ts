/**
 * The deployment's prices: the platforms' published prices (given by the caller: tasks/billing.ts reads them from the
 * platform registry), with the operator's PRICES_FILE over them, and `TaskPricing`, the interface that prices a task.
 *
 * PRICES_FILE is a JSON object keyed by public model id; an entry replaces the model's price wholesale, and null
 * withdraws it (the model then shows `"price": null` and its tasks have no cost). Amounts are decimals of the
 * currency (up to 6 places); keys of the tables are resolutions, qualities or sizes, `*` for any other:
 *
 *   {
 *     "vendor-video-1-0-pro-250528": {
 *       "currency": "CNY", "source": "contract 2026-11",
 *       "per_token": { "per_million": 15, "tokens_per_second": { "480p": 9720, "720p": 22560, "1080p": 48960 } }
 *     },
 *     "VQ1": { "currency": "CNY", "source": "…", "per_second": { "1080p": 0.5 } },
 *     "I4YG1": { "currency": "CNY", "source": "…", "per_image": { "*": 0.2 } },
 *     "GV-3.1": { "currency": "USD", "source": "…", "per_second": { "720p": { "silent": 0.1, "sound": 0.15 } } },
 *     "VendorH-2.3": null
 *   }
 *
 * Anything wrong in it is a start-up ConfigError naming PRICES_FILE and the entry's path.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Catalogue, ModelRecord } from '../core/catalogue';
import { configError, optionalString, parseEnv } from '../core/config';
import type { GenerationRequest, ReportedUsage } from '../core/task';
import { estimateTaskCost, finalTaskCost, pricedRequest, type PricedRequest, type TaskOutcome, type UsageAndCost } from './cost';
import { CURRENCIES, decimalOf, hasMicroPrecision, micros, type BillingRates, type ModelPrice, type Rate } from './price';

export const PRICES_FILE_VARIABLE = 'PRICES_FILE';

/** PRICES_FILE: read by the API (task costs, `GET /v1/models`) and by whatever settles costs. */
export const pricesEnv = z.object({ [PRICES_FILE_VARIABLE]: optionalString });

const amount = z.number().refine(hasMicroPrecision, { message: 'must be a non-negative amount with at most 6 decimal places' });
const rate = z.union([amount, z.strictObject({ silent: amount, sound: amount })]);
const rateTable = z.record(z.string().min(1), rate);

const billing = {
  per_second: rateTable.optional(),
  per_image: z.record(z.string().min(1), amount).optional(),
  per_token: z
    .strictObject({ per_million: rate, tokens_per_second: z.record(z.string().min(1), z.number().positive()).optional() })
    .optional(),
};
const someBilling = (p: { per_second?: unknown; per_image?: unknown; per_token?: unknown }) =>
  Boolean(p.per_second || p.per_image || p.per_token);

/** A tier's rates (`flex`: platform V's offline tier), in the entry's currency; its own source where it has one. */
const tierEntry = z
  .strictObject({ source: z.string().min(1).optional(), ...billing })
  .refine(someBilling, { message: 'give per_second, per_image or per_token' });

/** One PRICES_FILE entry (decimal amounts); at least one way of billing. */
const priceEntry = z
  .strictObject({
    currency: z.enum(CURRENCIES),
    source: z.string().min(1),
    ...billing,
    tiers: z.strictObject({ flex: tierEntry.optional() }).optional(),
  })
  .refine(someBilling, { message: 'give per_second, per_image or per_token' });

export const pricesFileSchema = z.record(z.string().min(1), priceEntry.nullable());

export type PriceEntry = z.infer<typeof priceEntry>;

function toRate(r: z.infer<typeof rate>): Rate {
  return typeof r === 'number' ? micros(r) : { silent: micros(r.silent), sound: micros(r.sound) };
}

function mapValues<A, B>(table: Record<string, A>, f: (a: A) => B): Record<string, B> {
  return Object.fromEntries(Object.entries(table).map(([k, v]) => [k, f(v)]));
}

type BillingEntry = Pick<PriceEntry, 'per_second' | 'per_image' | 'per_token'>;

/** A PRICES_FILE entry (decimals) → a ModelPrice (micros). */
export function fromPriceEntry(e: PriceEntry): ModelPrice {
  const flex = e.tiers?.flex;
  return {
    currency: e.currency,
    source: e.source,
    ...ratesOf(e),
    ...(flex ? { tiers: { flex: { ...(flex.source ? { source: flex.source } : {}), ...ratesOf(flex) } } } : {}),
  };
}

function ratesOf(e: BillingEntry): BillingRates {
  return {
    ...(e.per_second ? { perSecond: mapValues(e.per_second, toRate) } : {}),
    ...(e.per_image ? { perImage: mapValues(e.per_image, micros) } : {}),
    ...(e.per_token
      ? {
          perToken: {
            perMillion: toRate(e.per_token.per_million),
            ...(e.per_token.tokens_per_second ? { tokensPerSecond: e.per_token.tokens_per_second } : {}),
          },
        }
      : {}),
  };
}

function rateJson(r: Rate): number | { silent: number; sound: number } {
  return typeof r === 'number' ? decimalOf(r) : { silent: decimalOf(r.silent), sound: decimalOf(r.sound) };
}

/** A ModelPrice as `GET /v1/models` shows it: the same shape PRICES_FILE takes, amounts in decimal units. */
export function priceJson(p: ModelPrice): PriceEntry {
  const flex = p.tiers?.flex;
  return {
    currency: p.currency,
    source: p.source,
    ...ratesJson(p),
    ...(flex ? { tiers: { flex: { ...(flex.source ? { source: flex.source } : {}), ...ratesJson(flex) } } } : {}),
  };
}

function ratesJson(p: BillingRates): BillingEntry {
  return {
    ...(p.perSecond ? { per_second: mapValues(p.perSecond, rateJson) } : {}),
    ...(p.perImage ? { per_image: mapValues(p.perImage, decimalOf) } : {}),
    ...(p.perToken
      ? {
          per_token: {
            per_million: rateJson(p.perToken.perMillion),
            ...(p.perToken.tokensPerSecond ? { tokens_per_second: { ...p.perToken.tokensPerSecond } } : {}),
          },
        }
      : {}),
  };
}

/** Reads and validates the file PRICES_FILE names; every mistake names the variable and the entry. */
export function readPricesFile(path: string, knownModels: ReadonlySet<string>): Map<string, ModelPrice | null> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw configError(PRICES_FILE_VARIABLE, `${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = pricesFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw configError(PRICES_FILE_VARIABLE, `${path}: ${issue.path.join('.') || '(file)'}: ${issue.message}`);
  }
  const out = new Map<string, ModelPrice | null>();
  for (const [id, entry] of Object.entries(parsed.data)) {
    if (!knownModels.has(id)) throw configError(PRICES_FILE_VARIABLE, `${path}: ${id}: no such model in the catalogue`);
    out.set(id, entry && fromPriceEntry(entry));
  }
  return out;
}

/**
 * Prices for the catalogue's models and the task-pricing interface. A model no platform price file lists and
 * the operator's file does not name has no price.
 */
export class TaskPricing {
  private readonly prices: ReadonlyMap<string, ModelPrice | null>;

  constructor(
    private readonly catalogue: Catalogue,
    prices: ReadonlyMap<string, ModelPrice | null>,
  ) {
    this.prices = prices;
  }

  /** The published prices with PRICES_FILE (when `env` names one) over them. */
  static load(catalogue: Catalogue, env: NodeJS.ProcessEnv, published: ReadonlyMap<string, ModelPrice | null>): TaskPricing {
    const file = parseEnv(pricesEnv, env)[PRICES_FILE_VARIABLE];
    const prices = new Map(published);
    if (file) for (const [id, p] of readPricesFile(file, new Set(catalogue.entries.map((e) => e.id)))) prices.set(id, p);
    return new TaskPricing(catalogue, prices);
  }

  /** The model's price, or null when none is known. */
  priceOf(modelId: string): ModelPrice | null {
    return this.prices.get(modelId) ?? null;
  }

  private record(request: PricedRequest): ModelRecord {
    const record = this.catalogue.find(request.kind, request.model);
    if (!record) throw new Error(`pricing: no ${request.kind} model ${request.model} in the catalogue`);
    return record;
  }

  /**
   * The estimate of a validated request (cost.ts estimateTaskCost): what the API shows while the task runs and
   * what a budget reserves. Takes the request as validated (GenerationRequest) or its price-deciding fields.
   * Throws for a model the catalogue does not list.
   */
  estimateTaskCost(request: GenerationRequest | PricedRequest): UsageAndCost {
    const priced = pricedRequest(request);
    return estimateTaskCost(priced, this.record(priced), this.priceOf(priced.model));
  }

  /**
   * Why a request of a priced model has no estimate (`estimateTaskCost` gave null cost), in words for a 402: the
   * keys the price lists and what the request gave for them. Undefined when the model has no price at all.
   */
  unpricedCase(request: GenerationRequest | PricedRequest): string | undefined {
    const priced = pricedRequest(request);
    const price = this.priceOf(priced.model);
    if (!price) return undefined;
    const keys = (table: Readonly<Record<string, unknown>> | undefined) => Object.keys(table ?? {}).join(', ');
    if (priced.kind === 'image') {
      const given = priced.quality ?? priced.size;
      return `is priced per image by quality or size (${keys(price.perImage)}), and this request ${given === undefined ? 'gives neither: send quality' : `asks for '${given}', which is not listed`}`;
    }
    const table = price.perSecond ?? price.perToken?.tokensPerSecond;
    return `is priced by resolution (${keys(table)}), and this request ${priced.resolution === undefined ? 'gives none: send resolution' : `asks for '${priced.resolution}', which is not listed`}`;
  }

  /**
   * The final figure of an ended task (cost.ts finalTaskCost): `reported` is what the platform said it billed
   * (GenerationResult.usage; `{}` when it said nothing), `outcome` how the task ended, `billed` whether the
   * platform bills its job (by default only a success's).
   */
  finalTaskCost(request: GenerationRequest | PricedRequest, reported: ReportedUsage, outcome: TaskOutcome, billed?: boolean): UsageAndCost {
    const priced = pricedRequest(request);
    return finalTaskCost(priced, this.record(priced), this.priceOf(priced.model), reported, outcome, billed);
  }
}
