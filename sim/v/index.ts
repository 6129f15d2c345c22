/**
 * Platform V (Volcengine Ark content-generation tasks, Seedance), simulated from upstreams.md ("Platform V",
 * "Corrections"), the official Ark SDK volcengine-ark-runtime 5.0.54 (resources/content_generation/tasks.py and
 * its types) and the Volcengine/BytePlus docs. Base path /api/v3, `Authorization: Bearer <api key>`.
 *
 *   POST   /api/v3/contents/generations/tasks        create → {"id"}
 *   GET    /api/v3/contents/generations/tasks/{id}   the task object (tasks.ts)
 *   GET    /api/v3/contents/generations/tasks        list: page_num, page_size, filter.status, filter.task_ids
 *                                                    (repeated), filter.model, filter.service_tier → {total, items}
 *   DELETE /api/v3/contents/generations/tasks/{id}   queued → cancelled; succeeded/failed/expired → record deleted;
 *                                                    running/cancelled → refused (BytePlus "Cancel or delete a video
 *                                                    generation task" table)
 *
 * Test controls of V's own (besides the core's /_sim endpoints and prompt directives):
 *   [sim:reject=CODE]          the create answers CODE (ACCOUNT_ERRORS in errors.ts: QuotaExceeded, SetLimitExceeded,
 *                              InvalidEndpoint.ClosedEndpoint, AccountOverdueError, ModelNotOpen…) and creates nothing
 *   [sim:submit=429:CODE xN]   the first N creates of the prompt answer 429 CODE (any of Ark's 429 codes in
 *                              errors.ts, Retry-After where its table says it may be sent), then the job is created
 *   [sim:task-error=CODE]      the task fails with error.code CODE
 *   [sim:expires=MS]           the task counts as past execution_expires_after MS ms after creation (→ expired)
 *   POST /_sim/v/account-faults {code, count?, op?, api_key?}   the next `count` requests (default: all, until
 *                              DELETE) of `op` (submit by default; poll, list, cancel or *) answer CODE; with
 *                              `api_key`, only that account's requests (one overdue or throttled account of several)
 *
 * Accounts: besides the default key, every `sim-v-key-<name>` is an account of its own (sim/accounts.ts); a task is
 * read, listed and cancelled only through the account that created it (another account gets 404, as for a task
 * that does not exist).
 *   DELETE /_sim/v/account-faults
 *   POST /_sim/v/endpoints {endpoints?: {"ep-…": "<model id>"}, listedModel?: "endpoint" | "model"}   the account's
 *                              inference endpoints (creates may name one instead of a model), and what a task made
 *                              through one shows as `model` (and matches in filter.model): the endpoint id
 *                              (default) or the model's name — not documented; `{}` restores none and the default
 *   POST /_sim/v/behaviour {modelFacts?: {"<model id>": {modes?, maxReferenceImages?, maxReferenceVideos?,
 *                              maxReferenceAudios?}}}   the model facts no source confirms (2.0's first+last frame and
 *                              reference counts), laid over models.ts; `{}` restores the documented ones
 */
import { randomInt } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isSimVApiKey, SIM_ACCOUNTS } from '../accounts';
import { parseDirectives } from '../directives';
import type { FaultStatus, SimHost, SimOp, SimPlatformModule } from '../host';
import type { SimJob } from '../jobs';
import { VCallbacks } from './announcements';
import { ACCOUNT_ERRORS, accountError, invalidParameter, renderVFault, sendVError, VError } from './errors';
import { findVModel, vModelsWith, type VMode, type VModelFacts } from './models';
import { metaFromPlan, taskObject, visible, vMeta, vStatus, V_STATUSES, type VStatus } from './tasks';
import { validateVCreate } from './validation';

export { V_MODELS } from './models';
export { validateVCreate } from './validation';
export { ACCOUNT_ERRORS } from './errors';

const BASE = '/api/v3/contents/generations/tasks';
/** GUESS: page_num and page_size in [1, 500], page_size 10 by default (Volcengine 查询视频生成任务列表, as recalled). */
const PAGE_MAX = 500;
const DEFAULT_PAGE_SIZE = 10;

interface AccountFault {
  code: string;
  op: SimOp | '*';
  remaining?: number;
  /** Only this account's requests; undefined: every account's. */
  apiKey?: string;
}

/** The API key a request carries (checked by admit()). */
function apiKeyOf(ctx: Context): string {
  return ctx.get('Authorization').replace(/^Bearer /, '');
}

/** The account that created a job: jobs from before accounts belong to the default key. */
function ownerOf(job: SimJob): string {
  return vMeta(job).apiKey ?? SIM_ACCOUNTS.V.apiKey;
}

function promptOf(body: unknown): string | undefined {
  const content = (body as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return undefined;
  const item = content.find((c: unknown) => (c as { type?: unknown } | null)?.type === 'text') as { text?: unknown } | undefined;
  return typeof item?.text === 'string' ? item.text : undefined;
}

export function registerPlatformV(router: Router, host: SimHost): void {
  // host.stats.V is read at each use: the simulator's reset replaces the object.
  const callbacks = new VCallbacks(host);
  let accountFaults: AccountFault[] = [];
  /** Inference endpoints of the simulated account: endpoint id → the model it serves. */
  let endpoints = new Map<string, string>();
  let listedModel: 'endpoint' | 'model' = 'endpoint';
  /** Model facts no source confirms, as a test set them (POST /_sim/v/behaviour). */
  let modelFacts: Record<string, VModelFacts> = {};
  // The simulator's own reset (POST /_sim/reset) clears V's account faults, endpoints and model facts too.
  host.onReset(() => {
    accountFaults = [];
    endpoints = new Map();
    listedModel = 'endpoint';
    modelFacts = {};
  });

  /** Auth, then an account fault for this op; answers and returns false when the request must stop. */
  function admit(ctx: Context, op: SimOp): boolean {
    const key = apiKeyOf(ctx);
    if (!ctx.get('Authorization').startsWith('Bearer ') || !isSimVApiKey(key)) {
      host.stats.V.rejected++;
      sendVError(ctx, accountError('AuthenticationError'));
      return false;
    }
    const fault = accountFaults.find((f) => (f.op === '*' || f.op === op) && (f.apiKey === undefined || f.apiKey === key));
    if (!fault) return true;
    if (fault.remaining !== undefined) fault.remaining--;
    accountFaults = accountFaults.filter((f) => f.remaining === undefined || f.remaining > 0);
    host.stats.V.rejected++;
    sendVError(ctx, accountError(fault.code));
    return false;
  }

  function fail(ctx: Context, err: unknown): void {
    if (!(err instanceof VError)) throw err;
    host.stats.V.rejected++;
    sendVError(ctx, err);
  }

  /** A readable V task of the caller's account, or a 404 answered. */
  function findTask(ctx: Context) {
    const job = host.jobs.get(ctx.params.id ?? '');
    if (job && visible(host, job) && ownerOf(job) === apiKeyOf(ctx)) return job;
    sendVError(ctx, new VError(404, 'ResourceNotFound', `The specified task ${ctx.params.id} is not found.`, 'id'));
    host.stats.V.rejected++;
    return undefined;
  }

  // ------------------------------------------------------------------ create
  router.post(BASE, (ctx) => {
    const body = ctx.request.body as unknown;
    const text = promptOf(body);
    const directives = parseDirectives(text);
    host.stats.V.submitRequests++;
    if (host.intercept(ctx, 'V', 'submit', renderVFault, host.promptFault(`V-submit:${text ?? ''}`, directives.submitFault))) return;
    if (!admit(ctx, 'submit')) return;
    try {
      // A create may name one of the account's endpoints: it runs the endpoint's model.
      const named = (body as { model?: unknown } | undefined)?.model;
      const endpointId = typeof named === 'string' && endpoints.has(named) ? named : undefined;
      const plan = validateVCreate(
        endpointId ? { ...(body as object), model: endpoints.get(endpointId) } : body,
        (id) => {
          const draft = host.jobs.get(id);
          if (!draft || !visible(host, draft)) return undefined;
          return { model: draft.model, succeeded: vStatus(host, draft) === 'succeeded', draft: vMeta(draft).draft === true };
        },
        () => randomInt(0, 2 ** 31),
        vModelsWith(modelFacts),
      );
      if (directives.reject) throw accountError(directives.reject);
      const job = host.jobs.create(
        {
          platform: 'V',
          kind: 'video',
          model: plan.model.id,
          directives,
          outputs: 1,
          meta: {
            ...metaFromPlan(plan, host.publicUrl(ctx), body, directives),
            ...(endpointId && listedModel === 'endpoint' ? { listedModel: endpointId } : {}),
            apiKey: apiKeyOf(ctx),
          } as unknown as Record<string, unknown>,
        },
        'cgt-',
      );
      host.stats.V.jobsCreated++;
      ctx.body = { id: job.id };
      callbacks.created(job);
    } catch (err) {
      fail(ctx, err);
    }
  });

  // ------------------------------------------------------------------ get
  router.get(`${BASE}/:id`, (ctx) => {
    host.stats.V.polls++;
    const known = host.jobs.get(ctx.params.id ?? '');
    let fault: { status: FaultStatus } | undefined;
    if (known && known.platform === 'V' && known.pollFaultsLeft > 0) {
      known.pollFaultsLeft--;
      host.jobs.changed();
      fault = known.directives.pollFault;
    }
    if (host.intercept(ctx, 'V', 'poll', renderVFault, fault)) return;
    if (!admit(ctx, 'poll')) return;
    const job = findTask(ctx);
    if (job) ctx.body = taskObject(host, job, host.publicUrl(ctx));
  });

  // ------------------------------------------------------------------ list
  router.get(BASE, (ctx) => {
    host.stats.V.lists++;
    if (host.intercept(ctx, 'V', 'list', renderVFault)) return;
    if (!admit(ctx, 'list')) return;
    try {
      const q = ctx.query;
      const known = new Set(['page_num', 'page_size', 'filter.status', 'filter.task_ids', 'filter.model', 'filter.service_tier']);
      for (const k of Object.keys(q)) if (!known.has(k)) throw invalidParameter(k, 'not a parameter of the task list');
      const single = (k: string): string | undefined => {
        const v = q[k];
        if (Array.isArray(v)) throw invalidParameter(k, 'give it once');
        return v;
      };
      const page = (k: string, dflt: number): number => {
        const v = single(k);
        if (v === undefined) return dflt;
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > PAGE_MAX)
          throw invalidParameter(k, `must be an integer from 1 to ${PAGE_MAX}`);
        return Number(v);
      };
      const pageNum = page('page_num', 1);
      const pageSize = page('page_size', DEFAULT_PAGE_SIZE);
      const status = single('filter.status');
      if (status !== undefined && !(V_STATUSES as readonly string[]).includes(status))
        throw invalidParameter('filter.status', `must be one of ${V_STATUSES.join(', ')}`);
      const tier = single('filter.service_tier');
      if (tier !== undefined && tier !== 'default' && tier !== 'flex')
        throw invalidParameter('filter.service_tier', 'must be default or flex');
      const model = single('filter.model');
      const rawIds = q['filter.task_ids'];
      const ids = rawIds === undefined ? undefined : new Set(Array.isArray(rawIds) ? rawIds : [rawIds]);
      const now = host.now();
      const key = apiKeyOf(ctx);
      // GUESS: newest first.
      const matching = host.jobs
        .all('V')
        .filter((job) => visible(host, job, now))
        .filter((job) => ownerOf(job) === key)
        .filter((job) => status === undefined || vStatus(host, job, now) === (status as VStatus))
        .filter((job) => ids === undefined || ids.has(job.id))
        // GUESS: filter.model matches what the task shows as its model.
        .filter((job) => model === undefined || (vMeta(job).listedModel ?? job.model) === model)
        .filter((job) => tier === undefined || vMeta(job).serviceTier === tier)
        .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
      const base = host.publicUrl(ctx);
      ctx.body = {
        total: matching.length,
        items: matching.slice((pageNum - 1) * pageSize, pageNum * pageSize).map((job) => taskObject(host, job, base, now)),
      };
    } catch (err) {
      fail(ctx, err);
    }
  });

  // ------------------------------------------------------------------ cancel or delete
  router.delete(`${BASE}/:id`, (ctx) => {
    host.stats.V.cancels++;
    if (host.intercept(ctx, 'V', 'cancel', renderVFault)) return;
    if (!admit(ctx, 'cancel')) return;
    const job = findTask(ctx);
    if (!job) return;
    const status = vStatus(host, job);
    if (status === 'queued') {
      host.jobs.cancel(job);
      callbacks.check(job);
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
  });

  // ------------------------------------------------------------------ V's own test controls
  /** Body: {code, count?, op?: 'submit'|'poll'|'list'|'cancel'|'*'} */
  router.post('/_sim/v/account-faults', (ctx) => {
    const b = (ctx.request.body ?? {}) as { code?: unknown; count?: unknown; op?: unknown; api_key?: unknown };
    const ops = ['submit', 'poll', 'list', 'cancel', '*'];
    if (typeof b.code !== 'string' || !b.code) {
      ctx.status = 400;
      ctx.body = { error: `code is required; known codes: ${Object.keys(ACCOUNT_ERRORS).join(', ')}` };
      return;
    }
    if (b.op !== undefined && !ops.includes(String(b.op))) {
      ctx.status = 400;
      ctx.body = { error: `op must be one of ${ops.join(', ')}` };
      return;
    }
    if (b.api_key !== undefined && (typeof b.api_key !== 'string' || !isSimVApiKey(b.api_key))) {
      ctx.status = 400;
      ctx.body = { error: `api_key must be one of the simulator's V keys (${SIM_ACCOUNTS.V.apiKey} or ${SIM_ACCOUNTS.V.apiKey}-<name>)` };
      return;
    }
    accountFaults.push({
      code: b.code,
      op: (b.op as SimOp | '*' | undefined) ?? 'submit',
      ...(typeof b.count === 'number' ? { remaining: b.count } : {}),
      ...(typeof b.api_key === 'string' ? { apiKey: b.api_key } : {}),
    });
    ctx.body = { ok: true, active: accountFaults.length };
  });
  router.delete('/_sim/v/account-faults', (ctx) => {
    accountFaults = [];
    ctx.body = { ok: true };
  });
  router.post('/_sim/v/endpoints', (ctx) => {
    const b = (ctx.request.body ?? {}) as { endpoints?: unknown; listedModel?: unknown };
    const given = typeof b.endpoints === 'object' && b.endpoints !== null ? Object.entries(b.endpoints as Record<string, unknown>) : [];
    endpoints = new Map(given.filter((e): e is [string, string] => /^ep-[A-Za-z0-9-]+$/.test(e[0]) && typeof e[1] === 'string'));
    listedModel = b.listedModel === 'model' ? 'model' : 'endpoint';
    ctx.body = { endpoints: Object.fromEntries(endpoints), listedModel };
  });
  router.post('/_sim/v/behaviour', (ctx) => {
    const parsed = parseModelFacts((ctx.request.body as { modelFacts?: unknown } | undefined)?.modelFacts);
    if (typeof parsed === 'string') {
      ctx.status = 400;
      ctx.body = { error: parsed };
      return;
    }
    modelFacts = parsed;
    ctx.body = { modelFacts };
  });
}

const V_MODES: readonly VMode[] = ['text', 'first_frame', 'first_last_frame', 'reference_images', 'reference_media'];

/** The body of POST /_sim/v/behaviour's `modelFacts`, or what is wrong with it. */
function parseModelFacts(raw: unknown): Record<string, VModelFacts> | string {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null) return 'modelFacts must be an object of model id → facts';
  const out: Record<string, VModelFacts> = {};
  for (const [id, f] of Object.entries(raw as Record<string, unknown>)) {
    if (!findVModel(id)) return `modelFacts: ${id} is not a model of the simulator`;
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
    out[id] = entry;
  }
  return out;
}

export const platformV: SimPlatformModule = { platform: 'V', register: registerPlatformV };
