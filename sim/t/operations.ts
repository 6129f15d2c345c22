/**
 * Platform T's actions, one function each: body in, result out (without RequestId), TError on refusal. The
 * envelope (action routing, version, signature, faults) is index.ts's job.
 */
import type { Context } from 'koa';
import { parseDirectives, type Directives } from '../directives';
import type { SimHost } from '../host';
import type { SimJob } from '../jobs';
import { invalidValue, missingParameter, TError } from './errors';
import type { TEvents } from './announcements';
import {
  checkShape,
  CONFIRM_EVENTS,
  DESCRIBE_EVENT_CONFIG,
  DESCRIBE_TASK_DETAIL,
  DESCRIBE_TASKS,
  MODIFY_EVENT_CONFIG,
  PULL_EVENTS,
} from './request-shape';
import { metaFromPlan, taskDetail, taskSimpleInfo, times, TOP_STATUS, tMeta } from './tasks';
import { checkSubAppId, validateImageCreate, validateVideoCreate } from './validation';

/** "如果三天内曾有过相同的识别码的请求，则本次的请求会返回错误" (CreateAigcVideoTask/CreateAigcImageTask SessionId). */
export const SESSION_ID_WINDOW_MS = 3 * 24 * 3600_000;
/** DescribeTasks: "只能查询到最近三天（72 小时）内的任务"; DescribeTaskDetail: "最多可以查询3天之内提交的任务". */
const QUERY_WINDOW_MS = 3 * 24 * 3600_000;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

/**
 * What T's documents leave open, as a test sets it (/_sim/t/behaviour); the defaults are the simulator's reading.
 * - `listsAigcTasks`: DescribeTasks' documented TaskType values (Procedure, EditMedia, …) name no AIGC type, so
 *   whether it lists AIGC tasks at all is unknown; `true` (default) lists them, `false` lists none of them.
 * - `sessionIdRepeatCode`: the Error.Code answering a create whose SessionId was seen within three days (not
 *   documented for the AIGC actions; VOD's other SessionId actions answer `InvalidParameterValue.SessionId`).
 * - `silentKlingVersions`: Kling versions that refuse AudioGeneration `Enabled`. AigcVideoOutputConfig.AudioGeneration
 *   names "Kling" without a version, so whether 2.1 and 2.5 take it is unknown; default none (every Kling takes it).
 */
export interface TBehaviour {
  listsAigcTasks: boolean;
  sessionIdRepeatCode: string;
  silentKlingVersions: string[];
}

export const DEFAULT_T_BEHAVIOUR: TBehaviour = {
  listsAigcTasks: true,
  sessionIdRepeatCode: 'InvalidParameterValue.SessionId',
  silentKlingVersions: [],
};

export interface TActionDeps {
  host: SimHost;
  events: TEvents;
  /** The signing account's SecretId (its account key) and SubAppId. */
  secretId: string;
  subAppId: number;
  behaviour: TBehaviour;
}

/** CreateAigcVideoTask / CreateAigcImageTask. */
export function createTask(deps: TActionDeps, ctx: Context, kind: 'video' | 'image'): Record<string, unknown> {
  const { host } = deps;
  const body = ctx.request.body as unknown;
  const plan =
    kind === 'video'
      ? validateVideoCreate(body, deps.subAppId, deps.behaviour.silentKlingVersions)
      : validateImageCreate(body, deps.subAppId);
  const directives = parseDirectives(plan.prompt);
  if (directives.reject) throw new TError(directives.reject, `The request was refused (${directives.reject}).`);
  if (plan.sessionId !== '' && host.jobs.byDedupKey('T', plan.sessionId, SESSION_ID_WINDOW_MS)) {
    // The code is not documented for the AIGC actions; VOD's other SessionId-taking actions answer
    // InvalidParameterValue.SessionId "去重识别码重复，请求被去重" (GUESS that AIGC does the same).
    host.stats.T.dedupRefusals++;
    throw new TError(
      deps.behaviour.sessionIdRepeatCode,
      'A request with the same SessionId was made within the last three days; this request was deduplicated.',
      true,
    );
  }
  // Over the account's concurrency T still creates the task, which then fails with ErrCodeExt RequestLimitExceeded
  // ("调用超出并发限制"): it holds no slot, and fails at once (when T fails it is not documented).
  const overLimit = !host.capacity.hasRoom('T', deps.secretId);
  const meta = {
    ...metaFromPlan(plan, host.publicUrl(ctx), overLimit ? 'RequestLimitExceeded' : directives.taskError),
    secretId: deps.secretId,
    ...(overLimit ? { overLimit: true } : {}),
  };
  const job = host.jobs.create(
    {
      platform: 'T',
      kind,
      model: `${plan.modelName}/${plan.modelVersion}`,
      directives: overLimit ? failingAtOnce(directives) : directives,
      outputs: plan.outputs,
      ...(plan.sessionId !== '' ? { dedupKey: plan.sessionId } : {}),
      meta: meta as unknown as Record<string, unknown>,
    },
    // VOD task ids read `<SubAppId>-<TaskType>-<id>`.
    `${plan.subAppId}-${meta.taskType}-`,
  );
  host.stats.T.jobsCreated++;
  if (overLimit) host.capacity.overLimit('T', deps.secretId);
  else host.capacity.started('T', deps.secretId, job);
  return { TaskId: job.id };
}

/** A task's directives when it is created over the limit: it fails now, whatever its prompt asked for. */
function failingAtOnce(directives: Directives): Directives {
  const { failTimes: _times, never: _never, hold: _hold, ...rest } = directives;
  return { ...rest, fail: 'error', durationMs: 0 };
}

function visibleTask(deps: TActionDeps, taskId: string): SimJob | undefined {
  const job = deps.host.jobs.get(taskId);
  if (!job || job.platform !== 'T' || tMeta(job).subAppId !== deps.subAppId) return undefined;
  if (deps.host.now() - job.createdAt > QUERY_WINDOW_MS) return undefined;
  return job;
}

/** DescribeTaskDetail. */
export function describeTaskDetail(deps: TActionDeps, ctx: Context): Record<string, unknown> {
  const body = checkShape(ctx.request.body, DESCRIBE_TASK_DETAIL);
  checkSubAppId(body, deps.subAppId);
  if (body.TaskId === undefined) throw missingParameter('TaskId');
  const job = visibleTask(deps, body.TaskId as string);
  // GUESS: an unknown TaskId answers InvalidParameterValue (what VOD users report for DescribeTaskDetail). The gateway
  // does not take that generic code as proof of a lost job (only ResourceNotFound*): such a task polls on to its deadline.
  if (!job) throw invalidValue('TaskId', `the task ${String(body.TaskId)} does not exist`);
  // `[sim:detail-error=CODE xN]`: the job exists, yet its first N reads are refused with CODE — as T may answer
  // its generic InvalidParameterValue ("参数取值错误") for reasons of its own. Counted per job (the prompt-fault count).
  const refusal = job.directives.detailError;
  if (refusal && deps.host.promptFault(`T-detail:${job.id}`, { status: 500, times: refusal.times })) {
    throw new TError(refusal.code, `The value of parameter \`TaskId\` is not valid (${refusal.code}).`);
  }
  return taskDetail(deps.host, job, deps.host.publicUrl(ctx));
}

function parseTime(name: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(v as string);
  if (Number.isNaN(t)) throw invalidValue(name, 'must be an ISO 8601 date');
  return t;
}

/**
 * DescribeTasks: filters Status (WAITING, PROCESSING, FINISH), FileId, CreateTime and FinishTime ranges
 * (After ≤ t < Before), Sort {Field: CreateTime | FinishTime, Order: Asc | Desc}, Limit (default 10, max 100),
 * ScrollToken ("该字段表示下一条记录的 ID": the next page starts at that task). GUESS: newest first by default.
 */
export function describeTasks(deps: TActionDeps, ctx: Context): Record<string, unknown> {
  const { host } = deps;
  const body = checkShape(ctx.request.body, DESCRIBE_TASKS);
  checkSubAppId(body, deps.subAppId);
  if (body.Status !== undefined && !['WAITING', 'PROCESSING', 'FINISH'].includes(body.Status as string)) {
    throw invalidValue('Status', 'must be one of WAITING, PROCESSING, FINISH');
  }
  const limit = (body.Limit as number | undefined) ?? DEFAULT_LIMIT;
  if (limit < 1 || limit > MAX_LIMIT) throw invalidValue('Limit', `must be between 1 and ${MAX_LIMIT}`);
  const range = (r: unknown, name: string) => {
    const o = (r ?? {}) as Record<string, unknown>;
    return { after: parseTime(`${name}.After`, o.After), before: parseTime(`${name}.Before`, o.Before) };
  };
  const created = range(body.CreateTime, 'CreateTime');
  const finished = range(body.FinishTime, 'FinishTime');
  const sort = body.Sort as { Field?: string; Order?: string } | undefined;
  if (sort) {
    if (sort.Field === undefined) throw missingParameter('Sort.Field');
    if (sort.Order === undefined) throw missingParameter('Sort.Order');
    if (!['CreateTime', 'FinishTime'].includes(sort.Field)) throw invalidValue('Sort.Field', 'must be CreateTime or FinishTime');
    if (!['Asc', 'Desc'].includes(sort.Order)) throw invalidValue('Sort.Order', 'must be Asc or Desc');
  }
  const field = sort?.Field ?? 'CreateTime';
  const desc = (sort?.Order ?? 'Desc') === 'Desc';
  const now = host.now();
  const inRange = (t: number | undefined, r: { after?: number; before?: number }) =>
    r.after === undefined && r.before === undefined
      ? true
      : t !== undefined && (r.after === undefined || t >= r.after) && (r.before === undefined || t < r.before);

  const keyOf = (job: SimJob) => (field === 'CreateTime' ? job.createdAt : (times(host, job, now).finish ?? Number.MAX_SAFE_INTEGER));
  const rows = host.jobs
    .all('T')
    .filter((job) => tMeta(job).subAppId === deps.subAppId && now - job.createdAt <= QUERY_WINDOW_MS)
    // Every simulated T job is an AIGC task: a DescribeTasks that does not list AIGC tasks lists none.
    .filter(() => deps.behaviour.listsAigcTasks)
    .filter((job) => body.Status === undefined || TOP_STATUS[host.jobs.view(job, now).state] === body.Status)
    // AIGC tasks carry no source FileId: a FileId filter matches none of them.
    .filter(() => body.FileId === undefined)
    .filter((job) => inRange(job.createdAt, created) && inRange(times(host, job, now).finish, finished))
    .sort((a, b) => (desc ? keyOf(b) - keyOf(a) : keyOf(a) - keyOf(b)) || (desc ? b.id.localeCompare(a.id) : a.id.localeCompare(b.id)));

  let start = 0;
  if (body.ScrollToken !== undefined && body.ScrollToken !== '') {
    start = rows.findIndex((j) => j.id === body.ScrollToken);
    if (start < 0) throw invalidValue('ScrollToken', 'does not match a task of this listing');
  }
  const page = rows.slice(start, start + limit);
  const next = rows[start + limit];
  return { TaskSet: page.map((job) => taskSimpleInfo(host, job)), ScrollToken: next ? next.id : '' };
}

/** ModifyEventConfig. */
export function modifyEventConfig(deps: TActionDeps, ctx: Context): Record<string, unknown> {
  const body = checkShape(ctx.request.body, MODIFY_EVENT_CONFIG);
  checkSubAppId(body, deps.subAppId);
  if (body.Mode !== undefined && body.Mode !== 'PUSH' && body.Mode !== 'PULL') throw invalidValue('Mode', 'must be PUSH or PULL');
  for (const s of ['UploadMediaCompleteEventSwitch', 'DeleteMediaCompleteEventSwitch', 'PersistenceCompleteEventSwitch']) {
    if (body[s] !== undefined && body[s] !== 'ON' && body[s] !== 'OFF') throw invalidValue(s, 'must be ON or OFF');
  }
  // "回调密钥，由大小写字母及数字组成，最长32字符".
  if (body.SignKey !== undefined && !/^[A-Za-z0-9]{0,32}$/.test(body.SignKey as string))
    throw invalidValue('SignKey', 'must be at most 32 letters and digits');
  if (typeof body.NotificationUrl === 'string' && body.NotificationUrl !== '') {
    let ok: boolean;
    try {
      ok = ['http:', 'https:'].includes(new URL(body.NotificationUrl).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw invalidValue('NotificationUrl', 'must be an http(s) URL');
  }
  const changes = Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'SubAppId'));
  // "如果带 NotificationUrl 参数且值为空字符串时将会清空 3.0 格式回调地址": an empty string is a real change.
  deps.events.modify(deps.subAppId, changes);
  return {};
}

/** DescribeEventConfig (the SDK's response has no SignKey). */
export function describeEventConfig(deps: TActionDeps, ctx: Context): Record<string, unknown> {
  const body = checkShape(ctx.request.body, DESCRIBE_EVENT_CONFIG);
  checkSubAppId(body, deps.subAppId);
  const { Mode, NotificationUrl, UploadMediaCompleteEventSwitch, DeleteMediaCompleteEventSwitch, PersistenceCompleteEventSwitch } =
    deps.events.config(deps.subAppId);
  return { Mode, NotificationUrl, UploadMediaCompleteEventSwitch, DeleteMediaCompleteEventSwitch, PersistenceCompleteEventSwitch };
}

/** PullEvents (long poll). */
export async function pullEvents(deps: TActionDeps, ctx: Context): Promise<Record<string, unknown>> {
  const body = checkShape(ctx.request.body, PULL_EVENTS);
  checkSubAppId(body, deps.subAppId);
  return { EventSet: await deps.events.pull(deps.subAppId) };
}

/** ConfirmEvents ("数组长度限制：16"). */
export function confirmEvents(deps: TActionDeps, ctx: Context): Record<string, unknown> {
  const body = checkShape(ctx.request.body, CONFIRM_EVENTS);
  checkSubAppId(body, deps.subAppId);
  const handles = body.EventHandles as string[] | undefined;
  if (handles === undefined) throw missingParameter('EventHandles');
  if (handles.length === 0 || handles.length > 16) throw invalidValue('EventHandles', 'must hold 1 to 16 handles');
  deps.events.confirm(deps.subAppId, handles);
  return {};
}
