/**
 * The admin API's bodies and answers, as zod schemas: the routes validate with them and the
 * OpenAPI document is built from them. Amounts are decimal currency units on the wire and integer micro-units in
 * the database (ledger/schema.ts).
 */
import { z } from 'zod';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhooks/url';
import { BUDGET_PERIODS, CURRENCIES } from '../ledger/schema';
import { hasMicroPrecision } from '../pricing/price';

/** Key ids as bootstrap keys have them (keys/api-keys.ts): they appear in logs and Temporal search attributes. */
export const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;
/** The largest budget: a billion units of its currency (far above any real one; keeps micro-units exact in a double). */
export const MAX_BUDGET_AMOUNT = 1_000_000_000;

export const budgetSchema = z
  .strictObject({
    amount: z
      .number()
      .refine(Number.isFinite, { message: 'must be a finite number' })
      .min(0, { message: 'must not be negative' })
      .max(MAX_BUDGET_AMOUNT, { message: `must be at most ${MAX_BUDGET_AMOUNT}` })
      // Money is counted in integer millionths (pricing/price.ts), as PRICES_FILE's amounts are: a finer amount is
      // refused rather than rounded.
      .refine(hasMicroPrecision, { message: 'must have at most 6 decimal places' })
      .describe('What the key may spend per period, in units of the currency (e.g. 25.5 USD), at most 6 decimal places'),
    currency: z
      .enum(CURRENCIES)
      .describe(
        'USD or CNY. A budget counts the spend of tasks priced in its own currency; changing the currency starts a budget in the new one from zero for the current period (what was spent in the old currency stays in usage, counted against no budget)',
      ),
    period: z.enum(BUDGET_PERIODS).describe('day and month are calendar periods in UTC; total never resets'),
  })
  .meta({ id: 'Budget' });

const limits = {
  models: z.array(z.string().min(1).max(128)).max(1000).describe('Model ids of GET /v1/models this key may use; absent or null: all'),
  rate_limit_rps: z
    .number()
    .min(0)
    .max(1_000_000)
    .describe('Requests per second per API replica (0 = unlimited); absent or null: KEY_RATE_LIMIT_RPS'),
  max_inflight: z.number().int().min(0).max(1_000_000).describe('Running tasks (0 = unlimited); absent or null: KEY_MAX_INFLIGHT'),
  max_streams: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .describe('Open event streams (GET /v1/generations/{task_id}/events) per API replica (0 = unlimited); absent or null: KEY_MAX_STREAMS'),
  weight: z
    .number()
    .positive()
    .max(1_000_000)
    .describe(
      "The key's share of free platform slots while tasks wait for capacity, relative to other waiting keys' (default 1: equal shares)",
    ),
  budget: budgetSchema,
  allow_unpriced: z
    .boolean()
    .describe(
      "With a budget: whether the key may use models its budget cannot price (no price, or a price in another currency); such tasks count at zero and the budget's state says how many. Default false: refused with 402 unpriced_model",
    ),
  webhook_url: z
    .string()
    .max(MAX_WEBHOOK_URL_LENGTH)
    .describe(
      "Where this key's tasks send their webhook events when a request names no webhook_url: https (or http to an origin of WEBHOOK_ALLOW_PRIVATE_ORIGINS), never a private host",
    ),
};

/** How long a rotated-out webhook secret keeps signing beside the new one, unless the PATCH says otherwise. */
export const DEFAULT_WEBHOOK_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;
/** The longest overlap a rotation may ask for: a week. */
export const MAX_WEBHOOK_SECRET_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

export const createKeySchema = z
  .strictObject({
    id: z.string().regex(KEY_ID, { message: 'must be 1 to 64 of A-Z a-z 0-9 _ . -' }).describe('The key id: unique, never reused'),
    models: limits.models.optional(),
    rate_limit_rps: limits.rate_limit_rps.optional(),
    max_inflight: limits.max_inflight.optional(),
    max_streams: limits.max_streams.optional(),
    weight: limits.weight.optional(),
    budget: limits.budget.optional(),
    allow_unpriced: limits.allow_unpriced.optional(),
    webhook_url: limits.webhook_url.optional(),
  })
  .meta({ id: 'CreateKeyRequest' });

/** PATCH: the fields given change; null clears one back to the default (all models, the global limits, no budget). */
export const updateKeySchema = z
  .strictObject({
    models: limits.models.nullable().optional(),
    rate_limit_rps: limits.rate_limit_rps.nullable().optional(),
    max_inflight: limits.max_inflight.nullable().optional(),
    max_streams: limits.max_streams.nullable().optional(),
    weight: limits.weight.nullable().optional(),
    budget: limits.budget.nullable().optional(),
    allow_unpriced: limits.allow_unpriced.optional(),
    webhook_url: limits.webhook_url.nullable().optional(),
    rotate_webhook_secret: z
      .literal(true)
      .optional()
      .describe(
        'true: the key gets a new webhook signing secret (GET /v1/webhooks/default/secret shows it); the old one keeps signing beside it for webhook_secret_overlap_seconds',
      ),
    webhook_secret_overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_WEBHOOK_SECRET_OVERLAP_SECONDS)
      .optional()
      .describe(
        `With rotate_webhook_secret: how long deliveries also carry the old secret's signature (default ${DEFAULT_WEBHOOK_SECRET_OVERLAP_SECONDS}, one day)`,
      ),
  })
  .refine((b) => b.webhook_secret_overlap_seconds === undefined || b.rotate_webhook_secret === true, {
    message: 'webhook_secret_overlap_seconds is only read with rotate_webhook_secret: true',
    path: ['webhook_secret_overlap_seconds'],
  })
  .meta({ id: 'UpdateKeyRequest' });

export const keyViewSchema = z
  .object({
    id: z.string(),
    object: z.literal('api_key'),
    source: z.enum(['bootstrap', 'admin']).describe('bootstrap: from API_KEYS or API_KEYS_FILE, read-only here'),
    models: z.array(z.string()).nullable(),
    rate_limit_rps: z.number().nullable(),
    max_inflight: z.number().nullable(),
    max_streams: z.number().nullable(),
    weight: z.number().describe("The key's share of free platform slots (default 1)"),
    budget: budgetSchema.nullable(),
    allow_unpriced: z.boolean().describe('Whether the budget lets through tasks it cannot price (counted at zero)'),
    webhook_url: z.string().nullable().describe("The key's default webhook URL; null: none"),
    created_at: z.number().int().nullable().describe('Unix seconds; null for a bootstrap key'),
    revoked_at: z.number().int().nullable().describe('Unix seconds when the key was revoked; null: it is live'),
    budget_state: z
      .object({
        period_start: z.string().describe('The budget period now counting: YYYY-MM-DD, YYYY-MM or total'),
        spent: z.number().describe('Committed in it: final costs, and the estimates of tasks still running'),
        remaining: z.number(),
      })
      .nullable()
      .optional()
      .describe('GET answers: the budget now (null: no budget)'),
  })
  .meta({ id: 'ApiKey' });

export const createdKeySchema = keyViewSchema
  .extend({ secret: z.string().describe('The key itself: shown this once, stored only as a digest') })
  .meta({ id: 'CreatedApiKey' });

export const keyListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(keyViewSchema),
    total: z.number().int().describe('Keys matching (every page)'),
    page: z.number().int(),
    page_size: z.number().int(),
    has_more: z.boolean(),
  })
  .meta({ id: 'ApiKeyList' });

export const deletedKeySchema = z
  .object({ id: z.string(), object: z.literal('api_key'), deleted: z.literal(true) })
  .meta({ id: 'DeletedApiKey' });
