/**
 * B's task views (docs/platforms/b.md#task-query): `GET /v2/tasks/{taskId}` → `MediaTaskDetail`, `GET /v2/tasks` → a page of
 * `MediaTaskBasicInfo`, and the same detail inside the VIDEO_GENERATE_COMPLETE callback (docs/platforms/b.md#callbacks).
 *
 * MediaTaskDetail for an AIGC task [OFF callback + 3P]:
 *   {taskId, type:"VIDEO_GENERATE", status, createTime, finishTime?, videoGenerateTaskInfo: {status (lower case),
 *    errMsg?, unitPrice, videoGenerateTaskInput: {type, textToVideoRequest|imageToVideoRequest: <request>},
 *    videoGenerateTaskOutput?: {mediaBasicInfos: [{mediaId, name, …, source: {sourceType, sourceUrl},
 *    sourceMetadata}]}}}
 * Status PENDING → RUNNING → SUCCESS | FAILED, the inner status its lower-case mirror; no progress field exists.
 * Null fields are omitted, as in the official event example. Tasks older than 7×24 h are not queryable.
 *
 * The list's items are "basic information only" ("任务信息仅包含基础信息" [OFF Fm4axtv8o]); their fields were not
 * visible, so [GUESS] an item is {taskId, type, status, createTime, finishTime?}. The request echo that lets a
 * client recognise a task whose create answer it lost is in the detail (`videoGenerateTaskInput`), as docs/platforms/b.md#task-query shows.
 */
import type { Context } from 'koa';
import type { SimHost } from '../host';
import { resultUrls, type SimJob, type SimState } from '../jobs';
import { invalidParameter } from './errors';
import { bceTimestamp } from './signing';
import { mediaIdFor } from './ids';
import type { FieldReport, ImageOutput, VideoOutput } from './validation';

/** The task type of AIGC tasks: "VIDEO_GENERATE" [3P fixture; name not seen officially]; image tasks too [GUESS]. */
export const TASK_TYPE = 'VIDEO_GENERATE';
export const QUERY_WINDOW_MS = 7 * 24 * 3600_000;

/** What B keeps on each job (`SimJob.meta`, shown by /_sim/jobs). */
export interface BJobMeta {
  endpoint: 'text_to_video' | 'image_to_video' | 'image';
  apiVersion: 'v2' | 'v3';
  /** `videoGenerateTaskInput.type`: 文生视频 / 图生视频 / 文生图 / 图生图. */
  inputType: string;
  /** The key the request is echoed under: textToVideoRequest / imageToVideoRequest / imageGenerateRequest. */
  requestKey: string;
  /** The request body exactly as received (unknown fields included). */
  request: unknown;
  /**
   * What the task shows as its request (`videoGenerateTaskInput`), when not the body as received: whether B
   * echoes the request exactly, with its defaults filled in, or without the fields it ignored is not documented
   * (/_sim/b/echo).
   */
  echo?: unknown;
  /** Which received fields B acted on and which it ignored. */
  fields: FieldReport;
  /** What the job produces, derived from the recognised fields only. */
  output: VideoOutput | ImageOutput;
  /** text | first-frame | first-last | reference (videos). */
  mode?: string;
  /** Base URL the result links use (as the client reached the simulator at create time). */
  baseUrl: string;
  /** The `[sim:b-inner-first]` directive: this job shows the inner-status-first quirk. */
  innerStatusLeads?: boolean;
  /** The AccessKey ID of the account that created it (absent in jobs kept before accounts: the default account's). */
  owner?: string;
  /** The client's x-bce-request-id on the create, if any. */
  clientRequestId?: string;
}

export const bMeta = (job: SimJob) => job.meta as unknown as BJobMeta;

const TOP: Record<SimState, string> = {
  queued: 'PENDING',
  running: 'RUNNING',
  succeeded: 'SUCCESS',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
};
const INNER: Record<SimState, string> = {
  queued: 'pending',
  running: 'running',
  succeeded: 'success',
  failed: 'failed',
  cancelled: 'cancelled',
};

/**
 * errMsg of a failed task [INF: moderation and generation failures surface as FAILED with errMsg; wording ours].
 * `transient` uses VOD's retryable wording.
 */
export function failureMessage(job: SimJob): string {
  const what = job.kind === 'image' ? 'Image' : 'Video';
  switch (job.directives.fail) {
    case 'content_policy':
      return 'Content moderation failed: the input or the generated content violates the content security policy.';
    case 'transient':
      return 'Internal error. Please try again later.';
    default:
      return `${what} generation failed: the model returned no result.`;
  }
}

export interface TaskStatus {
  state: SimState;
  top: string;
  inner: string;
  /** When the task finished (terminal states only). */
  finishedAt?: number;
  /** Whether the output is shown (success, or the inner-first quirk). */
  outputAt?: number;
}

/**
 * The task's status now. With the inner-status-first quirk (observed by a 3P client on the v3 path: the inner
 * status read "succeeded" and mediaBasicInfos were filled while the top status still said RUNNING), a job that will
 * succeed shows that for the last quarter of its run.
 */
export function taskStatus(host: SimHost, job: SimJob, quirk: boolean, now = host.now()): TaskStatus {
  const { state } = host.jobs.view(job, now);
  const end = host.jobs.finishesAt(job);
  if (state === 'succeeded' || state === 'failed') {
    const finishedAt = end ?? now;
    return { state, top: TOP[state], inner: INNER[state], finishedAt, outputAt: state === 'succeeded' ? finishedAt : undefined };
  }
  if (quirk && state === 'running' && end !== undefined && !job.directives.fail) {
    const flip = job.createdAt + (job.durationMs * 3) / 4;
    if (now >= flip) return { state, top: TOP.running, inner: 'succeeded', outputAt: flip };
  }
  return { state, top: TOP[state], inner: INNER[state] };
}

function mediaBasicInfos(job: SimJob, meta: BJobMeta, baseUrl: string, createdAt: number): Record<string, unknown>[] {
  const urls = resultUrls(baseUrl, job);
  const out = meta.output;
  return urls.map((sourceUrl, i) => ({
    mediaId: mediaIdFor(job.id, i),
    name: `${meta.inputType}_${job.id}`,
    description: '',
    mediaType: out.mediaType,
    banStatus: 'NORMAL',
    createTime: bceTimestamp(createdAt),
    categoryId: 'system',
    tags: [],
    source: { sourceType: 'GENERATE', sourceUrl },
    // [3P] {durationInSecond, video:{widthInPixel,heightInPixel}}; audio/image blocks [GUESS].
    sourceMetadata:
      out.mediaType === 'video'
        ? {
            durationInSecond: out.durationInSecond,
            video: { widthInPixel: out.widthInPixel, heightInPixel: out.heightInPixel },
            ...(out.audio ? { audio: { codec: 'aac', channels: 2, sampleRateInHz: 48000 } } : {}),
          }
        : { image: { widthInPixel: out.widthInPixel, heightInPixel: out.heightInPixel } },
  }));
}

/** `videoGenerateTaskInfo` — shared by the detail and the callback event. */
export function videoGenerateTaskInfo(job: SimJob, status: TaskStatus, baseUrl: string): Record<string, unknown> {
  const meta = bMeta(job);
  const info: Record<string, unknown> = { status: status.inner };
  if (status.state === 'failed') info.errMsg = failureMessage(job);
  info.unitPrice = 0; // [3P] present in observed responses; the simulator bills nothing.
  info.videoGenerateTaskInput = { type: meta.inputType, [meta.requestKey]: meta.echo ?? meta.request };
  if (status.outputAt !== undefined)
    info.videoGenerateTaskOutput = { mediaBasicInfos: mediaBasicInfos(job, meta, baseUrl, status.outputAt) };
  return info;
}

export function renderTaskDetail(host: SimHost, ctx: Context, job: SimJob, quirk: boolean): Record<string, unknown> {
  const status = taskStatus(host, job, quirk);
  const detail: Record<string, unknown> = { taskId: job.id, type: TASK_TYPE, status: status.top, createTime: bceTimestamp(job.createdAt) };
  if (status.finishedAt !== undefined) detail.finishTime = bceTimestamp(status.finishedAt);
  detail.videoGenerateTaskInfo = videoGenerateTaskInfo(job, status, host.publicUrl(ctx));
  return detail;
}

export function renderTaskBasic(host: SimHost, job: SimJob): Record<string, unknown> {
  const status = taskStatus(host, job, false);
  const item: Record<string, unknown> = { taskId: job.id, type: TASK_TYPE, status: status.top, createTime: bceTimestamp(job.createdAt) };
  if (status.finishedAt !== undefined) item.finishTime = bceTimestamp(status.finishedAt);
  return item;
}

/** Whether the job is still within the 7-day query window. */
export function queryable(host: SimHost, job: SimJob): boolean {
  return job.platform === 'B' && host.now() - job.createdAt <= QUERY_WINDOW_MS;
}

function parseTime(name: string, value: string): number {
  // "格式参考日期与时间规范": UTC ISO 8601, e.g. 2024-03-24T13:08:44Z (milliseconds tolerated).
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalidParameter(`${name} must be a UTC time like 2024-03-24T13:08:44Z`);
  }
  return Date.parse(value);
}

const single = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * `GET /v2/tasks` [OFF Fm4axtv8o]: filters taskId, mediaId, type, status, beginTime/endTime (on the creation
 * time, inclusive); paging by marker/maxSize (1–100, default 10). Order and marker semantics are not documented
 * [GUESS]: newest first; `marker` names the first task of the page asked for (a previous answer's nextMarker);
 * `nextMarker` (present only when `isTruncated`) names the first task of the next page.
 */
export function listTasks(
  host: SimHost,
  query: Record<string, string | string[] | undefined>,
  visible: (job: SimJob) => boolean = () => true,
): Record<string, unknown> {
  const q = (k: string) => single(query[k]);
  const maxSizeRaw = q('maxSize');
  let maxSize = 10;
  if (maxSizeRaw !== undefined) {
    if (!/^\d+$/.test(maxSizeRaw) || Number(maxSizeRaw) < 1 || Number(maxSizeRaw) > 100)
      throw invalidParameter('maxSize must be an integer from 1 to 100');
    maxSize = Number(maxSizeRaw);
  }
  const begin = q('beginTime') !== undefined ? parseTime('beginTime', q('beginTime')!) : undefined;
  const end = q('endTime') !== undefined ? parseTime('endTime', q('endTime')!) : undefined;
  const taskId = q('taskId');
  const mediaId = q('mediaId');
  const type = q('type');
  const status = q('status');

  // Creation times are compared at second precision, as they are shown.
  const createdSec = (job: SimJob) => Math.floor(job.createdAt / 1000) * 1000;
  const all = host.jobs
    .all('B')
    .filter((j) => queryable(host, j) && visible(j))
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  const matches = all.filter((job) => {
    if (taskId !== undefined && job.id !== taskId) return false;
    if (type !== undefined && type !== TASK_TYPE) return false;
    if (begin !== undefined && createdSec(job) < begin) return false;
    if (end !== undefined && createdSec(job) > end) return false;
    const s = taskStatus(host, job, false);
    if (status !== undefined && s.top !== status) return false;
    if (
      mediaId !== undefined &&
      (s.state !== 'succeeded' || !Array.from({ length: job.outputs }, (_, i) => mediaIdFor(job.id, i)).includes(mediaId))
    )
      return false;
    return true;
  });

  const marker = q('marker');
  let start = 0;
  if (marker !== undefined && marker !== '') {
    const at = all.findIndex((j) => j.id === marker);
    if (at < 0) throw invalidParameter(`marker ${marker} is not valid`);
    const pivot = all[at]!;
    // Everything at or after the marker's position in the order.
    start = matches.findIndex((j) => j.createdAt < pivot.createdAt || (j.createdAt === pivot.createdAt && j.id <= pivot.id));
    if (start < 0) start = matches.length;
  }
  const page = matches.slice(start, start + maxSize);
  const isTruncated = start + maxSize < matches.length;
  const body: Record<string, unknown> = { isTruncated, marker: marker ?? '' };
  if (isTruncated) body.nextMarker = matches[start + maxSize]!.id;
  body.data = page.map((j) => renderTaskBasic(host, j));
  return body;
}
