/**
 * The admin API's operator views in GET /openapi.json (api/openapi.ts assembles the document; the schemas are
 * api/admin-console-schemas.ts): console sessions, every key's tasks, cancel and replay, the platforms' accounts,
 * webhook deliveries and the overview. Each takes the admin token, or a console session (its cookie, and
 * X-CSRF-Token on a request that changes something).
 */
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  accountListSchema,
  accountParamsSchema,
  probeAnswerSchema,
  deliveryListQuerySchema,
  deliveryListSchema,
  operatorTaskDetailSchema,
  operatorTaskListSchema,
  overviewQuerySchema,
  overviewSchema,
  replayReportSchema,
  replaySchema,
  sessionSchema,
  sessionStateSchema,
  signInSchema,
  taskListQuerySchema,
} from './admin-console-schemas';
import { ADMIN_ERRORS, ADMIN_SECURITY } from './openapi-admin';
import { reconciliationListQuerySchema, reconciliationRunSchema } from './routes/admin-reconciliations';
import { errorSchema, taskRecordSchema } from './response-schemas';

const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
const error = (description: string): ResponseConfig => ({ description, content: json(errorSchema) });
const taskParams = z.object({
  task_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/)
    .describe('A task id'),
});
const body = (schema: z.ZodType) => ({ body: { content: json(schema), required: true } });

function registerSessions(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/admin/v1/sessions',
    summary: 'Sign in to the console: the admin token for a session cookie (HttpOnly, SameSite=Strict) and a CSRF token',
    // Public: the token comes in the body.
    security: [],
    request: body(signInSchema),
    responses: {
      201: { description: 'Signed in; Set-Cookie carries the session', content: json(sessionSchema) },
      400: error('Invalid body (error.param names the field)'),
      401: error('The admin token is not correct'),
      403: error('Sent from another origin'),
      405: error('Method not allowed on this path (see the Allow header)'),
      429: error('Too many wrong admin tokens from this address (code too_many_auth_failures; see Retry-After)'),
      500: error('Internal error'),
      503: error('No database configured (DATABASE_URL): sessions cannot be kept'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/sessions/current',
    summary: 'Whether the session cookie holds a live console session, and its CSRF token again (after a reload)',
    // Public: it says whether the cookie sent holds a session, and nothing else.
    security: [],
    responses: {
      200: { description: 'The session, or signed_in false', content: json(sessionStateSchema) },
      405: error('Method not allowed on this path (see the Allow header)'),
      500: error('Internal error'),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/admin/v1/sessions/current',
    summary: 'Sign out: the session ends on every API replica',
    security: ADMIN_SECURITY,
    responses: {
      200: { description: 'Signed out', content: json(z.object({ object: z.literal('console_session'), deleted: z.literal(true) })) },
      404: error('Not a console session'),
      ...ADMIN_ERRORS,
    },
  });
}

function registerTasks(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/tasks',
    summary: 'Every key’s tasks, filtered, a page at a time (running first, then most recently closed)',
    security: ADMIN_SECURITY,
    request: { query: taskListQuerySchema },
    responses: {
      200: { description: 'A page', content: json(operatorTaskListSchema) },
      400: error('Invalid parameter (error.param names it), or a page_token this API did not give'),
      ...ADMIN_ERRORS,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/tasks/{task_id}',
    summary: 'A task’s record and cost, key, upstream job and account, timeline of states, webhook deliveries, Temporal UI link',
    security: ADMIN_SECURITY,
    request: { params: taskParams },
    responses: { 200: { description: 'The task', content: json(operatorTaskDetailSchema) }, 404: error('No such task'), ...ADMIN_ERRORS },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/v1/tasks/{task_id}/cancel',
    summary: 'Cancel a running task for its key',
    security: ADMIN_SECURITY,
    request: { params: taskParams },
    responses: {
      200: { description: 'Cancelled: the final record', content: json(taskRecordSchema) },
      202: { description: 'Cancelling: the current record', content: json(taskRecordSchema) },
      404: error('No such task'),
      409: error('The task has already ended'),
      ...ADMIN_ERRORS,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/v1/replays',
    summary: 'Replay one failed task or the failed tasks a filter names (never a cancelled one); dry_run previews',
    security: ADMIN_SECURITY,
    request: body(replaySchema),
    responses: {
      200: { description: 'What was (or would be) replayed, and what was skipped with why', content: json(replayReportSchema) },
      400: error('Invalid field (error.param names it)'),
      ...ADMIN_ERRORS,
    },
  });
}

function registerOperations(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/overview',
    summary: 'Tasks by status and platform, failures by reason, undelivered webhook events, accounts out of the rotation',
    security: ADMIN_SECURITY,
    request: { query: overviewQuerySchema },
    responses: { 200: { description: 'The overview', content: json(overviewSchema) }, 400: error('Invalid parameter'), ...ADMIN_ERRORS },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/accounts',
    summary: 'Each platform account’s state (in rotation, throttled, out and why, since when), jobs in flight, recent refusals',
    security: ADMIN_SECURITY,
    responses: { 200: { description: 'The accounts', content: json(accountListSchema) }, ...ADMIN_ERRORS },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/v1/accounts/{platform}/{account}/probe',
    summary:
      'Probe an account now: every worker ends its cool-down at its next report (within seconds), so the next create tries it and its answer decides',
    security: ADMIN_SECURITY,
    request: { params: accountParamsSchema },
    responses: {
      202: { description: 'Requested', content: json(probeAnswerSchema) },
      404: error('No running worker reports this account'),
      503: error('No database is configured'),
      ...ADMIN_ERRORS,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/deliveries',
    summary: 'Tasks whose webhook events are pending, retrying or given up, with their attempts and last answers',
    security: ADMIN_SECURITY,
    request: { query: deliveryListQuerySchema },
    responses: {
      200: { description: 'A page', content: json(deliveryListSchema) },
      400: error('Invalid parameter (error.param names it), or a page_token this API did not give'),
      ...ADMIN_ERRORS,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/v1/deliveries/{task_id}/redeliver',
    summary: 'Send a task’s last webhook event again (same webhook-id)',
    security: ADMIN_SECURITY,
    request: { params: taskParams },
    responses: {
      202: { description: 'Queued: the event, pending', content: json(z.object({}).catchall(z.unknown())) },
      404: error('No such task'),
      409: error('The task has no webhook event yet'),
      ...ADMIN_ERRORS,
    },
  });
}

const reportSchema = z
  .object({
    object: z.literal('reconciliation'),
    id: z.string(),
    platform: z.string(),
    account: z.string(),
    day: z.string().describe('The UTC day reconciled (YYYY-MM-DD)'),
    status: z
      .enum(['complete', 'not_available'])
      .describe('not_available: the platform offers no record the gateway can read (note says why)'),
    source: z.string().describe('What the platform’s record was read from'),
    note: z
      .string()
      .nullable()
      .describe('Why not available; or, for a report by day totals (T, B), what it cannot prove and what was not compared'),
    platform_jobs: z
      .number()
      .int()
      .describe(
        'Jobs in the platform’s record of the day (day totals: the tasks the platform counted, where it says; B’s bill counts none)',
      ),
    ledger_tasks: z.number().int().describe('Tasks of the account started that day'),
    differences: z.object({
      orphan: z.number().int().describe('Jobs the platform ran that no task of ours owns'),
      missing: z.number().int().describe('Tasks we billed that the platform has no record of'),
      usage: z.number().int().describe('Jobs whose usage (tokens, seconds, images) or billing differs'),
      total: z.number().int().describe('Day totals that differ beyond the stated tolerance'),
    }),
    created_at: z.string(),
  })
  .meta({ id: 'ReconciliationReport' });

const differenceSchema = z
  .object({
    kind: z.enum(['orphan', 'missing', 'usage', 'total']),
    upstream_task_id: z.string().nullable(),
    task_id: z.string().nullable(),
    model: z.string().nullable(),
    at: z.string().nullable().describe('When the job (or task) was created'),
    details: z.unknown().describe('The two sides’ figures, the platform’s status, or an orphan’s usage'),
  })
  .meta({ id: 'ReconciliationDifference' });

const reportListSchema = z.object({
  object: z.literal('list'),
  data: z.array(reportSchema),
  total: z.number().int(),
  page: z.number().int(),
  has_more: z.boolean(),
});

const runAnswerSchema = z.object({
  object: z.literal('reconciliation_run'),
  workflow_id: z.string(),
  day: z.string(),
  platform: z.string().nullable(),
  account: z.string().nullable(),
});

function registerReconciliations(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/reconciliations',
    summary: 'The reconciliation reports: each platform account’s day against the platform’s own record, newest day first',
    security: ADMIN_SECURITY,
    request: { query: reconciliationListQuerySchema },
    responses: {
      200: { description: 'A page of reports', content: json(reportListSchema) },
      400: error('Invalid parameter (error.param names it)'),
      503: error('No database is configured (database_not_configured)'),
      ...ADMIN_ERRORS,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/v1/reconciliations',
    summary: 'Reconcile a day now (default: yesterday): every account, or one platform’s; a day already reported is not reported again',
    security: ADMIN_SECURITY,
    request: { body: { content: json(reconciliationRunSchema), required: false } },
    responses: {
      202: { description: 'Started (or already running): the reports appear as each account is done', content: json(runAnswerSchema) },
      400: error('Invalid body (error.param names the field): a malformed day, a day after today, an unknown platform'),
      503: error('No database is configured (database_not_configured)'),
      ...ADMIN_ERRORS,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/reconciliations/{id}',
    summary: 'One report with its differences, orphans first',
    security: ADMIN_SECURITY,
    request: { params: z.object({ id: z.string().describe('The report id (rec_<platform>_<day>_<account>)') }) },
    responses: {
      200: { description: 'The report', content: json(reportSchema.extend({ items: z.array(differenceSchema) })) },
      404: error('No such report'),
      503: error('No database is configured (database_not_configured)'),
      ...ADMIN_ERRORS,
    },
  });
}

export function registerOperator(registry: OpenAPIRegistry): void {
  registerSessions(registry);
  registerTasks(registry);
  registerOperations(registry);
  registerReconciliations(registry);
}
