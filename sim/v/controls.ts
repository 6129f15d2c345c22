/**
 * V's own test controls under /_sim/v/ (index.ts's header lists them): account faults, the account's inference
 * endpoints, and the model facts no source confirms. They set the VState the operations read.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isSimVApiKey, SIM_ACCOUNTS } from '../accounts';
import type { AccountFaultOp } from '../account-faults';
import { ACCOUNT_ERRORS } from './errors';
import { findVModel, type VMode, type VModelFacts } from './models';
import type { VState } from './operations';
import type { SimHost } from '../host';

const V_MODES: readonly VMode[] = ['text', 'first_frame', 'first_last_frame', 'reference_images', 'reference_media'];
const FAULT_OPS = ['submit', 'poll', 'list', 'cancel', '*'];

function refuse(ctx: Context, error: string): void {
  ctx.status = 400;
  ctx.body = { error };
}

/** POST /_sim/v/account-faults {code, count?, op?: 'submit'|'poll'|'list'|'cancel'|'*', api_key?}. */
function addAccountFault(state: VState, ctx: Context): void {
  const b = (ctx.request.body ?? {}) as { code?: unknown; count?: unknown; op?: unknown; api_key?: unknown };
  if (typeof b.code !== 'string' || !b.code) return refuse(ctx, `code is required; known codes: ${Object.keys(ACCOUNT_ERRORS).join(', ')}`);
  if (b.op !== undefined && !FAULT_OPS.includes(String(b.op))) return refuse(ctx, `op must be one of ${FAULT_OPS.join(', ')}`);
  if (b.api_key !== undefined && (typeof b.api_key !== 'string' || !isSimVApiKey(b.api_key)))
    return refuse(ctx, `api_key must be one of the simulator's V keys (${SIM_ACCOUNTS.V.apiKey} or ${SIM_ACCOUNTS.V.apiKey}-<name>)`);
  const active = state.accountFaults.add({
    code: b.code,
    op: (b.op as AccountFaultOp | undefined) ?? 'submit',
    ...(typeof b.count === 'number' ? { remaining: b.count } : {}),
    ...(typeof b.api_key === 'string' ? { account: b.api_key } : {}),
  });
  ctx.body = { ok: true, active };
}

/** POST /_sim/v/endpoints {endpoints?: {"ep-…": "<model id>"}, listedModel?: "endpoint" | "model"}. */
function setEndpoints(state: VState, ctx: Context): void {
  const b = (ctx.request.body ?? {}) as { endpoints?: unknown; listedModel?: unknown };
  const given = typeof b.endpoints === 'object' && b.endpoints !== null ? Object.entries(b.endpoints as Record<string, unknown>) : [];
  state.endpoints = new Map(given.filter((e): e is [string, string] => /^ep-[A-Za-z0-9-]+$/.test(e[0]) && typeof e[1] === 'string'));
  state.listedModel = b.listedModel === 'model' ? 'model' : 'endpoint';
  ctx.body = { endpoints: Object.fromEntries(state.endpoints), listedModel: state.listedModel };
}

/** One model's facts from POST /_sim/v/behaviour, or what is wrong with them. */
function parseFactsOf(id: string, f: unknown): VModelFacts | string {
  const facts = (f ?? {}) as Record<string, unknown>;
  const entry: VModelFacts = {};
  if (facts.modes !== undefined) {
    if (!Array.isArray(facts.modes) || !facts.modes.every((m) => V_MODES.includes(m as VMode)))
      return `modelFacts.${id}.modes: a list of ${V_MODES.join(', ')}`;
    entry.modes = facts.modes as VMode[];
  }
  for (const k of ['maxReferenceImages', 'maxReferenceVideos', 'maxReferenceAudios'] as const) {
    const n = facts[k];
    if (n === undefined) continue;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) return `modelFacts.${id}.${k}: a whole number`;
    entry[k] = n;
  }
  return entry;
}

/** The body of POST /_sim/v/behaviour's `modelFacts`, or what is wrong with it. */
function parseModelFacts(raw: unknown): Record<string, VModelFacts> | string {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null) return 'modelFacts must be an object of model id → facts';
  const out: Record<string, VModelFacts> = {};
  for (const [id, f] of Object.entries(raw as Record<string, unknown>)) {
    if (!findVModel(id)) return `modelFacts: ${id} is not a model of the simulator`;
    const entry = parseFactsOf(id, f);
    if (typeof entry === 'string') return entry;
    out[id] = entry;
  }
  return out;
}

/** POST /_sim/v/usage {task_id, completion_tokens}: what the task object reports as its usage from now on. */
function setUsage(host: SimHost, ctx: Context): void {
  const b = (ctx.request.body ?? {}) as { task_id?: unknown; completion_tokens?: unknown };
  const job = typeof b.task_id === 'string' ? host.jobs.get(b.task_id) : undefined;
  if (!job || job.platform !== 'V') return refuse(ctx, 'task_id must be the id of a V task the simulator holds');
  if (typeof b.completion_tokens !== 'number' || !Number.isInteger(b.completion_tokens) || b.completion_tokens < 0)
    return refuse(ctx, 'completion_tokens must be a whole number of tokens');
  job.meta = { ...job.meta, usageOverride: b.completion_tokens };
  host.jobs.changed();
  ctx.body = { ok: true, task_id: job.id, completion_tokens: b.completion_tokens };
}

export function registerVControls(router: Router, state: VState, host: SimHost): void {
  router.post('/_sim/v/usage', (ctx) => setUsage(host, ctx));
  router.post('/_sim/v/account-faults', (ctx) => addAccountFault(state, ctx));
  router.delete('/_sim/v/account-faults', (ctx) => {
    state.accountFaults.clear();
    ctx.body = { ok: true };
  });
  router.post('/_sim/v/endpoints', (ctx) => setEndpoints(state, ctx));
  router.post('/_sim/v/behaviour', (ctx) => {
    const parsed = parseModelFacts((ctx.request.body as { modelFacts?: unknown } | undefined)?.modelFacts);
    if (typeof parsed === 'string') return refuse(ctx, parsed);
    state.modelFacts = parsed;
    ctx.body = { modelFacts: state.modelFacts };
  });
}
