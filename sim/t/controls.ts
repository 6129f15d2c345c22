/**
 * T's own test controls under /_sim/t/ (index.ts's header lists them): PullEvents' windows, what the documents
 * leave open (TBehaviour), a SubAppId's event configuration as another system left it, account faults, and T's
 * own reset. They set the state T's actions read.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { simTAccountOf } from '../accounts';
import { readAccountFault, type AccountFaults } from '../account-faults';
import type { SimHost } from '../host';
import { DEFAULT_EVENT_SETTINGS, type TEvents } from './announcements';
import { T_ACCOUNT_ERRORS } from './errors';
import { DEFAULT_T_BEHAVIOUR, type TBehaviour } from './operations';

/** What T's controls change: its events, the behaviour its actions read, its account faults. */
export interface TControlled {
  readonly events: TEvents;
  readonly behaviour: TBehaviour;
  readonly accountFaults: AccountFaults;
  /** The default account's SubAppId: the one /_sim/t/event-config configures unless the body names another. */
  readonly subAppId: number;
}

/** Body: {pullWaitMs?, confirmWindowMs?}; `{}` restores T's figures (5 s, 30 s). */
function setEventSettings(events: TEvents, ctx: Context): void {
  const b = (ctx.request.body ?? {}) as { pullWaitMs?: unknown; confirmWindowMs?: unknown };
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
  events.settings.pullWaitMs = num(b.pullWaitMs) ?? DEFAULT_EVENT_SETTINGS.pullWaitMs;
  events.settings.confirmWindowMs = num(b.confirmWindowMs) ?? DEFAULT_EVENT_SETTINGS.confirmWindowMs;
  ctx.body = events.settings;
}

/** Body: {listsAigcTasks?, sessionIdRepeatCode?, silentKlingVersions?} (operations.ts TBehaviour); `{}` restores the defaults. */
function setBehaviour(behaviour: TBehaviour, ctx: Context): void {
  const b = (ctx.request.body ?? {}) as { listsAigcTasks?: unknown; sessionIdRepeatCode?: unknown; silentKlingVersions?: unknown };
  behaviour.listsAigcTasks = typeof b.listsAigcTasks === 'boolean' ? b.listsAigcTasks : DEFAULT_T_BEHAVIOUR.listsAigcTasks;
  behaviour.sessionIdRepeatCode =
    typeof b.sessionIdRepeatCode === 'string' && /^[A-Za-z.]+$/.test(b.sessionIdRepeatCode)
      ? b.sessionIdRepeatCode
      : DEFAULT_T_BEHAVIOUR.sessionIdRepeatCode;
  behaviour.silentKlingVersions = Array.isArray(b.silentKlingVersions)
    ? b.silentKlingVersions.map(String)
    : [...DEFAULT_T_BEHAVIOUR.silentKlingVersions];
  ctx.body = behaviour;
}

/**
 * Body: {Mode?, NotificationUrl?, SubAppId?}: the SubAppId's event configuration as another system using the same
 * application left it (what DescribeEventConfig then answers), without a signed ModifyEventConfig.
 */
function setEventConfig(t: TControlled, ctx: Context): void {
  const b = (ctx.request.body ?? {}) as { Mode?: unknown; NotificationUrl?: unknown; SubAppId?: unknown };
  const subAppId = typeof b.SubAppId === 'number' ? b.SubAppId : t.subAppId;
  t.events.modify(subAppId, {
    ...(b.Mode === 'PUSH' || b.Mode === 'PULL' ? { Mode: b.Mode } : {}),
    ...(typeof b.NotificationUrl === 'string' ? { NotificationUrl: b.NotificationUrl } : {}),
  });
  ctx.body = t.events.config(subAppId);
}

/** Forgets event configurations, queued events, the behaviour settings and account faults. */
function resetT({ events, accountFaults, behaviour }: TControlled): void {
  events.reset();
  accountFaults.clear();
  Object.assign(events.settings, DEFAULT_EVENT_SETTINGS);
  Object.assign(behaviour, DEFAULT_T_BEHAVIOUR, { silentKlingVersions: [...DEFAULT_T_BEHAVIOUR.silentKlingVersions] });
}

export function registerTControls(router: Router, host: SimHost, t: TControlled): void {
  router.get('/_sim/t/config', (ctx) => {
    ctx.body = t.events.settings;
  });
  router.post('/_sim/t/config', (ctx) => setEventSettings(t.events, ctx));
  router.get('/_sim/t/behaviour', (ctx) => {
    ctx.body = t.behaviour;
  });
  router.post('/_sim/t/behaviour', (ctx) => setBehaviour(t.behaviour, ctx));
  router.post('/_sim/t/event-config', (ctx) => setEventConfig(t, ctx));
  /** Body: {code, count?, op?, secret_id?} (see index.ts's header). */
  router.post('/_sim/t/account-faults', (ctx) => {
    const ops = ['submit', 'poll', 'list', 'config', 'events'] as const;
    const fault = readAccountFault(ctx, 'secret_id', (id) => simTAccountOf(id) !== undefined, Object.keys(T_ACCOUNT_ERRORS), ops);
    if (fault) ctx.body = { ok: true, active: t.accountFaults.add(fault) };
  });
  router.delete('/_sim/t/account-faults', (ctx) => {
    t.accountFaults.clear();
    ctx.body = { ok: true };
  });
  // The simulator's own reset (POST /_sim/reset) forgets T's event state too.
  host.onReset(() => resetT(t));
  router.post('/_sim/t/reset', (ctx) => {
    resetT(t);
    ctx.body = { ok: true };
  });
}
