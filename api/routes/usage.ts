/**
 * GET /v1/usage (the caller's key) and GET /admin/v1/usage (any key, or all): the ledger's tasks, units and cost
 * per model, route, served model, day or key over a range of UTC days, as JSON or, with `Accept: text/csv`, CSV. Bad
 * input is 400 naming the parameter (§8): a malformed date, `end` before `start`, a range over a year.
 */
import type Router from '@koa/router';
import { z } from 'zod';
import type { UsageGroup, UsageRow } from '../../ledger/usage';
import { CURRENCIES, decimalOf } from '../../pricing/price';
import { KEY_ID } from '../admin-schemas';
import { ApiError, invalidRequest } from '../api-error';
import type { ApiKey } from '../../keys/api-keys';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { parseQuery } from '../admin-input';
import type { TaskLedger } from '../../tasks/task-ledger';

/** The longest range one query covers: a year (a leap year's 366 days). */
export const MAX_RANGE_DAYS = 366;

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD' })
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), {
    message: 'is not a calendar date',
  });

export const usageQuerySchema = z.strictObject({
  start: day.optional().describe('First UTC day (YYYY-MM-DD), inclusive; default: the first of this month'),
  end: day.optional().describe('Last UTC day (YYYY-MM-DD), inclusive; default: today; at most a year after start'),
  group_by: z
    .enum(['model', 'route', 'served_model', 'day'])
    .optional()
    .describe(
      'Rows per model as named by the request (default; a route counts under its name), per route (null: tasks that named a catalogue model), per model that served the task (null: a routed task not served yet, or that made no job), or per day',
    ),
});

export const adminUsageQuerySchema = usageQuerySchema.extend({
  key: z.string().regex(KEY_ID, { message: 'must be a key id' }).optional().describe('Only this key; default: every key'),
  group_by: z
    .enum(['key', 'model', 'route', 'served_model', 'platform', 'day'])
    .optional()
    .describe('Rows per key (default), model, route, served model, platform (the one that served) or day'),
});

/** The range with its defaults, checked: `end` not before `start`, at most a year. */
export function usageRange(start: string | undefined, end: string | undefined, now = new Date()): { start: string; end: string } {
  const today = now.toISOString().slice(0, 10);
  const range = { start: start ?? `${today.slice(0, 7)}-01`, end: end ?? today };
  const days = (Date.parse(range.end) - Date.parse(range.start)) / 86_400_000;
  if (days < 0) throw invalidRequest(`end (${range.end}) is before start (${range.start})`, 'end');
  if (days >= MAX_RANGE_DAYS)
    throw invalidRequest(`The range from ${range.start} to ${range.end} is over a year; ask for at most ${MAX_RANGE_DAYS} days`, 'end');
  return range;
}

function ledgerOf(deps: Pick<AppDeps, 'taskLedger'>): TaskLedger {
  if (!deps.taskLedger) {
    throw new ApiError(
      503,
      'service_unavailable_error',
      'No database is configured (DATABASE_URL): there is no ledger to report usage from',
      { code: 'database_not_configured' },
    );
  }
  return deps.taskLedger;
}

const rowJson = (groupBy: UsageGroup, r: UsageRow) => ({
  [groupBy]: r.group,
  tasks: r.tasks,
  succeeded: r.succeeded,
  failed: r.failed,
  running: r.running,
  unpriced: r.unpriced,
  seconds: r.seconds,
  images: r.images,
  tokens: r.tokens,
  // The priced tasks' cost per currency; null when no task of the row has a price (never a 0 for unpriced tasks).
  cost: Object.keys(r.costMicros).length === 0 ? null : Object.fromEntries(Object.entries(r.costMicros).map(([c, m]) => [c, decimalOf(m)])),
});

function csv(groupBy: UsageGroup, rows: UsageRow[]): string {
  const head = [
    groupBy,
    'tasks',
    'succeeded',
    'failed',
    'running',
    'unpriced',
    'seconds',
    'images',
    'tokens',
    ...CURRENCIES.map((c) => `cost_${c}`),
  ];
  // A group is a model id, route name, key id or date (or empty: none): no commas or quotes can occur (their patterns forbid them).
  const lines = rows.map((r) =>
    [
      r.group,
      r.tasks,
      r.succeeded,
      r.failed,
      r.running,
      r.unpriced,
      r.seconds,
      r.images,
      r.tokens,
      // Empty, not 0, where no priced task of the row is in that currency.
      ...CURRENCIES.map((c) => {
        const micros = r.costMicros[c];
        return micros === undefined ? '' : decimalOf(micros);
      }),
    ].join(','),
  );
  return `${[head.join(','), ...lines].join('\n')}\n`;
}

async function budgetState(ledger: TaskLedger, key: ApiKey) {
  if (!key.budget) return null;
  const now = new Date();
  const [view, unpriced] = await Promise.all([ledger.budgetView(key.id, key.budget, now), ledger.unpriced(key.id, key.budget, now)]);
  return {
    amount: decimalOf(key.budget.micros),
    currency: key.budget.currency,
    period: key.budget.period,
    period_start: view.periodKey,
    spent: decimalOf(view.spentMicros),
    remaining: decimalOf(view.remainingMicros),
    // The period's tasks counted at zero (their model has no price, or is priced in another currency), which the
    // key's operator let through (allow_unpriced); without that, such tasks are refused.
    unpriced,
  };
}

function answer(
  ctx: AppContext,
  groupBy: UsageGroup,
  range: { start: string; end: string },
  rows: UsageRow[],
  extra: Record<string, unknown>,
): void {
  if (ctx.accepts('application/json', 'text/csv') === 'text/csv') {
    ctx.type = 'text/csv; charset=utf-8';
    ctx.body = csv(groupBy, rows);
    return;
  }
  ctx.body = { object: 'usage', ...range, group_by: groupBy, data: rows.map((r) => rowJson(groupBy, r)), ...extra };
}

export function usageRoutes(router: Router<AppState>, deps: Pick<AppDeps, 'taskLedger'>): void {
  router.get('/v1/usage', async (ctx: AppContext) => {
    const q = parseQuery(usageQuerySchema, ctx.query);
    const range = usageRange(q.start, q.end);
    const ledger = ledgerOf(deps);
    const key = apiKeyOf(ctx);
    const groupBy = q.group_by ?? 'model';
    const rows = await ledger.usage({ keyId: key.id, ...range, groupBy });
    answer(ctx, groupBy, range, rows, { budget: await budgetState(ledger, key) });
  });
}

export function adminUsageRoutes(router: Router<AppState>, deps: Pick<AppDeps, 'taskLedger'>): void {
  router.get('/admin/v1/usage', async (ctx: AppContext) => {
    const q = parseQuery(adminUsageQuerySchema, ctx.query);
    const range = usageRange(q.start, q.end);
    const groupBy = q.group_by ?? 'key';
    const rows = await ledgerOf(deps).usage({ keyId: q.key, ...range, groupBy });
    answer(ctx, groupBy, range, rows, q.key ? { key: q.key } : {});
  });
}
