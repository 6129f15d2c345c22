/**
 * A model's price as data, and money as exact integers. Pure: no I/O, no Temporal, no HTTP, no platform.
 *
 * Every amount is an integer number of micro-units of its currency (1 = 0.000001 USD or CNY), so sums and
 * comparisons are exact; `micros()` converts the decimals people write (price pages, PRICES_FILE) and
 * `decimalOf()` converts back for JSON.
 */

export const CURRENCIES = ['USD', 'CNY'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** An integer amount of micro-units of a currency (1 = 0.000001). */
export type Micros = number;

export const MICROS_PER_UNIT = 1_000_000;

/** A rate that differs with sound: the platform bills a video with audio at `sound`, one without at `silent`. */
export interface SoundRates {
  readonly silent: Micros;
  readonly sound: Micros;
}

/** A rate, the same with or without sound, or one per case. */
export type Rate = Micros | SoundRates;

/**
 * Per-token billing (platform V: Ark bills Seedance by the output tokens it reports as `usage.completion_tokens`).
 * `tokensPerSecond` lets an estimate be made before the platform reports its figure (Ark's formula is
 * width × height × fps × seconds / 1024, so the tokens of one second depend on the resolution); without it, a
 * per-token model's estimate has no cost.
 */
export interface TokenRate {
  /** The price of one million tokens. */
  readonly perMillion: Rate;
  /**
   * Tokens one second of video costs at most, by resolution (lower case): the largest frame of that resolution,
   * whatever the ratio, so that an estimate (what a budget reserves) is an upper bound of the bill.
   */
  readonly tokensPerSecond?: Readonly<Record<string, number>>;
}

/** How a model bills, one way per kind of output. Keys of the tables are lower case; `*` matches any value not listed. */
export interface BillingRates {
  /** Video billed by output seconds, by resolution. */
  readonly perSecond?: Readonly<Record<string, Rate>>;
  /** Images billed per image, by quality (`standard`, `hd`, `2K`…) or size (`1024x1024`). */
  readonly perImage?: Readonly<Record<string, Micros>>;
  /** Video billed by the tokens the platform reports. */
  readonly perToken?: TokenRate;
}

/**
 * A price tier of a model (platform V's offline tier, `service_tier: "flex"`): its own rates in the model's
 * currency, and where they were read when that is not the model's source.
 */
export interface TierPrice extends BillingRates {
  readonly source?: string;
}

/** The price tiers a request can ask for besides the standard one. */
export const PRICE_TIERS = ['flex'] as const;
export type PriceTier = (typeof PRICE_TIERS)[number];

/**
 * What one model costs: one way of billing per kind of output, in one currency, with where it was read; and the
 * rates of its other tiers, where known. A request for a tier the price does not list has no price (never the
 * standard one's: an offline job is not billed at the online price by mistake).
 */
export interface ModelPrice extends BillingRates {
  readonly currency: Currency;
  /** The public page the price was read from (or the operator's note, for a PRICES_FILE entry). */
  readonly source: string;
  readonly tiers?: Readonly<Partial<Record<PriceTier, TierPrice>>>;
}

/**
 * The price a request of `tier` is billed at: the model's own for the standard tier (no tier, `standard`, `draft`),
 * the tier's rates for a listed tier, and null for a tier the price does not list.
 */
export function priceForTier(price: ModelPrice | null, tier: string | undefined): ModelPrice | null {
  if (!price || !(PRICE_TIERS as readonly string[]).includes(tier ?? '')) return price;
  const rates = price.tiers?.[tier as PriceTier];
  if (!rates) return null;
  return {
    currency: price.currency,
    source: rates.source ?? price.source,
    ...(rates.perSecond ? { perSecond: rates.perSecond } : {}),
    ...(rates.perImage ? { perImage: rates.perImage } : {}),
    ...(rates.perToken ? { perToken: rates.perToken } : {}),
  };
}

/**
 * The decimal places of a number as written: its shortest round-trip form (what JSON.parse read, for any number
 * written with up to 15 significant digits), `12.3456789` → 7, `5e-7` → 7, `1.5e3` → 0.
 */
function decimalPlaces(n: number): number {
  const [mantissa = '', exponent = '0'] = n.toString().toLowerCase().split('e');
  return Math.max(0, (mantissa.split('.')[1] ?? '').length - Number(exponent));
}

/** Decimal units (`0.5`, `15`) → exact micros; throws on a negative, non-finite or finer-than-micro amount. */
export function micros(decimal: number): Micros {
  if (!Number.isFinite(decimal) || decimal < 0) throw new RangeError(`${decimal} is not a non-negative finite amount`);
  if (decimalPlaces(decimal) > 6) throw new RangeError(`${decimal} has more than 6 decimal places`);
  const m = Math.round(decimal * MICROS_PER_UNIT);
  if (!Number.isSafeInteger(m)) throw new RangeError(`${decimal} is too large`);
  return m;
}

/** Whether `decimal` is an amount of money as the gateway counts it: non-negative, finite, at most 6 decimal places. */
export function hasMicroPrecision(decimal: number): boolean {
  try {
    micros(decimal);
    return true;
  } catch {
    return false;
  }
}

/** Micros → the decimal number shown in JSON (exact to 6 places: every micros value has a shortest decimal form). */
export function decimalOf(amount: Micros): number {
  return amount / MICROS_PER_UNIT;
}

/** The rate for sound or silence. */
export function rateFor(rate: Rate, sound: boolean): Micros {
  return typeof rate === 'number' ? rate : sound ? rate.sound : rate.silent;
}

/** `table[key]` case-insensitively, else `table['*']`. */
export function lookup<T>(table: Readonly<Record<string, T>> | undefined, key: string | undefined): T | undefined {
  if (!table) return undefined;
  if (key !== undefined) {
    const wanted = key.toLowerCase();
    for (const [k, v] of Object.entries(table)) if (k.toLowerCase() === wanted) return v;
  }
  return table['*'];
}
