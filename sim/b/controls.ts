/**
 * B's own test controls under /_sim/b/ (index.ts's header lists them): the inner-status-first quirk, how a task
 * echoes its request, what the documents leave open (the event switch's name, v3 tasks on v2, TaskInput names), and
 * account faults. They set the BState the operations read.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { simBAccountOfAccessKey } from '../accounts';
import { readAccountFault } from '../account-faults';
import { VIDEO_EVENT_SWITCH } from './announcements';
import { B_ACCOUNT_ERRORS } from './errors';
import type { BDeps, BState } from './operations';

/** `fieldNames`: TaskInput names no page documents (Kling, PixVerse, Hailuo), renamed per family by a test (validation.ts). */
export const DEFAULT_B_BEHAVIOUR: BState['behaviour'] = {
  videoEventSwitch: VIDEO_EVENT_SWITCH,
  v3TasksOnV2: true,
  fieldNames: {},
  billsToday: false,
};

export function initialBState(): BState {
  return { callbacks: new Map(), quirks: { innerStatusLeads: false }, echo: 'exact', behaviour: { ...DEFAULT_B_BEHAVIOUR } };
}

function fieldNamesOf(value: unknown): Record<string, Record<string, string>> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([family, names]) => [
      family,
      Object.fromEntries(
        Object.entries(typeof names === 'object' && names !== null ? names : {}).filter(
          (e): e is [string, string] => typeof e[1] === 'string',
        ),
      ),
    ]),
  );
}

/** Body: {videoEventSwitch?, v3TasksOnV2?, fieldNames?, billsToday?}; `{}` restores the defaults. A new switch name starts a new, empty configuration. */
function setBehaviour(state: BState, ctx: Context): void {
  const b = (ctx.request.body ?? {}) as { videoEventSwitch?: unknown; v3TasksOnV2?: unknown; fieldNames?: unknown; billsToday?: unknown };
  const name =
    typeof b.videoEventSwitch === 'string' && /^enable[A-Za-z]+Event$/.test(b.videoEventSwitch)
      ? b.videoEventSwitch
      : DEFAULT_B_BEHAVIOUR.videoEventSwitch;
  // The configurations hold the switches by name: under a new name every account starts afresh.
  if (state.behaviour.videoEventSwitch !== name) state.callbacks = new Map();
  state.behaviour = {
    videoEventSwitch: name,
    v3TasksOnV2: typeof b.v3TasksOnV2 === 'boolean' ? b.v3TasksOnV2 : DEFAULT_B_BEHAVIOUR.v3TasksOnV2,
    fieldNames: fieldNamesOf(b.fieldNames),
    billsToday: b.billsToday === true,
  };
  ctx.body = state.behaviour;
}

export function registerBControls(router: Router, { state, accountFaults }: BDeps): void {
  router.get('/_sim/b/quirks', (ctx) => {
    ctx.body = state.quirks;
  });
  router.get('/_sim/b/echo', (ctx) => {
    ctx.body = { echo: state.echo };
  });
  router.post('/_sim/b/echo', (ctx) => {
    const b = ctx.request.body as { echo?: unknown } | undefined;
    state.echo = b?.echo === 'defaults' || b?.echo === 'known-only' ? b.echo : 'exact';
    ctx.body = { echo: state.echo };
  });
  router.get('/_sim/b/behaviour', (ctx) => {
    ctx.body = state.behaviour;
  });
  router.post('/_sim/b/behaviour', (ctx) => setBehaviour(state, ctx));
  /** Body: {code, count?, op?, access_key_id?} (see index.ts's header). */
  router.post('/_sim/b/account-faults', (ctx) => {
    const ops = ['submit', 'poll', 'list', 'config'] as const;
    const isAccount = (ak: string) => simBAccountOfAccessKey(ak) !== undefined;
    const fault = readAccountFault(ctx, 'access_key_id', isAccount, Object.keys(B_ACCOUNT_ERRORS), ops);
    if (fault) ctx.body = { ok: true, active: accountFaults.add(fault) };
  });
  router.delete('/_sim/b/account-faults', (ctx) => {
    accountFaults.clear();
    ctx.body = { ok: true };
  });
  router.post('/_sim/b/quirks', (ctx) => {
    const b = ctx.request.body as { innerStatusLeads?: unknown } | undefined;
    if (typeof b?.innerStatusLeads === 'boolean') state.quirks.innerStatusLeads = b.innerStatusLeads;
    ctx.body = state.quirks;
  });
}
