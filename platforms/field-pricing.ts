/**
 * What each of a platform's own request fields (platforms/<id>/request-fields.ts) does to a task's price.
 *
 * A task is priced from the general fields only (pricing/cost.ts `PricedRequest`: duration, resolution,
 * generate_audio, n, size, quality). A platform field that changes what is made — T's `output_config.Duration`, B's
 * `audio` — would otherwise make a 10-second 1080P video with sound for the price of the 1-second silent 720p one
 * the general fields describe, and a platform that reports no usage of its own (T) would be settled at that price.
 * So every platform field is classified, and the classification is applied to every validated request
 * (`applyFieldPricing`, after the platform's rules):
 *
 * - `priced`: the field decides a general, priced field. Its value is carried into that field (so the estimate,
 *   the reservation and the final figure see it), and a request that gives both with different values is a 400
 *   naming the platform field: the gateway never guesses which of two contradictory prices the client meant.
 * - `conflicts`: the field overrides a general field that decides the output but not the price (T's
 *   `output_config.AspectRatio` over `ratio`): a contradiction is a 400 the same way; nothing is carried.
 * - `none`: no effect on the price, with the reason.
 *
 * test/unit/platforms/field-pricing.test.ts walks every platform's request schemas: a field (or a key of an
 * object field) without a classification fails it.
 */
import type { ModelRecord } from '../core/catalogue';
import type { GenerationRequest } from '../core/task';
import { RequestRuleError } from './rules';

/** The general fields a price is computed from (pricing/cost.ts PricedRequest, less kind and model). */
export type PricedField = 'duration' | 'resolution' | 'generate_audio' | 'n' | 'size' | 'quality';

export type FieldPricing =
  | {
      readonly priced: PricedField;
      /**
       * The platform value as the general field's value; undefined: this value asks for nothing the general
       * field would price (B's `audio: "false"`, the model's default). May throw a RequestRuleError for a value no
       * price can be found for.
       */
      readonly as: (value: unknown, entry: ModelRecord) => string | number | boolean | undefined;
    }
  | { readonly conflicts: string; readonly as?: (value: unknown, entry: ModelRecord) => string | number | boolean | undefined }
  | { readonly none: string };

/**
 * A platform's classification, by kind: keys are the request field names, or `field.Key` for a key of an object
 * field (T's `output_config.Duration`); an object field whose keys are classified is not classified itself.
 */
export interface FieldPricingTable {
  readonly video: Readonly<Record<string, FieldPricing>>;
  readonly image: Readonly<Record<string, FieldPricing>>;
}

/** The value at `path` (`field` or `field.Key`) of a request, or undefined. */
function valueAt(request: Record<string, unknown>, path: string): unknown {
  const [field, key] = path.split('.') as [string, string | undefined];
  const value = request[field];
  if (key === undefined) return value;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

const same = (a: unknown, b: unknown): boolean =>
  typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;

const shown = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : String(v));

/**
 * The request with every `priced` platform field carried into its general field; a platform field that
 * contradicts the general one (or another platform field deciding the same one) is a 400 naming it.
 */
export function applyFieldPricing(
  table: Readonly<Record<string, FieldPricing>>,
  entry: ModelRecord,
  request: GenerationRequest,
): GenerationRequest {
  const out: Record<string, unknown> = { ...request };
  /** Which platform field set a general field, for the message of a later contradiction. */
  const setBy = new Map<string, string>();
  for (const [path, pricing] of Object.entries(table)) {
    if ('none' in pricing) continue;
    const raw = valueAt(request, path);
    if (raw === undefined) continue;
    const value = pricing.as ? pricing.as(raw, entry) : raw;
    if (value === undefined) continue;
    const general = 'priced' in pricing ? pricing.priced : pricing.conflicts;
    const current = out[general];
    if (current !== undefined && !same(current, value)) {
      const other = setBy.get(general) ?? general;
      throw new RequestRuleError(
        path,
        `${path} ${shown(raw)} contradicts ${other} ${shown(current)}: both decide the ${general === 'ratio' ? 'aspect ratio' : general} of what ${entry.id} makes${'priced' in pricing ? ', and so its price' : ''}; send one of them`,
      );
    }
    if ('priced' in pricing && current === undefined) {
      out[general] = value;
      setBy.set(general, path);
    }
  }
  return out as GenerationRequest;
}
