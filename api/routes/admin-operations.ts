/**
 * What the operator watches besides keys and tasks: GET /admin/v1/overview (tasks by status and platform in the
 * last hour or day, failures by reason, undelivered webhook events, accounts out of the rotation),
 * GET /admin/v1/accounts (each platform account's state, jobs in flight and recent refusals), GET /admin/v1/deliveries
 * (webhook events pending, retrying or given up, with their last answers) and POST
 * /admin/v1/deliveries/:task_id/redeliver (a task's last event again, as its key may ask).
 */
import type Router from '@koa/router';
import { GENERATION_STATUSES } from '../../core/search-attributes';
import { FAILURE_REASONS } from '../../core/task';
import { accountParamsSchema, deliveryListQuerySchema, overviewQuerySchema } from '../admin-console-schemas';
import { parseQuery } from '../admin-input';
import { ApiError, taskNotFound } from '../api-error';
import type { AppContext, AppDeps, AppState } from '../context';
import { pageTokenOf, taskAdminOf, withPageToken } from './admin-tasks';
import { TASK_ID } from '../http/task-id';

const WINDOW_MS = { hour: 60 * 60_000, day: 24 * 60 * 60_000 } as const;

async function accountsOf(deps: Pick<AppDeps, 'accountStates'>) {
  return deps.accountStates ? deps.accountStates.list() : [];
}

async function overview(
  deps: Pick<AppDeps, 'accountStates' | 'enabledPlatforms' | 'taskAdmin' | 'webhookService'>,
  window: 'hour' | 'day',
) {
  const admin = taskAdminOf(deps);
  const since = new Date(Date.now() - WINDOW_MS[window]);
  const platforms = [...deps.enabledPlatforms].sort();
  const byStatus = platforms.flatMap((platform) => GENERATION_STATUSES.map((status) => ({ platform, status })));
  const reasons = FAILURE_REASONS.filter((r) => r !== 'cancelled');
  const [tasks, failing, webhooks, accounts, waiting] = await Promise.all([
    Promise.all(byStatus.map(async (c) => ({ ...c, count: await admin.count({ ...c, since }) }))),
    Promise.all(reasons.map(async (reason) => ({ reason, count: await admin.count({ status: 'failed', failureReason: reason, since }) }))),
    deps.webhookService.undelivered(),
    accountsOf(deps),
    deps.accountStates ? deps.accountStates.waiting() : 0,
  ]);
  return {
    object: 'overview',
    window,
    since: since.toISOString(),
    tasks,
    failing: failing.filter((f) => f.count > 0),
    webhooks,
    accounts_out: accounts
      .filter((a) => a.state !== 'in_rotation')
      .map((a) => ({ platform: a.platform, account: a.account, state: a.state, out_reason: a.out_reason })),
    tasks_waiting: waiting,
  };
}

export function adminOperationRoutes(
  router: Router<AppState>,
  deps: Pick<AppDeps, 'accountStates' | 'enabledPlatforms' | 'taskAdmin' | 'webhookService'>,
): void {
  router.get('/admin/v1/overview', async (ctx: AppContext) => {
    const q = parseQuery(overviewQuerySchema, ctx.query);
    ctx.body = await overview(deps, q.window ?? 'hour');
  });

  router.get('/admin/v1/accounts', async (ctx: AppContext) => {
    ctx.body = { object: 'list', data: await accountsOf(deps) };
  });

  // Probe an account now: the request goes through the database to every worker (no API→worker call), whose pool
  // ends the account's cool-down at its next write of the accounts' states, so the next create tries it.
  router.post('/admin/v1/accounts/:platform/:account/probe', async (ctx: AppContext) => {
    const params = accountParamsSchema.safeParse(ctx.params ?? {});
    const notFound = () =>
      new ApiError(
        404,
        'not_found_error',
        `No running worker reports account '${String(ctx.params?.account)}' of platform '${String(ctx.params?.platform)}'`,
        {
          param: 'account',
          code: 'account_not_found',
        },
      );
    if (!params.success) throw notFound();
    if (!deps.accountStates) {
      throw new ApiError(503, 'service_unavailable_error', 'No database is configured (DATABASE_URL): the workers cannot be reached', {
        code: 'database_not_configured',
      });
    }
    const { platform, account } = params.data;
    const request = await deps.accountStates.probe(platform, account);
    if (!request) throw notFound();
    ctx.state.log.info({ platform, account }, 'Account probe requested by the operator');
    ctx.status = 202;
    ctx.body = { object: 'account_probe', platform, account, requested_at: request.requested_at };
  });

  router.get('/admin/v1/deliveries', async (ctx: AppContext) => {
    const q = parseQuery(deliveryListQuerySchema, ctx.query);
    const token = pageTokenOf(q.page_token);
    const page = await withPageToken(() => deps.webhookService.list(q.state, q.page_size, token));
    ctx.body = { object: 'list', data: page.data, next_page_token: page.nextPageToken ?? null };
  });

  router.post('/admin/v1/deliveries/:task_id/redeliver', async (ctx: AppContext) => {
    const taskId = String(ctx.params?.task_id ?? '');
    if (!TASK_ID.test(taskId)) throw taskNotFound(taskId);
    const event = await deps.webhookService.redeliver(taskId);
    if (!event) {
      throw new ApiError(409, 'conflict_error', 'This task has no webhook event to redeliver', { code: 'no_webhook_event', taskId });
    }
    ctx.state.log.info({ taskId, event: event.event }, 'Webhook event redelivered by the operator');
    ctx.status = 202;
    ctx.body = event;
  });
}
