/**
 * Platform T's task views, shaped exactly as the SDK's response types: DescribeTaskDetailResponse with its
 * AigcVideoTask / AigcImageTask, TaskSimpleInfo for DescribeTasks, and the same AigcVideoTask / AigcImageTask in
 * completion events. A simulated job's state (queued → running → succeeded | failed, cancelled) is mapped to
 * T's statuses; a failed task reads FINISH with a non-zero ErrCode and an ErrCodeExt.
 */
import { createHash } from 'node:crypto';
import type { SimHost } from '../host';
import { resultUrls, type SimJob, type SimState } from '../jobs';
import type { TCreatePlan } from './validation';

/** Temporary storage: "临时存储…可在事件通知中获取到临时访问的 URL，有效期 7 天". */
const TEMPORARY_TTL_MS = 7 * 24 * 3600_000;

export type TTaskType = 'AigcVideoTask' | 'AigcImageTask';

/** What a T job keeps in `SimJob.meta` (JSON only). */
export interface TJobMeta {
  taskType: TTaskType;
  subAppId: number;
  sessionId: string;
  sessionContext: string;
  storageMode: 'Temporary' | 'Permanent';
  mediaName?: string;
  classId?: number;
  expireTime?: string;
  outputSeconds?: number;
  /** The request's Input fields, echoed in the task's `Input`. */
  input: Record<string, unknown>;
  /** Base URL of result files, as the creating client reached the simulator (for events, sent without a request). */
  baseUrl: string;
  /** `[sim:task-error=CODE]`: the ErrCodeExt a failing task reports instead of the directive's default. */
  taskError?: string;
  /** The SecretId of the account that created it (absent in jobs kept before it was recorded: the default account's). */
  secretId?: string;
  /** Created over the account's concurrency: it fails with RequestLimitExceeded and never held a slot. */
  overLimit?: boolean;
}

export function tMeta(job: SimJob): TJobMeta {
  return job.meta as unknown as TJobMeta;
}

export function metaFromPlan(plan: TCreatePlan, baseUrl: string, taskError: string | undefined): TJobMeta {
  return {
    taskType: plan.kind === 'video' ? 'AigcVideoTask' : 'AigcImageTask',
    subAppId: plan.subAppId,
    sessionId: plan.sessionId,
    sessionContext: plan.sessionContext,
    storageMode: plan.storageMode,
    ...(plan.mediaName !== undefined ? { mediaName: plan.mediaName } : {}),
    ...(plan.classId !== undefined ? { classId: plan.classId } : {}),
    ...(plan.expireTime !== undefined ? { expireTime: plan.expireTime } : {}),
    ...(plan.outputSeconds !== undefined ? { outputSeconds: plan.outputSeconds } : {}),
    input: plan.input,
    baseUrl,
    ...(taskError ? { taskError } : {}),
  };
}

/** DescribeTaskDetail / TaskSimpleInfo `Status`: WAITING, PROCESSING, FINISH, ABORTED. */
export const TOP_STATUS: Record<SimState, 'WAITING' | 'PROCESSING' | 'FINISH' | 'ABORTED'> = {
  queued: 'WAITING',
  running: 'PROCESSING',
  succeeded: 'FINISH',
  failed: 'FINISH',
  cancelled: 'ABORTED',
};

/**
 * AigcVideoTask/AigcImageTask `Status`: the SDK documents only "PROCESSING：处理中；FINISH：已完成" for the inner
 * task, so a waiting task reads PROCESSING there (the top-level Status says WAITING).
 */
const INNER_STATUS: Record<SimState, 'PROCESSING' | 'FINISH' | 'ABORTED'> = {
  queued: 'PROCESSING',
  running: 'PROCESSING',
  succeeded: 'FINISH',
  failed: 'FINISH',
  cancelled: 'ABORTED',
};

/**
 * Failure shapes. ErrCodeExt values are the SDK's enumeration ("RequestLimitExceeded：调用超出并发限制；
 * InvalidParameter.VoilationContent：输入 prompt 违反内容安全策略；InvalidParameterValue：参数错误；FailedOperation：
 * 模型任务堆积；InternalError：内部错误"). The numeric ErrCode is not documented for AIGC tasks: GUESS, VOD's media
 * processing convention (40000 input invalid, 70000 internal error).
 */
const FAILURES: Record<string, { ErrCode: number; Message: string }> = {
  'InvalidParameter.VoilationContent': { ErrCode: 40000, Message: 'The prompt or the input images violate the content security policy.' },
  InvalidParameterValue: { ErrCode: 40000, Message: 'A parameter value is not valid for this model.' },
  RequestLimitExceeded: {
    ErrCode: 70000,
    Message: 'The number of concurrent AIGC tasks exceeds the limit of your account (1 by default).',
  },
  FailedOperation: { ErrCode: 70000, Message: 'The model has too many queued tasks; try again later.' },
  InternalError: { ErrCode: 70000, Message: 'The model failed to generate the media.' },
};

function failureOf(job: SimJob): { ErrCode: number; ErrCodeExt: string; Message: string } {
  const meta = tMeta(job);
  const ext =
    meta.taskError ??
    (job.directives.fail === 'content_policy'
      ? 'InvalidParameter.VoilationContent'
      : job.directives.fail === 'transient'
        ? 'RequestLimitExceeded'
        : 'InternalError');
  const known = FAILURES[ext] ?? { ErrCode: 70000, Message: `The task failed (${ext}).` };
  return { ErrCode: known.ErrCode, ErrCodeExt: ext, Message: known.Message };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** When the job started processing and finished, as far as they happened by `now`. */
export function times(host: SimHost, job: SimJob, now = host.now()): { begin?: number; finish?: number } {
  const state = host.jobs.view(job, now).state;
  if (state === 'cancelled') return { finish: job.cancelledAt };
  const begin = state === 'queued' ? undefined : job.createdAt + job.durationMs / 4;
  const finish = state === 'succeeded' || state === 'failed' ? job.createdAt + job.durationMs : undefined;
  return { begin, finish };
}

/** A numeric media FileId for Permanent storage (VOD file ids are decimal strings), stable per result file. */
function fileIdOf(jobId: string, index: number): string {
  const hex = createHash('sha256').update(`${jobId}/${index}`).digest('hex').slice(0, 13);
  return String(5285890000000000000n + (BigInt(`0x${hex}`) % 1000000000000n));
}

/** The AigcVideoTask / AigcImageTask object (DescribeTaskDetail, and the completion events). */
export function aigcTask(host: SimHost, job: SimJob, baseUrl: string, now = host.now()): Record<string, unknown> {
  const meta = tMeta(job);
  const { state, progress } = host.jobs.view(job, now);
  const output: Record<string, unknown> = { FileInfos: [] };
  const task: Record<string, unknown> = {
    TaskId: job.id,
    Status: INNER_STATUS[state],
    ErrCode: 0,
    ErrCodeExt: '',
    Message: '',
    Progress: state === 'succeeded' || state === 'failed' ? 100 : progress,
    Input: meta.input,
    Output: output,
    SessionId: meta.sessionId,
    SessionContext: meta.sessionContext,
  };
  if (state === 'succeeded') {
    const finish = job.createdAt + job.durationMs;
    const fileType = job.kind === 'video' ? 'mp4' : 'png';
    output.FileInfos = resultUrls(baseUrl, job).map((FileUrl, i) => ({
      StorageMode: meta.storageMode,
      ...(meta.mediaName !== undefined ? { MediaName: meta.mediaName } : {}),
      ...(meta.classId !== undefined ? { ClassId: meta.classId } : {}),
      ...(meta.storageMode === 'Temporary'
        ? { ExpireTime: iso(finish + TEMPORARY_TTL_MS) }
        : meta.expireTime !== undefined
          ? { ExpireTime: meta.expireTime }
          : {}),
      FileType: fileType,
      FileUrl,
      ...(meta.storageMode === 'Permanent' ? { FileId: fileIdOf(job.id, i) } : {}),
    }));
    if (job.kind === 'video' && meta.outputSeconds !== undefined) {
      output.Usage = { OutputSeconds: meta.outputSeconds, TotalSeconds: meta.outputSeconds };
    }
  }
  if (state === 'failed') Object.assign(task, failureOf(job));
  return task;
}

/** DescribeTaskDetail's result (without RequestId). */
export function taskDetail(host: SimHost, job: SimJob, baseUrl: string): Record<string, unknown> {
  const meta = tMeta(job);
  const now = host.now();
  const { state } = host.jobs.view(job, now);
  const { begin, finish } = times(host, job, now);
  return {
    TaskType: meta.taskType,
    Status: TOP_STATUS[state],
    CreateTime: iso(job.createdAt),
    BeginProcessTime: begin === undefined ? '' : iso(begin),
    FinishTime: finish === undefined ? '' : iso(finish),
    [meta.taskType]: aigcTask(host, job, baseUrl, now),
  };
}

/**
 * TaskSimpleInfo, as the SDK defines it: TaskId, Status, FileId, TaskType, CreateTime, BeginProcessTime,
 * FinishTime, SessionId and SessionContext ("用于去重的识别码" / "来源上下文，用于透传用户请求信息").
 */
export function taskSimpleInfo(host: SimHost, job: SimJob): Record<string, unknown> {
  const meta = tMeta(job);
  const now = host.now();
  const { state } = host.jobs.view(job, now);
  const { begin, finish } = times(host, job, now);
  return {
    TaskId: job.id,
    Status: TOP_STATUS[state],
    // "视频 ID": an AIGC task has no source media file.
    FileId: '',
    TaskType: meta.taskType,
    CreateTime: iso(job.createdAt),
    BeginProcessTime: begin === undefined ? '' : iso(begin),
    FinishTime: finish === undefined ? '' : iso(finish),
    SessionId: meta.sessionId,
    SessionContext: meta.sessionContext,
  };
}
