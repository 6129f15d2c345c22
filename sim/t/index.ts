/**
 * Platform T (Tencent Cloud VOD AIGC API), simulated from its documentation and the official SDK's types
 * (upstreams.md "Platform T" and "Corrections"; tencentcloud-sdk-nodejs-vod 4.1.287). One route, `POST /`,
 * dispatched on X-TC-Action; every answer is HTTP 200 with `{"Response":{…}}`.
 *
 * Order of checks for every action: injected faults (host.intercept: an overloaded front door answers before
 * it authenticates), X-TC-Version, Content-Type, the TC3-HMAC-SHA256 signature (signing.ts), then the action's own
 * parameters (request-shape.ts, validation.ts) and logic (operations.ts). Completion events are announcements.ts's.
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
 * Accounts: besides the default one (SIM_ACCOUNTS.T), every SecretId `AKIDsim-<name>` is an account of its own with
 * its own SecretKey and SubAppId (sim/accounts.ts simTAccount). As on Tencent Cloud, a request may name only a
 * SubAppId of the account that signed it (else InvalidParameterValue.SubAppId) and so sees only that SubAppId's
 * tasks and events: another account's task is, to DescribeTaskDetail, a task that does not exist.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { SIM_ACCOUNTS, simTAccountOf, type SimTAccount } from '../accounts';
import { AccountFaults, readAccountFault } from '../account-faults';
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
import { accountError, renderTFault, sendT, sendTError, T_ACCOUNT_ERRORS, TError } from './errors';
import { DEFAULT_EVENT_SETTINGS, TEvents } from './announcements';
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

export function registerPlatformT(router: Router, host: SimHost): void {
  const events = new TEvents(host);
  /** The default account's; each request runs with the SubAppId of the account that signed it. */
  const deps: TActionDeps = { host, events, subAppId: SIM_ACCOUNTS.T.subAppId, behaviour: { ...DEFAULT_T_BEHAVIOUR } };
  const accountFaults = new AccountFaults();
  host.onTransition('T', (job, _from, to) => {
    if (to === 'succeeded' || to === 'failed') events.taskFinished(job);
  });

  router.post('/', async (ctx) => {
    const stats = host.stats.T;
    const name = ctx.get('X-TC-Action');
    const action = Object.prototype.hasOwnProperty.call(ACTIONS, name) ? ACTIONS[name] : undefined;
    if (!action) {
      stats.rejected++;
      if (!name) sendTError(ctx, 'MissingParameter', 'The request is missing a required parameter `X-TC-Action`.');
      else sendTError(ctx, 'InvalidAction', `The action \`${name}\` is not valid for service ${T_SERVICE} version ${T_API_VERSION}.`);
      return;
    }
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    let fault: { status: FaultStatus } | undefined;
    if (action.op === 'submit') {
      stats.submitRequests++;
      const prompt = typeof body.Prompt === 'string' ? body.Prompt : '';
      fault = host.promptFault(`T-submit:${prompt}`, parseDirectives(prompt).submitFault);
    } else if (action.op === 'poll') {
      stats.polls++;
      const job = typeof body.TaskId === 'string' ? host.jobs.get(body.TaskId) : undefined;
      if (job && job.platform === 'T' && job.pollFaultsLeft > 0) {
        job.pollFaultsLeft--;
        host.jobs.changed();
        fault = job.directives.pollFault;
      }
    } else if (action.op === 'list') {
      stats.lists++;
    }
    if (host.intercept(ctx, 'T', action.op, renderTFault, fault)) return;
    try {
      const account = checkEnvelope(ctx, host.now());
      const refusal = accountFaults.take(account.secretId, action.op);
      if (refusal) throw accountError(refusal);
      sendT(ctx, await action.run({ ...deps, subAppId: account.subAppId }, ctx));
    } catch (err) {
      if (!(err instanceof TError)) throw err;
      // A SessionId repeat is counted in stats.T.dedupRefusals (operations.ts), not as an invalid request.
      if (!err.dedupRefusal) stats.rejected++;
      sendTError(ctx, err.code, err.message);
    }
  });

  // ------------------------------------------------------------------ T's own test controls
  router.get('/_sim/t/config', (ctx) => {
    ctx.body = events.settings;
  });
  /** Body: {pullWaitMs?, confirmWindowMs?}; `{}` restores T's figures (5 s, 30 s). */
  router.post('/_sim/t/config', (ctx) => {
    const b = (ctx.request.body ?? {}) as { pullWaitMs?: unknown; confirmWindowMs?: unknown };
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
    events.settings.pullWaitMs = num(b.pullWaitMs) ?? DEFAULT_EVENT_SETTINGS.pullWaitMs;
    events.settings.confirmWindowMs = num(b.confirmWindowMs) ?? DEFAULT_EVENT_SETTINGS.confirmWindowMs;
    ctx.body = events.settings;
  });
  /** Body: {listsAigcTasks?, sessionIdRepeatCode?, silentKlingVersions?} (operations.ts TBehaviour); `{}` restores the defaults. */
  router.get('/_sim/t/behaviour', (ctx) => {
    ctx.body = deps.behaviour;
  });
  router.post('/_sim/t/behaviour', (ctx) => {
    const b = (ctx.request.body ?? {}) as { listsAigcTasks?: unknown; sessionIdRepeatCode?: unknown; silentKlingVersions?: unknown };
    deps.behaviour.listsAigcTasks = typeof b.listsAigcTasks === 'boolean' ? b.listsAigcTasks : DEFAULT_T_BEHAVIOUR.listsAigcTasks;
    deps.behaviour.sessionIdRepeatCode =
      typeof b.sessionIdRepeatCode === 'string' && /^[A-Za-z.]+$/.test(b.sessionIdRepeatCode)
        ? b.sessionIdRepeatCode
        : DEFAULT_T_BEHAVIOUR.sessionIdRepeatCode;
    deps.behaviour.silentKlingVersions = Array.isArray(b.silentKlingVersions)
      ? b.silentKlingVersions.map(String)
      : [...DEFAULT_T_BEHAVIOUR.silentKlingVersions];
    ctx.body = deps.behaviour;
  });
  /**
   * Body: {Mode?, NotificationUrl?}: the SubAppId's event configuration as another system using the same
   * application left it (what DescribeEventConfig then answers), without a signed ModifyEventConfig.
   */
  router.post('/_sim/t/event-config', (ctx) => {
    const b = (ctx.request.body ?? {}) as { Mode?: unknown; NotificationUrl?: unknown; SubAppId?: unknown };
    const subAppId = typeof b.SubAppId === 'number' ? b.SubAppId : deps.subAppId;
    events.modify(subAppId, {
      ...(b.Mode === 'PUSH' || b.Mode === 'PULL' ? { Mode: b.Mode } : {}),
      ...(typeof b.NotificationUrl === 'string' ? { NotificationUrl: b.NotificationUrl } : {}),
    });
    ctx.body = events.config(subAppId);
  });
  /** Body: {code, count?, op?, secret_id?} (see the header). */
  router.post('/_sim/t/account-faults', (ctx) => {
    const fault = readAccountFault(ctx, 'secret_id', (id) => simTAccountOf(id) !== undefined, Object.keys(T_ACCOUNT_ERRORS), [
      'submit',
      'poll',
      'list',
      'config',
      'events',
    ]);
    if (fault) ctx.body = { ok: true, active: accountFaults.add(fault) };
  });
  router.delete('/_sim/t/account-faults', (ctx) => {
    accountFaults.clear();
    ctx.body = { ok: true };
  });
  const resetEvents = () => {
    events.reset();
    accountFaults.clear();
    Object.assign(events.settings, DEFAULT_EVENT_SETTINGS);
    Object.assign(deps.behaviour, DEFAULT_T_BEHAVIOUR, { silentKlingVersions: [...DEFAULT_T_BEHAVIOUR.silentKlingVersions] });
  };
  // The simulator's own reset (POST /_sim/reset) forgets T's event state too.
  host.onReset(resetEvents);
  router.post('/_sim/t/reset', (ctx) => {
    resetEvents();
    ctx.body = { ok: true };
  });
}

export const platformT: SimPlatformModule = { platform: 'T', register: registerPlatformT };
