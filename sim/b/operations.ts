/**
 * Platform B's operations, one function each: the creates (text_to_video, image_to_video, image), a task's detail,
 * the task list, the callback configuration read and written, and anything else under /v2 or /v3 (an unknown URI).
 * Each counts itself, lets the host apply an injected fault (host.intercept), authenticates the caller (bce-auth-v1
 * everywhere, an API key on v3) and applies that account's faults before its work; a refusal is a BError in B's
 * shape. index.ts binds them to their paths.
 */
import type { Context } from 'koa';
import { SIM_ACCOUNTS, simBAccountOfAccessKey, simBAccountOfApiKey, type SimBAccount } from '../accounts';
import type { AccountFaults } from '../account-faults';
import { parseDirectives } from '../directives';
import type { SimHost, SimOp } from '../host';
import type { SimJob } from '../jobs';
import { emptyCallbackConfig, renderCallbackConfig, updateCallbackConfig, type CallbackConfig } from './announcements';
import { accountError, BError, malformed, notFound, renderBFault, sendError, sendJson, taskNotFound } from './errors';
import { newTaskId } from './ids';
import { taskInputKey, type VideoEndpoint } from './models';
import { verifyBceRequest } from './signing';
import { bMeta, listTasks as listTaskPage, queryable, renderTaskDetail, type BJobMeta } from './tasks';
import { imageInputType, imagePromptOf, validateImageCreate, validateVideoCreate, VIDEO_INPUT_TYPE, videoPromptOf } from './validation';

export type ApiVersion = 'v2' | 'v3';
export type CreateEndpoint = VideoEndpoint | 'image';
type EchoMode = 'exact' | 'defaults' | 'known-only';

const INNER_FIRST_DIRECTIVE = /\[sim:b-inner-first\]/;

/** What B's test controls set (controls.ts) and its operations read; the simulator's reset restores it. */
export interface BState {
  /** Each account's callback configuration, by its AccessKey ID (an account never configured: the empty one). */
  callbacks: Map<string, CallbackConfig>;
  quirks: { innerStatusLeads: boolean };
  echo: EchoMode;
  /**
   * What the documents leave open besides the echo (/_sim/b/behaviour): the video-generation event switch's name
   * (announcements.ts), and whether a task created through /v3 is read and listed through /v2 — the API-key page
   * says v3 requests equal v2's, not that their tasks are one list [OFF Mmmleact0]; default: they are.
   */
  behaviour: {
    videoEventSwitch: string;
    v3TasksOnV2: boolean;
    fieldNames: Record<string, Record<string, string>>;
    /** The bill of the running day is served as it stands (a test's reconciliation of today); B refuses it (day-totals.ts). */
    billsToday: boolean;
  };
}

/** What every operation is given: the host, B's state and its account faults. */
export interface BDeps {
  readonly host: SimHost;
  readonly state: BState;
  readonly accountFaults: AccountFaults;
}

function headerRecord(ctx: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(',') : v;
  return out;
}

/**
 * Authenticates a request: bce-auth-v1 on every path; `Bearer <API key>` only on v3. Unknown API key → 401
 * [GUESS: the page says a wrong key gives 400/401]. Returns the account the credentials belong to, or the refusal.
 */
export function authenticate(ctx: Context, version: ApiVersion, now: number): SimBAccount | BError {
  const authorization = ctx.get('Authorization') || undefined;
  if (version === 'v3' && authorization?.startsWith('Bearer ')) {
    const key = authorization.slice('Bearer '.length).trim();
    if (!key.startsWith('bce-v3/'))
      return new BError(400, 'InvalidHTTPAuthHeader', 'The Authorization header you provided is invalid: an API key starts with bce-v3/.');
    return simBAccountOfApiKey(key) ?? new BError(401, 'InvalidAccessKeyId', 'The API key you provided is not valid.');
  }
  let account: SimBAccount | undefined;
  const result = verifyBceRequest(
    { method: ctx.method, rawPath: ctx.path, rawQuery: ctx.querystring, headers: headerRecord(ctx), authorization },
    {
      secretFor: (ak) => {
        account = simBAccountOfAccessKey(ak);
        return account?.secretAccessKey;
      },
      now,
    },
  );
  if (!result.ok) return new BError(result.failure.status, result.failure.code, result.failure.message);
  // A verified signature had its AK's secret: secretFor found the account.
  return account as SimBAccount;
}

/** The AccessKey ID of the account that created a job: jobs from before accounts belong to the default account. */
export const ownerOf = (job: SimJob) => bMeta(job).owner ?? SIM_ACCOUNTS.B.accessKeyId;

/** An account's callback configuration (one never configured: the empty one under the current switch name). */
export const callbacksOf = (state: BState, accessKeyId: string): CallbackConfig =>
  state.callbacks.get(accessKeyId) ?? emptyCallbackConfig(state.behaviour.videoEventSwitch);

/**
 * A POST/PUT body the JSON body parser left alone (no JSON content type) is read and parsed here: B takes the body
 * as JSON whatever the content type says [GUESS]; anything that does not parse is MalformedJSON.
 */
async function readUntypedBody(ctx: Context): Promise<void> {
  if (ctx.request.rawBody !== undefined || !['POST', 'PUT'].includes(ctx.method)) return;
  if (!ctx.request.length && ctx.get('transfer-encoding') === '') return;
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  ctx.request.rawBody = text;
  if (text.trim() === '') return;
  try {
    ctx.request.body = JSON.parse(text) as unknown;
  } catch {
    ctx.state.bMalformed = true;
    ctx.request.body = undefined;
  }
}

/**
 * Records and faults the request, authenticates it, then applies the account's faults; the account, or undefined
 * when the request has been answered.
 */
export function admit(
  { host, accountFaults }: BDeps,
  ctx: Context,
  op: SimOp,
  version: ApiVersion,
  promptFault?: ReturnType<SimHost['promptFault']>,
): SimBAccount | undefined {
  if (host.intercept(ctx, 'B', op, renderBFault, promptFault)) return undefined;
  const account = authenticate(ctx, version, host.now());
  const refusal = account instanceof BError ? account : ctx.state.bMalformed ? malformed() : accountFaults.take(account.accessKeyId, op);
  if (refusal !== undefined) {
    host.stats.B.rejected++;
    sendError(ctx, typeof refusal === 'string' ? accountError(refusal) : refusal);
    return undefined;
  }
  return account as SimBAccount;
}

export function refuse({ host }: BDeps, ctx: Context, err: unknown): void {
  if (!(err instanceof BError)) throw err;
  host.stats.B.rejected++;
  sendError(ctx, err);
}

/** `body` without the dotted paths B ignored (FieldReport.ignored: top-level keys and TaskInput members). */
function withoutIgnored(body: unknown, ignored: readonly string[]): unknown {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  for (const path of ignored) {
    const [first, second] = path.split('.');
    if (second === undefined) delete copy[first!];
    else if (typeof copy[first!] === 'object' && copy[first!] !== null) delete (copy[first!] as Record<string, unknown>)[second];
  }
  return copy;
}

type PlannedMeta = Omit<BJobMeta, 'baseUrl' | 'apiVersion'>;

/** A create's body checked for its endpoint: what the job records, its model code and its output count. Throws BError. */
function planCreate(state: BState, endpoint: CreateEndpoint, body: unknown): { meta: PlannedMeta; model: string; outputs: number } {
  if (endpoint === 'image') {
    const v = validateImageCreate(body);
    const t = imageInputType(v.referenceImages);
    const meta = { endpoint, inputType: t.label, requestKey: t.requestKey, request: body, fields: v.fields, output: v.output };
    return { meta, model: v.model.code, outputs: v.output.n };
  }
  const v = validateVideoCreate(endpoint, body, state.behaviour.fieldNames);
  const t = VIDEO_INPUT_TYPE[endpoint];
  const meta: PlannedMeta = {
    endpoint,
    inputType: t.label,
    requestKey: t.requestKey,
    request: body,
    fields: v.fields,
    output: v.output,
    mode: v.mode,
  };
  if (state.echo === 'defaults' && Object.keys(v.defaults).length > 0) {
    const key = taskInputKey(v.model.code);
    const sent = body as Record<string, Record<string, unknown>>;
    meta.echo = { ...sent, [key]: { ...sent[key], ...v.defaults } };
  }
  return { meta, model: v.model.code, outputs: 1 };
}

/** POST /v2|v3/aigc/<endpoint>: a new task → {"taskId"}. No dedup key: every accepted create is a new, billed task. */
export function createTask(deps: BDeps, endpoint: CreateEndpoint, version: ApiVersion) {
  return async (ctx: Context) => {
    const { host, state } = deps;
    await readUntypedBody(ctx);
    host.stats.B.submitRequests++;
    const body = ctx.request.body as unknown;
    const prompt = endpoint === 'image' ? imagePromptOf(body) : videoPromptOf(body);
    const directives = parseDirectives(prompt);
    const account = admit(deps, ctx, 'submit', version, host.promptFault(`B-submit:${prompt}`, directives.submitFault));
    if (!account) return;
    let planned: ReturnType<typeof planCreate>;
    try {
      planned = planCreate(state, endpoint, body);
    } catch (err) {
      refuse(deps, ctx, err);
      return;
    }
    // B publishes no concurrency limit; one configured here refuses the create as B throttles (renderBFault's 429:
    // VE3.1's documented "Internal error. Please try again later.", a 429 TooManyRequests elsewhere [GUESS]).
    if (!host.capacity.hasRoom('B', account.accessKeyId)) {
      host.capacity.refused('B', account.accessKeyId);
      host.stats.B.rejected++;
      renderBFault(ctx, 429);
      return;
    }
    const { meta, model, outputs } = planned;
    if (state.echo === 'known-only' && meta.fields.ignored.length > 0) meta.echo = withoutIgnored(body, meta.fields.ignored);
    const clientRequestId = ctx.get('x-bce-request-id') || undefined;
    const fullMeta: BJobMeta = {
      ...meta,
      apiVersion: version,
      baseUrl: host.publicUrl(ctx),
      owner: account.accessKeyId,
      ...(INNER_FIRST_DIRECTIVE.test(prompt) ? { innerStatusLeads: true } : {}),
      ...(clientRequestId ? { clientRequestId } : {}),
    };
    const kind = endpoint === 'image' ? 'image' : 'video';
    const job = host.jobs.create(
      { platform: 'B', kind, model, directives, outputs, meta: fullMeta as unknown as Record<string, unknown> },
      'tsk-',
      newTaskId(),
    );
    host.stats.B.jobsCreated++;
    host.capacity.started('B', account.accessKeyId, job);
    sendJson(ctx, { taskId: job.id });
  };
}

/** A v3 task is read through v2 unless a test says otherwise (/_sim/b/behaviour v3TasksOnV2). */
const visibleOn = (state: BState, job: SimJob, version: ApiVersion) =>
  version === 'v3' || state.behaviour.v3TasksOnV2 || bMeta(job).apiVersion !== 'v3';

/** GET /v2|v3/tasks/{taskId}: MediaTaskDetail. */
export function taskDetail(deps: BDeps, version: ApiVersion) {
  return (ctx: Context) => {
    const { host, state } = deps;
    host.stats.B.polls++;
    const id = ctx.params.taskId ?? '';
    const found = host.jobs.get(id);
    const job = found && queryable(host, found) && visibleOn(state, found, version) ? found : undefined;
    let pollFault;
    if (job && job.pollFaultsLeft > 0) {
      job.pollFaultsLeft--;
      host.jobs.changed();
      pollFault = job.directives.pollFault;
    }
    const account = admit(deps, ctx, 'poll', version, pollFault);
    if (!account) return;
    // Another account's task is, to this one, a task that does not exist.
    if (!job || ownerOf(job) !== account.accessKeyId) {
      refuse(deps, ctx, taskNotFound(id));
      return;
    }
    const quirk = state.quirks.innerStatusLeads || (job.meta as unknown as BJobMeta).innerStatusLeads === true;
    sendJson(ctx, renderTaskDetail(host, ctx, job, quirk));
  };
}

/** GET /v2/tasks: a page of the caller's tasks. */
export function listTasks(deps: BDeps, ctx: Context): void {
  const { host, state } = deps;
  host.stats.B.lists++;
  const account = admit(deps, ctx, 'list', 'v2');
  if (!account) return;
  try {
    sendJson(
      ctx,
      listTaskPage(host, ctx.query, (job) => visibleOn(state, job, 'v2') && ownerOf(job) === account.accessKeyId),
    );
  } catch (err) {
    refuse(deps, ctx, err);
  }
}

/** GET /v2/callback: the caller's CallbackConfig. */
export function readCallbackConfig(deps: BDeps, ctx: Context): void {
  const account = admit(deps, ctx, 'config', 'v2');
  if (account) sendJson(ctx, renderCallbackConfig(callbacksOf(deps.state, account.accessKeyId)));
}

/** PUT /v2/callback: every parameter optional; "返回: 无" — an empty 200. */
export async function writeCallbackConfig(deps: BDeps, ctx: Context): Promise<void> {
  await readUntypedBody(ctx);
  const account = admit(deps, ctx, 'config', 'v2');
  if (!account) return;
  const { state } = deps;
  try {
    state.callbacks.set(account.accessKeyId, updateCallbackConfig(callbacksOf(state, account.accessKeyId), ctx.request.body ?? {}));
  } catch (err) {
    refuse(deps, ctx, err);
    return;
  }
  sendJson(ctx, '');
}

/** Anything else under /v2, /v3: an unknown URI. A cancel attempt is recorded (op "cancel"); the answer is still 404. */
export function unknownUri({ host }: BDeps, ctx: Context): void {
  if (ctx.method === 'DELETE' || /cancel|stop|abort|terminate/i.test(ctx.path)) {
    host.stats.B.cancels++;
    if (host.intercept(ctx, 'B', 'cancel', renderBFault)) return;
  }
  sendError(ctx, notFound());
}
