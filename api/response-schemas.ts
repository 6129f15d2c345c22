/**
 * Response shapes as zod schemas. They are the source of the OpenAPI document's responses, and the contract
 * tests parse real responses with them, so the document and the server cannot drift apart.
 */
import { z } from 'zod';
import { PLATFORM_DEFINITIONS } from '../platforms';
import { CURRENCIES } from '../pricing/price';
import { listQuerySchema } from './routes/tasks';

const resultItem = z
  .object({
    url: z.string().describe("The gateway's link to its kept copy (fresh on every read, valid RESULT_URL_TTL), or the platform's own link"),
    stored: z.literal(false).optional().describe("Present when the copy failed: url is the platform's temporary link"),
  })
  .meta({ id: 'ResultItem' });

/** Spec 2.3's V token usage, and the gateway's units of every task (docs/api.md "Usage and cost"). */
export const usageSchema = z
  .object({
    completion_tokens: z.number().int().optional().describe('Platform V: the tokens it reported'),
    total_tokens: z.number().int().optional().describe('Platform V: the tokens it reported'),
    seconds: z.number().optional().describe('Video: seconds generated (or, for an estimate, requested)'),
    images: z.number().int().optional().describe('Images generated (or requested)'),
    tokens: z.number().int().optional().describe('Where the platform bills tokens: what it reported (or an estimate)'),
  })
  .meta({ id: 'Usage' });

const currencySchema = z.enum(CURRENCIES);

export const costSchema = z
  .object({
    amount: z.number().min(0).describe('In units of the currency, exact to 6 decimal places'),
    currency: currencySchema,
    estimated: z.boolean().describe('True while the task runs (the estimate it was accepted at); false once it has ended'),
  })
  .nullable()
  .meta({ id: 'Cost', description: 'Null when the model has no known price' });

const rateSchema = z.union([z.number(), z.object({ silent: z.number(), sound: z.number() })]);

const billingRates = {
  per_second: z.record(z.string(), rateSchema).optional().describe('Video: per second, by resolution (`*`: any other)'),
  per_image: z.record(z.string(), z.number()).optional().describe('Per image, by quality or size (`*`: any other)'),
  per_token: z
    .object({ per_million: rateSchema, tokens_per_second: z.record(z.string(), z.number()).optional() })
    .optional()
    .describe('Per million tokens the platform reports; tokens_per_second (by resolution) for estimates'),
};

export const priceSchema = z
  .object({
    currency: currencySchema,
    source: z.string().describe("The public page the price was read from, or the operator's note (PRICES_FILE)"),
    ...billingRates,
    tiers: z
      .object({
        flex: z
          .object({ source: z.string().optional(), ...billingRates })
          .optional()
          .describe('Platform V’s offline tier (service_tier flex): its own rates in the same currency; absent: flex tasks have no price'),
      })
      .optional(),
  })
  .nullable()
  .meta({ id: 'Price', description: 'What the model costs; null when no price is known (docs/api.md "Usage and cost")' });

export const servedBySchema = z
  .object({
    platform: z.string().describe("The member's platform id"),
    model: z.string().describe("The member's catalogue model id"),
  })
  .meta({ id: 'ServedBy', description: 'The member of a route (a catalogue model on one platform) that created the task’s job' });

/** Spec 2.3, with platform V's raw extras. */
export const generationResultSchema = z
  .object({
    created: z.number().int().describe('Unix timestamp in seconds'),
    data: z.array(resultItem).min(1),
    task_id: z.string().describe('The task behind this result (query it with GET /v1/generations/{task_id})'),
    video_url: z.string().optional().describe('Platform V: result video URL'),
    duration: z.number().optional().describe('Platform V: length in seconds'),
    ratio: z.string().optional().describe('Platform V: aspect ratio'),
    usage: usageSchema.optional().describe("What the task used (Platform V's token usage among it)"),
    cost: costSchema.optional().describe('What the task cost (final)'),
    last_frame_url: z.string().optional().describe('Platform V with return_last_frame: last frame image URL'),
    served_by: servedBySchema.optional().describe('A task started with a route: the member that served it'),
  })
  .meta({ id: 'GenerationResult', description: 'Spec 2.3' });

export const taskErrorSchema = z
  .object({
    message: z.string(),
    code: z
      .string()
      .describe(
        'content_policy, invalid_request, upstream_failed, upstream_unavailable, upstream_auth, insufficient_balance, deadline_exceeded, capacity_timeout, expired, cancelled, terminated',
      ),
    upstream_code: z.string().optional().describe("The platform's own error code"),
  })
  .meta({ id: 'TaskError' });

/** Spec 2.4. */
export const taskRecordSchema = z
  .object({
    task_id: z.string(),
    status: z.enum(['pending', 'running', 'success', 'failed']),
    model: z.string(),
    message: z.string().optional().describe('In submission responses: how to poll; while a task waits for platform capacity: since when'),
    waiting: z
      .object({
        reason: z.literal('platform_capacity'),
        since: z.number().int().describe('Unix seconds'),
      })
      .optional()
      .describe(
        'A pending task waiting for a slot: every platform account that can serve it is running as many jobs as it may; it starts when one frees a slot',
      ),
    progress: z
      .string()
      .regex(/^\d{1,3}%$/)
      .optional()
      .describe('While running'),
    created: z.number().int().optional().describe('On success'),
    data: z.array(resultItem).optional().describe('On success; data[0].url is the result'),
    error: taskErrorSchema.optional().describe('On failure'),
    video_url: z.string().optional(),
    duration: z.number().optional(),
    ratio: z.string().optional(),
    usage: usageSchema.optional().describe('What the task used: the estimate while it runs, the final figure once it has ended'),
    cost: costSchema.optional().describe('What the task costs: estimated while it runs, final once it has ended'),
    last_frame_url: z.string().optional(),
    served_by: servedBySchema
      .nullable()
      .optional()
      .describe(
        'Only for a task started with a route (its `model` is the route’s name): the member that created its job; null until its submit has answered, or when none did',
      ),
  })
  .meta({ id: 'TaskRecord', description: 'Spec 2.4' });

export const taskListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(taskRecordSchema),
    page: z.number().int(),
    page_size: z.number().int(),
    total: z.number().int(),
    has_more: z.boolean(),
  })
  .meta({ id: 'TaskList', description: 'Running tasks first, then finished tasks by most recent close time' });

const modelLimitsShape = {
  durations: z.union([z.object({ values: z.array(z.number()) }), z.object({ min: z.number(), max: z.number() })]).optional(),
  resolutions: z.array(z.string()).optional(),
  ratios: z.array(z.string()).describe('Aspect ratios; empty when the model takes none'),
  sizes: z
    .array(z.string())
    .optional()
    .describe(
      'Image models: the WxH sizes of the spec size table whose ratio the model takes (`size` also takes the ratios, and any other WxH of one of them)',
    ),
  qualities: z.array(z.string()).optional(),
  max_images: z.number().int().optional(),
  max_prompt_length: z.number().int().optional().describe('Longest prompt the model takes, in characters'),
  max_reference_images: z.number().int().optional().describe('Most reference images the model takes'),
  capabilities: z.array(z.string()),
  source: z
    .string()
    .optional()
    .describe(
      "Where the model's facts come from (evidence tags, or what the operator's models file set); absent: the spec and the platform's official docs",
    ),
};
const modelLimitsSchema = z.object(modelLimitsShape).meta({ id: 'ModelLimits' });

/** Only for a key with a budget: whether the budget can count the model's tasks (docs/api.md "Budgets"). */
const budgetFitSchema = z
  .object({
    countable: z.boolean().describe("Whether this key's budget can price the model's tasks in its currency"),
    reason: z
      .string()
      .optional()
      .describe(
        'Why not: no price, or a price in another currency; such tasks are 402 unpriced_model unless the key allows unpriced models',
      ),
    allowed_unpriced: z.boolean().optional().describe('The key may use it anyway (allow_unpriced): its tasks count at zero'),
  })
  .optional()
  .describe('Only for a key with a budget: whether the budget can count this model');

export const modelSchema = z
  .object({
    id: z.string(),
    object: z.literal('model'),
    owned_by: z
      .enum(PLATFORM_DEFINITIONS.map((p) => p.id) as [string, ...string[]])
      .describe(`The platform's id: ${PLATFORM_DEFINITIONS.map((p) => `${p.id} = ${p.product}`).join('; ')}`),
    platform_name: z
      .enum(PLATFORM_DEFINITIONS.map((p) => p.name) as [string, ...string[]])
      .describe('The platform in words, e.g. "platform T"'),
    type: z.enum(['video', 'image']).describe('The first of kinds (video before image)'),
    kinds: z.array(z.enum(['video', 'image'])).describe('What the model generates; the top-level limits are those of the first kind'),
    ...modelLimitsShape,
    video: modelLimitsSchema.optional().describe('Only for a model offered for both kinds: its video limits'),
    image: modelLimitsSchema.optional().describe('Only for a model offered for both kinds: its image limits'),
    price: priceSchema,
    default_action: z
      .enum(['image_to_video', 'by_input'])
      .optional()
      .describe(
        'Video models: what a request without `action` is. `image_to_video` (platform B: send action "text_to_video" for text alone); `by_input`: image-to-video when it carries an input image, else text-to-video',
      ),
    budget: budgetFitSchema,
  })
  .meta({ id: 'Model' });

export const routeModelSchema = z
  .object({
    id: z.string().describe('The route’s name: send it as `model` wherever a model is taken'),
    object: z.literal('model'),
    owned_by: z.literal('route').describe('A route: a public name served by catalogue models on several platforms'),
    platform_name: z.string().describe('The platforms it spans, in words'),
    type: z.enum(['video', 'image']),
    kinds: z.array(z.enum(['video', 'image'])),
    ...modelLimitsShape,
    route: z.object({
      policy: z
        .enum(['priority', 'cheapest', 'weighted'])
        .describe(
          'priority: the first member that can take the request; cheapest: by price, among members with a price (the order breaks ties); weighted: drawn by weight',
        ),
      members: z
        .array(
          z.object({
            model: z.string(),
            platform: z.string(),
            weight: z.number().int(),
            price: priceSchema,
            source: z.string().optional().describe('Why this model is the route’s vendor model, with its evidence tags'),
          }),
        )
        .describe(
          'In the route’s order; the limits above are every value some member takes, and each member checks a request against its own',
        ),
    }),
    price: z.null().describe('A route has no price of its own: see each member’s'),
    budget: budgetFitSchema,
  })
  .meta({ id: 'RouteModel' });

export const modelListSchema = z
  .object({ object: z.literal('list'), data: z.array(z.union([modelSchema, routeModelSchema])) })
  .meta({ id: 'ModelList' });

export const errorSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.string().nullable(),
      code: z.string().nullable(),
      task_id: z.string().optional().describe('The task concerned, when there is one (sync failures and time-outs)'),
    }),
  })
  .meta({ id: 'Error' });

export { listQuerySchema };
