/**
 * Platform T adapter: the media cloud AIGC API (docs/platforms/t.md#calls). One JSON POST to `/` per action,
 * named by X-TC-Action and signed with TC3-HMAC-SHA256 (signing.ts says why not through the official SDK). The
 * bodies are built in request-body.ts, replies read in replies.ts, lost answers recovered in lost-answer.ts.
 */
import type { AdapterDeps, PlatformAdapter } from '../platform';
import { lostJob, retryable, UpstreamError } from '../upstream-error';
import { toTCreateCall, toTDescribeCall, toSessionId, type TCall } from './request-body';
import { fromTTaskDetail, readTResponse, type TTaskDetail } from './replies';
import { eventConfigCall, eventConfigChange, tEventQueue } from './announcements';
import { findTaskBySessionId } from './lost-answer';
import { tc3Sign } from './signing';
import { tDayTotals } from './day-totals';
import type { CreateAigcVideoTaskResponse, DescribeEventConfigResponse } from './wire-types';

export const T_SERVICE = 'vod';
export const T_API_VERSION = '2018-07-17';
export const T_CONTENT_TYPE = 'application/json; charset=utf-8';

/** What the adapter needs to reach the platform (from platforms/t/config.ts). */
export interface PlatformTSettings {
  endpoint: string;
  secretId: string;
  secretKey: string;
  /** Required: "从2023年12月25日起开通点播的客户 … 必须将该字段填写为应用 ID" on every action. */
  subAppId: number;
  region?: string;
  /** PLATFORM_T_STORAGE_MODE: Permanent keeps results in VOD beyond the temporary links' 7 days. */
  storageMode?: 'Temporary' | 'Permanent';
  /** PLATFORM_T_EVENTS: how T announces finished jobs (announcements.ts). */
  events?: {
    mode: 'push' | 'pull';
    notificationUrl?: string;
    signKey?: string;
    /** PLATFORM_T_EVENTS_TAKE_OVER: replace an event configuration the gateway did not set (configureTEvents). */
    takeOver?: boolean;
  };
}

/** Sends one signed action to T and returns its `Response`, or throws the classified error. */
export function tCaller(config: PlatformTSettings, { http, now = Date.now }: AdapterDeps): (c: TCall) => Promise<Record<string, unknown>> {
  // T serves every action at the root of its endpoint; the signed Host is exactly the one undici sends.
  const endpoint = new URL(config.endpoint);
  const url = `${endpoint.origin}/`;

  async function call({ action, body }: TCall): Promise<Record<string, unknown>> {
    const payload = JSON.stringify(body);
    const timestamp = Math.floor(now() / 1000);
    const { authorization } = tc3Sign({
      secretId: config.secretId,
      secretKey: config.secretKey,
      service: T_SERVICE,
      timestamp,
      headers: { 'content-type': T_CONTENT_TYPE, host: endpoint.host },
      payload,
    });
    const headers: Record<string, string> = {
      authorization,
      'content-type': T_CONTENT_TYPE,
      'x-tc-action': action,
      'x-tc-version': T_API_VERSION,
      'x-tc-timestamp': String(timestamp),
    };
    if (config.region) headers['x-tc-region'] = config.region;

    const result = readTResponse(await http.send('POST', url, { headers, body: payload }));
    if (result instanceof UpstreamError) throw result;
    return result;
  }
  return call;
}

/**
 * Evidence that T does not know a TaskId: only a not-found code. The error list of VOD's task-detail actions
 * (tencentcloud-sdk-go vod/v20180717 client.go, DescribeTaskDetailForDY "可能返回的错误码": FailedOperation.InvalidVodUser,
 * InternalError, InvalidParameterValue, ResourceNotFound, UnauthorizedOperation; Tencent Cloud's common codes name
 * sub-codes such as `ResourceNotFound.TaskNotExist`) has exactly one family that says "no such resource".
 */
export const isTaskNotFound = (code: string | undefined): boolean =>
  code === 'ResourceNotFound' || (code !== undefined && code.startsWith('ResourceNotFound.'));

/**
 * `InvalidParameterValue` (bare, or naming the TaskId) is Tencent Cloud's generic "a parameter value is wrong":
 * T may send it for a TaskId it does not know, but also for anything else it disliked in a request that carried
 * only the TaskId it gave us and our SubAppId. Not proof that the job is gone: the poll is retried (the task keeps
 * polling on its backoff until its deadline), and never turned into `upstream_lost` by itself.
 */
export const isGenericParameterError = (code: string | undefined): boolean =>
  code === 'InvalidParameterValue' || code === 'InvalidParameterValue.TaskId';

export function createPlatformT(config: PlatformTSettings, deps: AdapterDeps): PlatformAdapter {
  const call = tCaller(config, deps);
  const now = deps.now ?? Date.now;

  return {
    // T refuses a repeated SessionId instead of creating a second job: a retried submit needs no settling time.
    dedupSubmit: true,
    // The VOD sub-application every call names: where an operator looks for a job in T's console.
    account: `SubAppId ${config.subAppId}`,
    async submit(entry, request, { dedupKey, taskId }) {
      // SessionId is the submit's dedup key: a re-send after a lost answer is refused by T (not answered with
      // the first TaskId), and the submit activity then recovers the first job through findSubmitted.
      const opts = { subAppId: config.subAppId, dedupKey, taskId, storageMode: config.storageMode };
      const res = (await call(toTCreateCall(entry, request, opts))) as CreateAigcVideoTaskResponse;
      if (typeof res.TaskId !== 'string' || res.TaskId.length === 0) throw retryable('Platform T accepted the job but returned no TaskId');
      return { upstreamTaskId: res.TaskId };
    },
    async findSubmitted(_entry, request, { dedupKey, since }) {
      const taskId = await findTaskBySessionId({ call, subAppId: config.subAppId, now }, request.kind, toSessionId(dedupKey), since);
      return taskId === undefined ? undefined : { upstreamTaskId: taskId };
    },
    async poll(kind, taskId) {
      const describe = async () => fromTTaskDetail(kind, (await call(toTDescribeCall(taskId, config.subAppId))) as TTaskDetail);
      try {
        return await describe();
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        if (isGenericParameterError(err.opts.code)) {
          throw retryable(
            `${err.message} (T's generic parameter error on DescribeTaskDetail ${taskId}: not proof the job is lost; polling again)`,
            err.opts.code,
          );
        }
        if (!isTaskNotFound(err.opts.code)) throw err;
        // A not-found answer (the job unknown, or older than the 3 days T keeps it queryable) is confirmed by a
        // second read before the job is called lost; the poll activity then still holds it back for
        // UPSTREAM_LOST_GRACE_MS after the submit, in case T's reads lag its writes.
        try {
          return await describe();
        } catch (again) {
          if (again instanceof UpstreamError && isTaskNotFound(again.opts.code)) throw lostJob('T', taskId, again);
          throw again;
        }
      }
    },
    // Reconciliation by day totals: T keeps no per-task record with usage the gateway can list (docs/platforms/t.md#reconciliation).
    dayTotals: tDayTotals(call, config.subAppId),
    // No cancel: platform T has no action to cancel an AIGC task; the job runs to its end upstream and the
    // gateway simply stops polling it.
    ...(config.events?.mode === 'pull' ? { events: tEventQueue(call, config.subAppId) } : {}),
  };
}

/**
 * Sets the SubAppId's event notification to what PLATFORM_T_EVENTS asks for (idempotent; at worker start).
 *
 * The configuration belongs to the whole sub-application, not to the gateway: ModifyEventConfig switching it to
 * PULL, or replacing its NotificationUrl, takes the events away from whatever else uses that SubAppId. So the
 * current one is read first (DescribeEventConfig) and replaced only when it is ours already, or unset (PUSH with
 * no URL, what a never-configured application reads), or when the operator says so (PLATFORM_T_EVENTS_TAKE_OVER).
 * Otherwise this throws, naming both configurations: the worker logs OPERATOR ACTION NEEDED and its tasks rely
 * on polling. Returns what was done, for the start-up log.
 */
export async function configureTEvents(config: PlatformTSettings, deps: AdapterDeps): Promise<string | void> {
  if (!config.events) return;
  const call = tCaller(config, deps);
  const current = (await call({ action: 'DescribeEventConfig', body: { SubAppId: config.subAppId } })) as DescribeEventConfigResponse;
  const verdict = eventConfigChange(current, config.events);
  const modify = eventConfigCall(config.subAppId, config.events.mode, config.events.notificationUrl, config.events.signKey);
  if (verdict.kind === 'foreign' && !config.events.takeOver) {
    throw new Error(
      `SubAppId ${config.subAppId}'s event notification is ${verdict.from}, which this gateway did not set; setting it to ${verdict.to} would take its events away from whatever uses it. ` +
        'Left as it is (push off: polling carries the tasks). Set PLATFORM_T_EVENTS_TAKE_OVER=true to replace it, or PLATFORM_T_EVENTS=off.',
    );
  }
  await call(modify);
  if (verdict.kind === 'foreign')
    return `Replaced SubAppId ${config.subAppId}'s event notification ${verdict.from} with ${verdict.to} (PLATFORM_T_EVENTS_TAKE_OVER)`;
  return verdict.kind === 'unset'
    ? `Set SubAppId ${config.subAppId}'s event notification (unset until now) to ${verdict.to}`
    : `SubAppId ${config.subAppId}'s event notification stays ${verdict.to}`;
}
