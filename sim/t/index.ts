/**
 * Platform T (Tencent Cloud VOD AIGC API), simulated from its documentation and the official SDK's types
 * (docs/platforms/t.md, its calls and corrections; tencentcloud-sdk-nodejs-vod 4.1.287). One route, `POST /`,
 * dispatched on X-TC-Action; every answer is HTTP 200 with `{"Response":{…}}`.
 *
 * Order of checks for every action: injected faults (host.intercept: an overloaded front door answers before
 * it authenticates), X-TC-Version, Content-Type, the TC3-HMAC-SHA256 signature (signing.ts), then the action's own
 * parameters (request-shape.ts, validation.ts) and logic (operations.ts). Completion events are announcements.ts's;
 * DescribeAigcUsageData, the account's AIGC usage statistics, is day-totals.ts's.
 *
 * Test controls of T's own (besides the core's /_sim endpoints and prompt directives):
 *   [sim:task-error=CODE]   the task fails with ErrCodeExt CODE (e.g. FailedOperation, the model backlog)
 *   [sim:reject=CODE]       the Create answers Error.Code CODE and creates nothing
 *   GET/POST /_sim/t/config {pullWaitMs?, confirmWindowMs?}   PullEvents' long-poll and confirm windows
 *   GET/POST /_sim/t/behaviour {listsAigcTasks?, sessionIdRepeatCode?, silentKlingVersions?}   what the documents leave open (operations.ts)
 *   POST /_sim/t/event-config {Mode?, NotificationUrl?, SubAppId?}   the SubAppId's events (the default account's
 *                           unless named) as another system configured them
 *   POST /_sim/t/account-faults {code, count?, op?, secret_id?}   the next `count` requests (default: all, until
 *                           DELETE) of `op` (submit by default; poll, list, config, events or *) answer Error.Code CODE
 *                           (T_ACCOUNT_ERRORS in errors.ts: AuthFailure.UnauthorizedOperation, ResourceUnavailable.InArrears,
 *                           RequestLimitExceeded…) after the signature is checked; with `secret_id`, only that account's
 *   DELETE /_sim/t/account-faults
 *   POST /_sim/t/reset      forgets event configurations, queued events, the behaviour settings and account faults
 *
 * Capacity (sim/capacity.ts): an account runs one task at a time by default (SIM_T_MAX_CONCURRENT, POST
 * /_sim/t/capacity); a create over it still answers a TaskId, and that task fails with ErrCodeExt RequestLimitExceeded.
 *
 * Accounts: besides the default one (SIM_ACCOUNTS.T), every SecretId `AKIDsim-<name>` is an account of its own with
 * its own SecretKey and SubAppId (sim/accounts.ts simTAccount). As on Tencent Cloud, a request may name only a
 * SubAppId of the account that signed it (else InvalidParameterValue.SubAppId) and so sees only that SubAppId's
 * tasks and events: another account's task is, to DescribeTaskDetail, a task that does not exist.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { SIM_ACCOUNTS, simTAccountOf, type SimTAccount } from '../accounts';
import { AccountFaults } from '../account-faults';
import { parseDirectives } from '../directives';
import type { FaultStatus, SimHost, SimOp, SimPlatformModule } from '../host';
import {
  confirmEvents,
  createTask,
  DEFAULT_T_BEHAVIOUR,
  describeEventConfig,
  describeTaskDetail,
  describeTasks,
  modifyEventConfig,
  pullEvents,
  type TActionDeps,
} from './operations';
import { accountError, renderTFault, sendT, sendTError, TError } from './errors';
import { TEvents } from './announcements';
import { tMeta } from './tasks';
import { describeAigcUsageData } from './day-totals';
import { registerTControls } from './controls';
import { parseTc3Authorization, verifyTc3 } from './signing';

export { signTRequest, tc3Signature, tc3Authorization, parseTc3Authorization, verifyTc3 } from './signing';
export { T_IMAGE_MODELS, T_VIDEO_MODELS } from './models';
export { validateImageCreate, validateVideoCreate } from './validation';
export { md5Hex } from './announcements';

export const T_API_VERSION = '2018-07-17';
export const T_SERVICE = 'vod';

interface TAction {
  op: SimOp;
  run(deps: TActionDeps, ctx: Context): Record<string, unknown> | Promise<Record<string, unknown>>;
}

const ACTIONS: Record<string, TAction> = {
  CreateAigcVideoTask: { op: 'submit', run: (d, c) => createTask(d, c, 'video') },
  CreateAigcImageTask: { op: 'submit', run: (d, c) => createTask(d, c, 'image') },
  DescribeTaskDetail: { op: 'poll', run: describeTaskDetail },
  DescribeTasks: { op: 'list', run: describeTasks },
  ModifyEventConfig: { op: 'config', run: modifyEventConfig },
  DescribeEventConfig: { op: 'config', run: describeEventConfig },
  PullEvents: { op: 'events', run: pullEvents },
  ConfirmEvents: { op: 'events', run: confirmEvents },
  DescribeAigcUsageData: { op: 'list', run: describeAigcUsageData },
};

/** Version, content type and signature: what every action checks before its parameters. Returns the signing account. */
function checkEnvelope(ctx: Context, now: number): SimTAccount {
  const version = ctx.get('X-TC-Version');
  if (!version) throw new TError('MissingParameter', 'The request is missing a required parameter `X-TC-Version`.');
  if (version !== T_API_VERSION)
    throw new TError('NoSuchVersion', `The API version \`${version}\` does not exist for service ${T_SERVICE}; use ${T_API_VERSION}.`);
  if (!ctx.is('application/json')) throw new TError('InvalidParameter', 'The Content-Type must be application/json for a POST request.');
  // The account its SecretId names; an unknown SecretId is checked against the default account, which refuses it
  // (AuthFailure.SecretIdNotFound) once the timestamp is found fresh, in verifyTc3's order.
  const account = simTAccountOf(parseTc3Authorization(ctx.get('Authorization'))?.secretId ?? '') ?? SIM_ACCOUNTS.T;
  const verdict = verifyTc3(
    {
      method: ctx.method,
      path: ctx.path,
      query: ctx.querystring,
      header: (name) => ctx.get(name),
      body: (ctx.request as { rawBody?: string }).rawBody ?? '',
    },
    account,
    T_SERVICE,
    now,
  );
  if (!verdict.ok) throw new TError(verdict.code, verdict.message);
  return account;
}

/** The fault due to this request, if any: a prompt's submit fault, or a job's poll fault; counts the request. */
function faultFor(host: SimHost, op: SimOp, body: Record<string, unknown>): { status: FaultStatus } | undefined {
  const stats = host.stats.T;
  if (op === 'submit') {
    stats.submitRequests++;
    const prompt = typeof body.Prompt === 'string' ? body.Prompt : '';
    return host.promptFault(`T-submit:${prompt}`, parseDirectives(prompt).submitFault);
  }
  if (op === 'poll') {
    stats.polls++;
    const job = typeof body.TaskId === 'string' ? host.jobs.get(body.TaskId) : undefined;
    if (job && job.platform === 'T' && job.pollFaultsLeft > 0) {
      job.pollFaultsLeft--;
      host.jobs.changed();
      return job.directives.pollFault;
    }
  } else if (op === 'list') {
    stats.lists++;
  }
  return undefined;
}

/** `POST /`: the action X-TC-Action names, behind the injected faults, the envelope's checks and the account's faults. */
async function handleAction(deps: TActionDeps, accountFaults: AccountFaults, ctx: Context): Promise<void> {
  const { host } = deps;
  const stats = host.stats.T;
  const name = ctx.get('X-TC-Action');
  const action = Object.prototype.hasOwnProperty.call(ACTIONS, name) ? ACTIONS[name] : undefined;
  if (!action) {
    stats.rejected++;
    if (!name) sendTError(ctx, 'MissingParameter', 'The request is missing a required parameter `X-TC-Action`.');
    else sendTError(ctx, 'InvalidAction', `The action \`${name}\` is not valid for service ${T_SERVICE} version ${T_API_VERSION}.`);
    return;
  }
  const fault = faultFor(host, action.op, (ctx.request.body ?? {}) as Record<string, unknown>);
  if (host.intercept(ctx, 'T', action.op, renderTFault, fault)) return;
  try {
    const account = checkEnvelope(ctx, host.now());
    const refusal = accountFaults.take(account.secretId, action.op);
    if (refusal) throw accountError(refusal);
    sendT(ctx, await action.run({ ...deps, secretId: account.secretId, subAppId: account.subAppId }, ctx));
  } catch (err) {
    if (!(err instanceof TError)) throw err;
    // A SessionId repeat is counted in stats.T.dedupRefusals (operations.ts), not as an invalid request.
    if (!err.dedupRefusal) stats.rejected++;
    sendTError(ctx, err.code, err.message);
  }
}

export function registerPlatformT(router: Router, host: SimHost): void {
  const events = new TEvents(host);
  /** The default account's; each request runs with the SubAppId of the account that signed it. */
  const deps: TActionDeps = {
    host,
    events,
    secretId: SIM_ACCOUNTS.T.secretId,
    subAppId: SIM_ACCOUNTS.T.subAppId,
    behaviour: { ...DEFAULT_T_BEHAVIOUR },
  };
  const accountFaults = new AccountFaults();
  host.onTransition('T', (job, _from, to) => {
    if (to === 'succeeded' || to === 'failed') events.taskFinished(job);
  });
  router.post('/', (ctx) => handleAction(deps, accountFaults, ctx));
  registerTControls(router, host, { events, behaviour: deps.behaviour, accountFaults, subAppId: deps.subAppId });
  // A task holds its account's slot while WAITING or PROCESSING; one created over the limit never held one.
  host.capacity.track(
    'T',
    {
      accountOf: (job) => tMeta(job).secretId ?? SIM_ACCOUNTS.T.secretId,
      isAccount: (key) => simTAccountOf(key) !== undefined,
      endOf: (job, now) => host.jobs.endedAt(job, now),
      holdsSlot: (job) => tMeta(job).overLimit !== true,
    },
    host.jobs.all('T'),
  );
}

export const platformT: SimPlatformModule = {
  platform: 'T',
  register: registerPlatformT,
  recordedHeaders: ['x-tc-action', 'x-tc-version', 'x-tc-timestamp', 'x-tc-region'],
};
