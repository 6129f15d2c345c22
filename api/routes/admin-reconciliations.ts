/**
 * The ledger against the platforms' records (tasks/reconciliation.ts), for the operator: GET /admin/v1/reconciliations
 * (the reports, newest day first), GET /admin/v1/reconciliations/:id (one report with its differences, orphans
 * first) and POST /admin/v1/reconciliations (a run on demand for a day, by default yesterday: 202 with its workflow
 * id; the reports appear as each account is done, and a day already reported is not reported again).
 */
import type Router from '@koa/router';
import { z } from 'zod';
import { dayBefore, DAY } from '../../core/reconciliation';
import type { DifferenceRow, ReportRow } from '../../ledger/reconciliations';
import { parseBody, parseQuery } from '../admin-input';
import { ApiError, invalidRequest } from '../api-error';
import type { AppContext, AppDeps, AppState } from '../context';
import type { TaskLedger } from '../../tasks/task-ledger';

const day = z
  .string()
  .regex(DAY, { message: 'must be a date YYYY-MM-DD' })
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), {
    message: 'is not a calendar date',
  })
  // The ledger's dates start with the gateway; a year before 2000 is a typing slip (and year 0 no date at all).
  .refine((s) => s >= '2000-01-01', { message: 'must be 2000-01-01 or later' });
const platform = z.string().regex(/^[A-Z][A-Z0-9]{0,15}$/, { message: 'must be a platform id (T, B, V…)' });

export const reconciliationListQuerySchema = z.strictObject({
  day: day.optional().describe('Only this UTC day'),
  platform: platform.optional().describe('Only this platform'),
  page: z
    .string()
    .regex(/^[1-9]\d{0,5}$/, { message: 'must be a whole number from 1, without leading zeros' })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: 'must be at least 1' }))
    .optional()
    .describe('1-based page number (default 1)'),
  page_size: z
    .string()
    .regex(/^[1-9]\d{0,2}$/, { message: 'must be a whole number from 1, without leading zeros' })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: 'must be at least 1' }).max(200, { message: 'must be at most 200' }))
    .optional()
    .describe('1 to 200 (default 50)'),
});

export const reconciliationRunSchema = z
  .strictObject({
    day: day.optional().describe('The UTC day to reconcile (default: yesterday); not after today'),
    platform: platform.optional().describe('Only this platform’s accounts (default: every platform)'),
    account: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be an account id (letters, digits, ".", "_", "-")' })
      .optional()
      .describe('With platform: only this account of it'),
  })
  .meta({ id: 'ReconciliationRunRequest' });

export const REPORT_ID = /^rec_[A-Z][A-Z0-9]{0,15}_\d{4}-\d{2}-\d{2}_[A-Za-z0-9._-]{1,64}$/;

function ledgerOf(deps: Pick<AppDeps, 'taskLedger'>): TaskLedger {
  if (!deps.taskLedger) {
    throw new ApiError(503, 'service_unavailable_error', 'No database is configured (DATABASE_URL): there are no reconciliation reports', {
      code: 'database_not_configured',
    });
  }
  return deps.taskLedger;
}

export const reportJson = (r: ReportRow) => ({
  object: 'reconciliation',
  id: r.id,
  platform: r.platform,
  account: r.account,
  day: r.day,
  status: r.status,
  source: r.source,
  note: r.note,
  platform_jobs: Number(r.platform_jobs),
  ledger_tasks: Number(r.ledger_tasks),
  differences: {
    orphan: Number(r.orphans),
    missing: Number(r.missing),
    usage: Number(r.usage_differences),
    total: Number(r.total_differences),
  },
  created_at: new Date(r.created_at).toISOString(),
});

const differenceJson = (d: DifferenceRow) => ({
  kind: d.kind,
  upstream_task_id: d.upstream_task_id,
  task_id: d.task_id,
  model: d.model,
  at: d.at === null ? null : new Date(d.at).toISOString(),
  details: d.details,
});

export function adminReconciliationRoutes(
  router: Router<AppState>,
  deps: Pick<AppDeps, 'enabledPlatforms' | 'reconciliations' | 'taskLedger'>,
): void {
  router.get('/admin/v1/reconciliations', async (ctx: AppContext) => {
    const q = parseQuery(reconciliationListQuerySchema, ctx.query);
    const page = q.page ?? 1;
    const size = q.page_size ?? 50;
    const { rows, total } = await ledgerOf(deps).reconciliationReports({
      ...(q.day ? { day: q.day } : {}),
      ...(q.platform ? { platform: q.platform } : {}),
      limit: size,
      offset: (page - 1) * size,
    });
    ctx.body = { object: 'list', data: rows.map(reportJson), total, page, has_more: page * size < total };
  });

  router.get('/admin/v1/reconciliations/:id', async (ctx: AppContext) => {
    const id = ctx.params.id ?? '';
    const found = REPORT_ID.test(id) ? await ledgerOf(deps).reconciliationReport(id) : undefined;
    if (!found) {
      throw new ApiError(404, 'invalid_request_error', `No reconciliation report '${id}'`, {
        code: 'reconciliation_not_found',
        param: 'id',
      });
    }
    ctx.body = { ...reportJson(found.report), items: found.differences.map(differenceJson) };
  });

  router.post('/admin/v1/reconciliations', async (ctx: AppContext) => {
    const run = runRequested(ctx.request.body, deps);
    if (!deps.reconciliations)
      throw new ApiError(503, 'service_unavailable_error', 'Reconciliation cannot be started from this API', { code: 'unavailable' });
    const workflowId = await deps.reconciliations.start(run);
    ctx.status = 202;
    ctx.body = {
      object: 'reconciliation_run',
      workflow_id: workflowId,
      day: run.day,
      platform: run.platform ?? null,
      account: run.account ?? null,
    };
  });
}

/** The run a POST asks for, validated: a day not after today (UTC; yesterday when absent), an enabled platform. */
function runRequested(
  sent: unknown,
  deps: Pick<AppDeps, 'enabledPlatforms' | 'taskLedger'>,
): { day: string; platform?: string; account?: string } {
  // No body runs yesterday for every account; a body, when sent, must be the object the schema describes (`null` is not).
  const body = parseBody(reconciliationRunSchema, sent === undefined ? {} : sent);
  ledgerOf(deps);
  const today = new Date().toISOString().slice(0, 10);
  const day = body.day ?? dayBefore(Date.now());
  if (day > today)
    throw new ApiError(400, 'invalid_request_error', `day ${day} is after today (${today}, UTC)`, {
      param: 'day',
      code: 'invalid_value',
    });
  if (body.platform && !deps.enabledPlatforms.has(body.platform)) {
    throw new ApiError(400, 'invalid_request_error', `platform '${body.platform}' is not enabled here`, {
      param: 'platform',
      code: 'invalid_value',
    });
  }
  if (body.account && !body.platform) throw invalidRequest('account needs platform: name the platform the account is of', 'account');
  return { day, ...(body.platform ? { platform: body.platform } : {}), ...(body.account ? { account: body.account } : {}) };
}
