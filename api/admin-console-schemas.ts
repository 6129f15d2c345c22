/**
 * The admin API's operator views, as zod schemas (the routes validate with them, GET /openapi.json is built from
 * them): console sessions, every key's tasks, a task's story, cancel and replay, the platforms' accounts, the
 * webhook deliveries and the overview. Page tokens are Temporal's own, opaque.
 */
import { z } from 'zod';
import { GENERATION_STATUSES } from '../core/search-attributes';
import { FAILURE_REASONS } from '../core/task';
import { KEY_ID } from './admin-schemas';

const ID = /^[A-Za-z0-9._-]{1,128}$/;
const pageToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,4096}$/, { message: 'must be a next_page_token this API gave' })
  .optional()
  .describe('The next_page_token of the previous page; absent: the first page');
const pageSize = (max: number, def: number) =>
  z
    .string()
    // The pattern itself excludes 0, so the OpenAPI document says what the check refuses (no leading zero).
    .regex(/^[1-9]\d{0,3}$/, { message: 'must be a whole number from 1, without leading zeros' })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, { message: 'must be at least 1' })
        .max(max, { message: `must be at most ${max}` }),
    )
    .optional()
    .transform((v) => v ?? def)
    .describe(`1 to ${max} (default ${def})`);
const instant = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date and time (2026-05-01T10:00:00Z)' });

export const signInSchema = z
  .strictObject({ token: z.string().min(1).max(1024).describe('The admin token (ADMIN_TOKEN)') })
  .meta({ id: 'SignInRequest' });

export const sessionSchema = z
  .object({
    object: z.literal('console_session'),
    expires_at: z.string().describe('When the session ends (ISO 8601)'),
    csrf_token: z.string().describe('Send it as X-CSRF-Token with every request of this session that changes something'),
  })
  .meta({ id: 'ConsoleSession' });

export const sessionStateSchema = z
  .object({
    object: z.literal('console_session'),
    signed_in: z.boolean().describe('Whether the request’s cookie holds a live console session'),
    expires_at: z.string().optional(),
    csrf_token: z.string().optional().describe('With signed_in: the session’s CSRF token'),
  })
  .meta({ id: 'ConsoleSessionState' });

export const keyListQuerySchema = z.strictObject({
  page: z
    .string()
    .regex(/^[1-9]\d{0,5}$/, { message: 'must be a whole number from 1, without leading zeros' })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: 'must be at least 1' }).max(100_000, { message: 'must be at most 100000' }))
    .optional()
    .transform((v) => v ?? 1)
    .describe('1-based page number'),
  page_size: pageSize(500, 100),
  search: z.string().max(64).optional().describe('Only keys whose id contains this text'),
  budgeted: z.enum(['true', 'false']).optional().describe('true: only keys with a budget; false: only keys without'),
  state: z
    .enum(['live', 'revoked', 'all'])
    .optional()
    .describe('live (default): the keys that work; revoked: the revoked ones, with revoked_at (their ids are never reused); all: both'),
});

/** The filters of the operator's task list (and of a replay's selection). */
const taskFilterFields = {
  status: z.enum(GENERATION_STATUSES).optional().describe('As GenerationStatus: failed is a real failure, cancelled a client’s cancel'),
  model: z.string().regex(ID, { message: 'must be a model id' }).optional(),
  platform: z
    .string()
    .regex(/^[A-Z]{1,8}$/, { message: 'must be a platform id (T, B, V…)' })
    .optional(),
  key: z.string().regex(KEY_ID, { message: 'must be a key id' }).optional(),
  failure_reason: z.enum(FAILURE_REASONS).optional(),
  account: z.string().regex(ID, { message: 'must be an account id' }).optional().describe('The platform account owning the job'),
  since: instant.optional().describe('Started at or after (ISO 8601)'),
  until: instant.optional().describe('Started before (ISO 8601)'),
};

export const taskListQuerySchema = z.strictObject({ ...taskFilterFields, page_token: pageToken, page_size: pageSize(200, 50) });

export const replaySchema = z
  .strictObject({
    task_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,128}$/, { message: 'must be a task id' })
      .optional()
      .describe('Replay this task only'),
    filter: z
      .strictObject(taskFilterFields)
      .optional()
      .describe(
        'Replay the failed tasks these narrow (without failure_reason: only an outage’s reasons). The same filters as the task list: a status other than failed matches no task to replay',
      ),
    dry_run: z.boolean().optional().describe('true: only say which tasks would be replayed (the preview)'),
    limit: z.number().int().min(1).max(500).optional().describe('At most this many tasks (default 100)'),
  })
  .refine((b) => b.task_id !== undefined || b.filter !== undefined, { message: 'give task_id or filter', path: ['task_id'] })
  .meta({ id: 'ReplayRequest' });

const cost = z.object({ amount: z.number(), currency: z.string(), estimated: z.boolean() }).nullable();

export const operatorTaskSchema = z
  .object({
    task_id: z.string(),
    key: z.string(),
    status: z.enum(GENERATION_STATUSES),
    model: z.string(),
    platform: z.string(),
    kind: z.string(),
    failure_reason: z.string().nullable(),
    error: z.object({ message: z.string(), code: z.string() }).nullable(),
    cost,
    upstream_task_id: z.string().nullable(),
    upstream_account: z.string().nullable(),
    created_at: z.string(),
    closed_at: z.string().nullable(),
    runs: z.number().int().describe('Runs of the task: more than 1 when it was replayed (each replay is a new run of the same task id)'),
  })
  .meta({ id: 'OperatorTask' });

export const operatorTaskListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(operatorTaskSchema),
    total: z.number().int().describe('Tasks matching (a replayed task counts once)'),
    next_page_token: z.string().nullable(),
  })
  .meta({ id: 'OperatorTaskList' });

const deliveryEvent = z
  .object({})
  .catchall(z.unknown())
  .describe('One event and its attempts (as GET /v1/generations/{task_id}/deliveries)');

export const operatorTaskDetailSchema = operatorTaskSchema
  .extend({
    record: z.object({}).catchall(z.unknown()).describe('The task record exactly as its key reads it'),
    timeline: z
      .array(z.object({ state: z.string(), at: z.string(), run: z.number().int(), run_id: z.string() }))
      .describe('Every run’s states, oldest run first: a replayed task keeps the failed run’s story'),
    run_id: z.string(),
    deliveries: z.object({ webhook_url: z.string().optional(), events: z.array(deliveryEvent) }).nullable(),
    temporal_ui_url: z.string().nullable().describe('The workflow in the Temporal Web UI (TEMPORAL_UI_URL); null: none configured'),
  })
  .meta({ id: 'OperatorTaskDetail' });

export const replayReportSchema = z
  .object({
    object: z.literal('replay'),
    dry_run: z.boolean(),
    replayed: z.array(z.string()).describe('Replayed (or, with dry_run, would be)'),
    skipped: z.array(z.object({ task_id: z.string(), why: z.string() })),
    truncated: z.boolean().describe('More tasks matched than limit'),
  })
  .meta({ id: 'ReplayReport' });

/** One account's slots and queue (capacity/slots.ts). */
const accountCapacitySchema = z.object({
  limit: z.number().int().nullable().describe('How many jobs it may run at once now (null: unlimited)'),
  limit_source: z
    .enum(['configured', 'learned', 'unlimited'])
    .describe("learned: lowered from the platform's concurrency refusals (raised slowly as jobs succeed)"),
  configured: z.number().int().nullable(),
  learned: z.number().int().nullable(),
  in_use: z.number().int().describe('Slots held: jobs running, or about to be created'),
  waiting: z.number().int().describe('Tasks waiting for a slot this account could give them'),
  oldest_waiting_since: z.string().nullable().describe('When the longest-waiting of them began to wait'),
});

export const accountListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(
      z.object({
        platform: z.string(),
        account: z.string(),
        state: z.enum(['in_rotation', 'throttled', 'out']),
        weight: z.number(),
        out_reason: z.string().nullable().describe("The platform's code for the refusal that took the account out"),
        out_detail: z.string().nullable().describe("The platform's own words for that refusal (its error message)"),
        out_since: z.string().nullable(),
        out_until: z.string().nullable(),
        throttled_until: z.string().nullable(),
        jobs_in_flight: z.number().int(),
        capacity: accountCapacitySchema.nullable().describe('Its slots and queue (null: no task has used it since the database was made)'),
        workers: z.array(z.object({ worker: z.string(), state: z.string(), updated_at: z.string() })),
        recent_refusals: z.array(z.object({ at: z.string(), kind: z.string(), reason: z.string(), worker: z.string() })),
      }),
    ),
  })
  .meta({ id: 'AccountList' });

export const accountParamsSchema = z.object({
  platform: z
    .string()
    .regex(/^[A-Z]{1,8}$/, { message: 'must be a platform id (T, B, V…)' })
    .describe('The platform'),
  account: z.string().regex(ID, { message: 'must be an account id' }).describe('The account, as GET /admin/v1/accounts names it'),
});

export const probeAnswerSchema = z
  .object({
    object: z.literal('account_probe'),
    platform: z.string(),
    account: z.string(),
    requested_at: z.string(),
  })
  .meta({ id: 'AccountProbe' });

export const DELIVERY_STATES = ['pending', 'retrying', 'given_up'] as const;

export const deliveryListQuerySchema = z.strictObject({
  state: z
    .enum(DELIVERY_STATES)
    .optional()
    .describe(
      'pending: being sent; retrying: an event failed and waits for its next attempt; given_up: an event expired or the receiver answered 410',
    ),
  page_token: pageToken,
  page_size: pageSize(200, 50),
});

export const deliveryListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(
      z.object({
        task_id: z.string(),
        key: z.string(),
        webhook_url: z.string(),
        state: z.enum(DELIVERY_STATES).or(z.literal('delivered')),
        pending_since: z.string().nullable(),
        events: z.array(deliveryEvent),
      }),
    ),
    next_page_token: z.string().nullable(),
  })
  .meta({ id: 'DeliveryList' });

export const overviewQuerySchema = z.strictObject({
  window: z.enum(['hour', 'day']).optional().describe('The last hour (default) or day'),
});

export const overviewSchema = z
  .object({
    object: z.literal('overview'),
    window: z.enum(['hour', 'day']),
    since: z.string(),
    tasks: z.array(z.object({ platform: z.string(), status: z.string(), count: z.number().int() })),
    failing: z.array(z.object({ reason: z.string(), count: z.number().int() })).describe('Failed in the window, by FailureReason'),
    webhooks: z.object({ pending: z.number().int(), retrying: z.number().int() }).describe('Events not yet delivered'),
    accounts_out: z.array(z.object({ platform: z.string(), account: z.string(), state: z.string(), out_reason: z.string().nullable() })),
    tasks_waiting: z.number().int().describe('Tasks waiting for platform capacity now, every platform'),
  })
  .meta({ id: 'Overview' });
