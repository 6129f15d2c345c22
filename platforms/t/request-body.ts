/**
 * The actions the adapter sends, as pure functions from a validated spec request to T's action and body
 * (docs/platforms/t.md#calls). Every body is typed with the official SDK's request type (wire-types.ts): a
 * field the real API does not have is a compile error. Pure, for golden tests.
 */
import { createHash } from 'node:crypto';
import type { ModelRecord } from '../../core/catalogue';
import type { GenerationRequest } from '../../core/task';
import { final } from '../upstream-error';
import { tExtrasOf } from './models';
import type { TImageRequest, TVideoRequest } from './rules';
import type {
  AigcImageOutputConfig,
  AigcImageTaskInputFileInfo,
  AigcVideoOutputConfig,
  AigcVideoTaskInputFileInfo,
  CreateAigcImageTaskRequest,
  CreateAigcVideoTaskRequest,
  ConfirmEventsRequest,
  DescribeAigcUsageDataRequest,
  DescribeEventConfigRequest,
  DescribeTaskDetailRequest,
  DescribeTasksRequest,
  ModifyEventConfigRequest,
  PullEventsRequest,
} from './wire-types';

/** SessionId: "最长 50 个字符". */
export const T_SESSION_ID_MAX = 50;
/** SessionContext: "最长 1000 个字符". */
export const T_SESSION_CONTEXT_MAX = 1000;

export type TCall =
  | { action: 'CreateAigcVideoTask'; body: CreateAigcVideoTaskRequest }
  | { action: 'CreateAigcImageTask'; body: CreateAigcImageTaskRequest }
  | { action: 'DescribeTaskDetail'; body: DescribeTaskDetailRequest }
  | { action: 'DescribeTasks'; body: DescribeTasksRequest }
  | { action: 'ModifyEventConfig'; body: ModifyEventConfigRequest }
  | { action: 'DescribeEventConfig'; body: DescribeEventConfigRequest }
  | { action: 'PullEvents'; body: PullEventsRequest }
  | { action: 'ConfirmEvents'; body: ConfirmEventsRequest }
  | { action: 'DescribeAigcUsageData'; body: DescribeAigcUsageDataRequest };

export type TAction = TCall['action'];

/** What a create carries besides the request: the account's SubAppId, the dedup key, the task id, deployment settings. */
export interface TCreateOptions {
  subAppId: number;
  /** The submit's dedup key (stable across its retries): becomes SessionId. */
  dedupKey: string;
  /** The gateway's task id: becomes SessionContext, which T's completion event carries back. */
  taskId?: string;
  /** PLATFORM_T_STORAGE_MODE; T's default is Temporary (result URLs live about 7 days). */
  storageMode?: 'Temporary' | 'Permanent';
}

/** A dedup key T accepts: the workflow's key as is (it keeps it within 50), or else a stable digest of it. */
export function toSessionId(dedupKey: string): string {
  if (dedupKey.length <= T_SESSION_ID_MAX) return dedupKey;
  return createHash('sha256').update(dedupKey).digest('hex').slice(0, T_SESSION_ID_MAX);
}

/** Drops undefined values, so a body carries only what was asked for (T refuses nothing for an absent key). */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const nonEmpty = <T extends object>(o: T): T | undefined => (Object.keys(o).length > 0 ? o : undefined);

function modelIds(entry: ModelRecord): { ModelName: string; ModelVersion: string } {
  const { modelName, modelVersion } = entry.upstream;
  if (!modelName || !modelVersion) throw final('invalid_request', `Model ${entry.id} has no platform T ModelName/ModelVersion configured`);
  return { ModelName: modelName, ModelVersion: modelVersion };
}

/** SessionContext carries the task id back in T's completion event; an id too long for it is left out. */
function sessionContext(taskId: string | undefined): string | undefined {
  return taskId !== undefined && taskId.length <= T_SESSION_CONTEXT_MAX ? taskId : undefined;
}

function videoBody(entry: ModelRecord, req: TVideoRequest, opts: TCreateOptions): CreateAigcVideoTaskRequest {
  const fileInfos: AigcVideoTaskInputFileInfo[] = [];
  if (req.image_url !== undefined) fileInfos.push({ Type: 'Url', Url: req.image_url, Category: 'Image', Usage: 'FirstFrame' });
  for (const f of req.file_infos ?? [])
    fileInfos.push(compact<AigcVideoTaskInputFileInfo>({ Type: f.Type, Url: f.Url, Category: f.Category, Usage: f.Usage }));
  const mapped: AigcVideoOutputConfig = {
    StorageMode: opts.storageMode === 'Permanent' ? 'Permanent' : undefined,
    Duration: req.duration,
    Resolution: req.resolution,
    AspectRatio: req.ratio,
    AudioGeneration: req.generate_audio === undefined ? undefined : req.generate_audio ? 'Enabled' : 'Disabled',
  };
  // The client's explicit output_config wins key by key over the mapped general fields.
  const outputConfig = compact<AigcVideoOutputConfig>({ ...compact(mapped), ...compact(req.output_config ?? {}) });
  return compact<CreateAigcVideoTaskRequest>({
    SubAppId: opts.subAppId,
    ...modelIds(entry),
    Prompt: req.prompt,
    NegativePrompt: req.negative_prompt,
    EnhancePrompt: req.enhance_prompt,
    FileInfos: fileInfos.length > 0 ? fileInfos : undefined,
    LastFrameUrl: req.last_frame_url,
    OutputConfig: nonEmpty(outputConfig),
    InputRegion: req.input_region,
    SessionId: toSessionId(opts.dedupKey),
    SessionContext: sessionContext(opts.taskId),
  });
}

/** Image `quality` → the model's Resolution (its record's `imageQuality`); validation refused any other quality. */
function imageResolution(entry: ModelRecord, quality: string | undefined): string | undefined {
  if (quality === undefined) return undefined;
  const table = tExtrasOf(entry).imageQuality ?? {};
  if (!(quality in table)) throw final('invalid_request', `quality '${quality}' has no platform T resolution for ${entry.id}`);
  return table[quality] ?? undefined;
}

function imageBody(entry: ModelRecord, req: TImageRequest, opts: TCreateOptions): CreateAigcImageTaskRequest {
  const mapped: AigcImageOutputConfig = {
    StorageMode: opts.storageMode === 'Permanent' ? 'Permanent' : undefined,
    // `ratio` is what validation derived from `size` (docs/api.md "Image requests").
    AspectRatio: req.ratio,
    Resolution: imageResolution(entry, req.quality),
    // OutputImageCount: "Kling：可选值 1-9 … 其他模型不生效" — sent only where it has an effect.
    OutputImageCount: (entry.maxImages ?? 1) > 1 ? req.n : undefined,
  };
  const outputConfig = compact<AigcImageOutputConfig>({ ...compact(mapped), ...compact(req.output_config ?? {}) });
  const fileInfos = req.file_infos?.map((f): AigcImageTaskInputFileInfo => ({ Type: f.Type, Url: f.Url }));
  return compact<CreateAigcImageTaskRequest>({
    SubAppId: opts.subAppId,
    ...modelIds(entry),
    Prompt: req.prompt,
    NegativePrompt: req.negative_prompt,
    EnhancePrompt: req.enhance_prompt,
    FileInfos: fileInfos,
    OutputConfig: nonEmpty(outputConfig),
    InputRegion: req.input_region,
    SessionId: toSessionId(opts.dedupKey),
    SessionContext: sessionContext(opts.taskId),
  });
}

/** Validated spec request → CreateAigcVideoTask / CreateAigcImageTask. */
export function toTCreateCall(entry: ModelRecord, request: GenerationRequest, opts: TCreateOptions): TCall {
  return request.kind === 'video'
    ? { action: 'CreateAigcVideoTask', body: videoBody(entry, request as TVideoRequest, opts) }
    : { action: 'CreateAigcImageTask', body: imageBody(entry, request as TImageRequest, opts) };
}

export function toTDescribeCall(taskId: string, subAppId: number): TCall {
  return { action: 'DescribeTaskDetail', body: { TaskId: taskId, SubAppId: subAppId } };
}

/** DescribeTasks: "返回记录条数，默认值：10，最大值：100". */
export const T_LIST_LIMIT = 100;

/** One page of DescribeTasks over a creation window [after, before), oldest first. */
export function toTListCall(subAppId: number, window: { after: string; before: string }, scrollToken?: string): TCall {
  return {
    action: 'DescribeTasks',
    body: compact<DescribeTasksRequest>({
      SubAppId: subAppId,
      CreateTime: { After: window.after, Before: window.before },
      Sort: { Field: 'CreateTime', Order: 'Asc' },
      Limit: T_LIST_LIMIT,
      ScrollToken: scrollToken,
    }),
  };
}
