/**
 * Platform V's operations on its task resource, one function each: create, read, list, cancel-or-delete. Each
 * counts itself, lets the host apply an injected fault (host.intercept), admits the caller (a Bearer API key of one
 * of the simulator's accounts, then that account's faults), and only then does its work; a refusal is a VError in
 * Ark's shape. index.ts binds them to their paths.
 */
import { randomInt } from 'node:crypto';
import type { Context } from 'koa';
import { isSimVApiKey, SIM_ACCOUNTS } from '../accounts';
import { AccountFaults } from '../account-faults';
import { parseDirectives } from '../directives';
import type { FaultStatus, SimHost, SimOp } from '../host';
import type { SimJob } from '../jobs';
import type { VCallbacks } from './announcements';
import { accountError, invalidParameter, renderVFault, sendVError, VError } from './errors';
import { vModelsWith, type VModelFacts } from './models';
import { metaFromPlan, taskObject, visible, vMeta, vStatus, V_STATUSES, type VStatus } from './tasks';
import { validateVCreate, type VCreatePlan } from './validation';

/** GUESS: page_num and page_size in [1, 500], page_size 10 by default (Volcengine 查询视频生成任务列表, as recalled). */
const PAGE_MAX = 500;
const DEFAULT_PAGE_SIZE = 10;
const LIST_PARAMETERS = new Set(['page_num', 'page_size', 'filter.status', 'filter.task_ids', 'filter.model', 'filter.service_tier']);

/** What V's test controls set (controls.ts) and its operations read; the simulator's reset restores it. */
export interface VState {
  /** Account faults, each keyed by the API key it is limited to (AccountFault.account), if any. */
  accountFaults: AccountFaults;
  /** Inference endpoints of the simulated account: endpoint id → the model it serves. */
  endpoints: Map<string, string>;
  /** What a task made through an endpoint shows as its model: the endpoint id, or the model's name. */
  listedModel: 'endpoint' | 'model';
  /** Model facts no source confirms, as a test set them (POST /_sim/v/behaviour). */
  modelFacts: Record<string, VModelFacts>;
}

export function initialVState(): VState {
  return { accountFaults: new AccountFaults(), endpoints: new Map(), listedModel: 'endpoint', modelFacts: {} };
}

/** What every operation is given: the host, V's state and its callbacks. */
export interface VDeps {
  readonly host: SimHost;
  readonly state: VState;
  readonly callbacks: VCallbacks;
}

/** The API key a request carries (checked by admit()). */
function apiKeyOf(ctx: Context): string {
  return ctx.get('Authorization').replace(/^Bearer /, '');
}

/** The account that created a job: jobs from before accounts belong to the default key. */
export function ownerOf(job: SimJob): string {
  return vMeta(job).apiKey ?? SIM_ACCOUNTS.V.apiKey;
}

function promptOf(body: unknown): string | undefined {
  const content = (body as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return undefined;
  const item = content.find((c: unknown) => (c as { type?: unknown } | null)?.type === 'text') as { text?: unknown } | undefined;
  return typeof item?.text === 'string' ? item.text : undefined;
}

/** Auth, then an account fault for this op; answers and returns false when the request must stop. */
function admit({ host, state }: VDeps, ctx: Context, op: SimOp): boolean {
  const key = apiKeyOf(ctx);
  if (!ctx.get('Authorization').startsWith('Bearer ') || !isSimVApiKey(key)) {
    host.stats.V.rejected++;
    sendVError(ctx, accountError('AuthenticationError'));
    return false;
  }
  const code = state.accountFaults.take(key, op);
  if (code === undefined) return true;
  host.stats.V.rejected++;
  sendVError(ctx, accountError(code));
  return false;
}

function fail({ host }: VDeps, ctx: Context, err: unknown): void {
  if (!(err instanceof VError)) throw err;
  host.stats.V.rejected++;
  sendVError(ctx, err);
}

/** A readable V task of the caller's account, or a 404 answered. */
function findTask({ host }: VDeps, ctx: Context): SimJob | undefined {
  const job = host.jobs.get(ctx.params.id ?? '');
  if (job && visible(host, job) && ownerOf(job) === apiKeyOf(ctx)) return job;
  sendVError(ctx, new VError(404, 'ResourceNotFound', `The specified task ${ctx.params.id} is not found.`, 'id'));
  host.stats.V.rejected++;
  return undefined;
}

/** A create's body checked as Ark checks it; a create may name one of the account's endpoints, which runs its model. */
function planCreate({ host, state }: VDeps, body: unknown, endpointId: string | undefined): VCreatePlan {
  return validateVCreate(
    endpointId ? { ...(body as object), model: state.endpoints.get(endpointId) } : body,
    (id) => {
      const draft = host.jobs.get(id);
      if (!draft || !visible(host, draft)) return undefined;
      return { model: draft.model, succeeded: vStatus(host, draft) === 'succeeded', draft: vMeta(draft).draft === true };
    },
    () => randomInt(0, 2 ** 31),
    vModelsWith(state.modelFacts),
  );
}

/** POST …/tasks: create → {"id"}. */
export function createTask(deps: VDeps, ctx: Context): void {
  const { host, state } = deps;
  const body = ctx.request.body as unknown;
  const text = promptOf(body);
  const directives = parseDirectives(text);
  host.stats.V.submitRequests++;
  if (host.intercept(ctx, 'V', 'submit', renderVFault, host.promptFault(`V-submit:${text ?? ''}`, directives.submitFault))) return;
  if (!admit(deps, ctx, 'submit')) return;
  try {
    const named = (body as { model?: unknown } | undefined)?.model;
    const endpointId = typeof named === 'string' && state.endpoints.has(named) ? named : undefined;
    const plan = planCreate(deps, body, endpointId);
    if (directives.reject) throw accountError(directives.reject);
    // Over the account's concurrency, Ark refuses the create (429 InflightBatchsizeExceeded) and creates nothing.
    if (!host.capacity.hasRoom('V', apiKeyOf(ctx))) {
      host.capacity.refused('V', apiKeyOf(ctx));
      throw accountError('InflightBatchsizeExceeded');
    }
    const job = host.jobs.create(
      {
        platform: 'V',
        kind: 'video',
        model: plan.model.id,
        directives,
        outputs: 1,
        meta: {
          ...metaFromPlan(plan, host.publicUrl(ctx), body, directives),
          ...(endpointId && state.listedModel === 'endpoint' ? { listedModel: endpointId } : {}),
          apiKey: apiKeyOf(ctx),
        } as unknown as Record<string, unknown>,
      },
      'cgt-',
    );
    host.stats.V.jobsCreated++;
    host.capacity.started('V', apiKeyOf(ctx), job);
    ctx.body = { id: job.id };
    deps.callbacks.created(job);
  } catch (err) {
    fail(deps, ctx, err);
  }
}

/** GET …/tasks/{id}: the task object. */
export function getTask(deps: VDeps, ctx: Context): void {
  const { host } = deps;
  host.stats.V.polls++;
  const known = host.jobs.get(ctx.params.id ?? '');
  let fault: { status: FaultStatus } | undefined;
  if (known && known.platform === 'V' && known.pollFaultsLeft > 0) {
    known.pollFaultsLeft--;
    host.jobs.changed();
    fault = known.directives.pollFault;
  }
  if (host.intercept(ctx, 'V', 'poll', renderVFault, fault)) return;
  if (!admit(deps, ctx, 'poll')) return;
  const job = findTask(deps, ctx);
  if (job) ctx.body = taskObject(host, job, host.publicUrl(ctx));
}

interface ListQuery {
  pageNum: number;
  pageSize: number;
  status?: string;
  tier?: string;
  model?: string;
  ids?: Set<string>;
}

/** The task list's query parameters, each checked; throws a VError naming the first bad one. */
function readListQuery(q: Context['query']): ListQuery {
  for (const k of Object.keys(q)) if (!LIST_PARAMETERS.has(k)) throw invalidParameter(k, 'not a parameter of the task list');
  const single = (k: string): string | undefined => {
    const v = q[k];
    if (Array.isArray(v)) throw invalidParameter(k, 'give it once');
    return v;
  };
  const page = (k: string, dflt: number): number => {
    const v = single(k);
    if (v === undefined) return dflt;
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > PAGE_MAX) throw invalidParameter(k, `must be an integer from 1 to ${PAGE_MAX}`);
    return Number(v);
  };
  const pageNum = page('page_num', 1);
  const pageSize = page('page_size', DEFAULT_PAGE_SIZE);
  const status = single('filter.status');
  if (status !== undefined && !(V_STATUSES as readonly string[]).includes(status))
    throw invalidParameter('filter.status', `must be one of ${V_STATUSES.join(', ')}`);
  const tier = single('filter.service_tier');
  if (tier !== undefined && tier !== 'default' && tier !== 'flex') throw invalidParameter('filter.service_tier', 'must be default or flex');
  const model = single('filter.model');
  const rawIds = q['filter.task_ids'];
  const ids = rawIds === undefined ? undefined : new Set(Array.isArray(rawIds) ? rawIds : [rawIds]);
  return { pageNum, pageSize, status, tier, model, ids };
}

/** The caller's visible tasks that match the list's filters, newest first (GUESS: the order). */
function matchingTasks(host: SimHost, key: string, query: ListQuery, now: number): SimJob[] {
  const { status, ids, model, tier } = query;
  return (
    host.jobs
      .all('V')
      .filter((job) => visible(host, job, now))
      .filter((job) => ownerOf(job) === key)
      .filter((job) => status === undefined || vStatus(host, job, now) === (status as VStatus))
      .filter((job) => ids === undefined || ids.has(job.id))
      // GUESS: filter.model matches what the task shows as its model.
      .filter((job) => model === undefined || (vMeta(job).listedModel ?? job.model) === model)
      .filter((job) => tier === undefined || vMeta(job).serviceTier === tier)
      .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id))
  );
}

/** GET …/tasks: page_num, page_size, filter.status, filter.task_ids (repeated), filter.model, filter.service_tier. */
export function listTasks(deps: VDeps, ctx: Context): void {
  const { host } = deps;
  host.stats.V.lists++;
  if (host.intercept(ctx, 'V', 'list', renderVFault)) return;
  if (!admit(deps, ctx, 'list')) return;
  try {
    const query = readListQuery(ctx.query);
    const now = host.now();
    const matching = matchingTasks(host, apiKeyOf(ctx), query, now);
    const base = host.publicUrl(ctx);
    const { pageNum, pageSize } = query;
    ctx.body = {
      total: matching.length,
      items: matching.slice((pageNum - 1) * pageSize, pageNum * pageSize).map((job) => taskObject(host, job, base, now)),
    };
  } catch (err) {
    fail(deps, ctx, err);
  }
}

/** DELETE …/tasks/{id}: queued → cancelled; succeeded/failed/expired → record deleted; running/cancelled → refused. */
export function cancelOrDeleteTask(deps: VDeps, ctx: Context): void {
  const { host } = deps;
  host.stats.V.cancels++;
  if (host.intercept(ctx, 'V', 'cancel', renderVFault)) return;
  if (!admit(deps, ctx, 'cancel')) return;
  const job = findTask(deps, ctx);
  if (!job) return;
  const status = vStatus(host, job);
  if (status === 'queued') {
    host.jobs.cancel(job);
    deps.callbacks.check(job);
  } else if (status === 'succeeded' || status === 'failed' || status === 'expired') {
    vMeta(job).deletedAt = host.now();
    host.jobs.changed();
  } else {
    // GUESS: the code; the docs only say a running or cancelled task cannot be cancelled or deleted.
    host.stats.V.rejected++;
    sendVError(ctx, new VError(400, 'InvalidParameter', `The task ${job.id} is ${status} and cannot be cancelled or deleted.`, 'id'));
    return;
  }
  ctx.body = {};
}
