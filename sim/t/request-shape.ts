/**
 * Request shapes of the T actions the simulator serves, copied field by field from the official SDK's request
 * types (tencentcloud-sdk-nodejs-vod 4.1.287, tencentcloud-sdk-nodejs-vod/tencentcloud/services/vod/v20180717/vod_models.d.ts). A parameter the type does not define is
 * refused with UnknownParameter, as T does; a parameter of the wrong JSON type with InvalidParameter. Values are
 * checked afterwards (validation.ts), per model.
 */
import { invalidType, unknownParameter } from './errors';
import { isObject } from '../json';

export type Field = 'string' | 'integer' | 'number' | 'stringArray' | { object: Shape } | { array: Shape };

export type Shape = Readonly<Record<string, Field>>;

/** Checks `value` against `shape`: no unknown keys, every present key of its declared JSON type. */
export function checkShape(value: unknown, shape: Shape, path = ''): Record<string, unknown> {
  if (!isObject(value)) throw invalidType(path || 'body', 'an object');
  for (const [key, v] of Object.entries(value)) {
    const name = `${path}${key}`;
    const field = shape[key];
    if (field === undefined) throw unknownParameter(name);
    checkField(v, field, name);
  }
  return value;
}

function checkField(v: unknown, field: Field, name: string): void {
  if (field === 'string') {
    if (typeof v !== 'string') throw invalidType(name, 'a string');
  } else if (field === 'integer') {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidType(name, 'an integer');
  } else if (field === 'number') {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidType(name, 'a number');
  } else if (field === 'stringArray') {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalidType(name, 'an array of strings');
  } else if ('object' in field) {
    checkShape(v, field.object, `${name}.`);
  } else {
    if (!Array.isArray(v)) throw invalidType(name, 'an array');
    v.forEach((item, i) => checkShape(item, field.array, `${name}.${i}.`));
  }
}

// ---------------------------------------------------------------- the SDK's request types

/** AigcVideoTaskInputFileInfo. */
const VIDEO_FILE_INFO: Shape = {
  Type: 'string',
  Category: 'string',
  FileId: 'string',
  Url: 'string',
  Base64: 'string',
  ReferenceType: 'string',
  ObjectId: 'string',
  VoiceId: 'string',
  KeepOriginalSound: 'string',
  Usage: 'string',
  Text: 'string',
};

/** AigcImageTaskInputFileInfo: no Category, no Usage (docs/platforms/t.md#corrections). */
const IMAGE_FILE_INFO: Shape = {
  Type: 'string',
  FileId: 'string',
  Url: 'string',
  Base64: 'string',
  Text: 'string',
  ReferenceType: 'string',
};

/** AigcVideoTaskInputSubjectInfo. */
const SUBJECT_INFO: Shape = { Id: 'string', Name: 'string', VoiceId: 'string', ImageUrls: 'stringArray', VideoUrls: 'stringArray' };

/** AigcVideoOutputConfig. */
const VIDEO_OUTPUT_CONFIG: Shape = {
  StorageMode: 'string',
  MediaName: 'string',
  ClassId: 'integer',
  ExpireTime: 'string',
  Duration: 'number',
  Resolution: 'string',
  AspectRatio: 'string',
  AudioGeneration: 'string',
  PersonGeneration: 'string',
  InputComplianceCheck: 'string',
  OutputComplianceCheck: 'string',
  EnhanceSwitch: 'string',
  OffPeak: 'string',
  FrameInterpolate: 'string',
  LogoAdd: 'string',
  EnableBGM: 'string',
};

/** AigcImageOutputConfig. */
const IMAGE_OUTPUT_CONFIG: Shape = {
  StorageMode: 'string',
  MediaName: 'string',
  ClassId: 'integer',
  ExpireTime: 'string',
  Resolution: 'string',
  AspectRatio: 'string',
  PersonGeneration: 'string',
  InputComplianceCheck: 'string',
  OutputComplianceCheck: 'string',
  OutputImageCount: 'integer',
  OutputFormat: 'string',
  LogoAdd: 'string',
};

/** CreateAigcVideoTaskRequest. */
export const CREATE_VIDEO: Shape = {
  SubAppId: 'integer',
  ModelName: 'string',
  ModelVersion: 'string',
  FileInfos: { array: VIDEO_FILE_INFO },
  SubjectInfos: { array: SUBJECT_INFO },
  LastFrameFileId: 'string',
  LastFrameUrl: 'string',
  Prompt: 'string',
  NegativePrompt: 'string',
  EnhancePrompt: 'string',
  OutputConfig: { object: VIDEO_OUTPUT_CONFIG },
  InputRegion: 'string',
  SceneType: 'string',
  Procedure: 'string',
  Seed: 'integer',
  SessionId: 'string',
  SessionContext: 'string',
  TasksPriority: 'integer',
  ExtInfo: 'string',
};

/** CreateAigcImageTaskRequest. */
export const CREATE_IMAGE: Shape = {
  SubAppId: 'integer',
  ModelName: 'string',
  ModelVersion: 'string',
  FileInfos: { array: IMAGE_FILE_INFO },
  Prompt: 'string',
  NegativePrompt: 'string',
  EnhancePrompt: 'string',
  OutputConfig: { object: IMAGE_OUTPUT_CONFIG },
  InputRegion: 'string',
  SceneType: 'string',
  Seed: 'integer',
  SessionId: 'string',
  SessionContext: 'string',
  TasksPriority: 'integer',
  ExtInfo: 'string',
};

/** DescribeTaskDetailRequest. */
export const DESCRIBE_TASK_DETAIL: Shape = { TaskId: 'string', SubAppId: 'integer' };

const TIME_RANGE: Shape = { After: 'string', Before: 'string' };

/** DescribeTasksRequest (TimeRange, SortBy). */
export const DESCRIBE_TASKS: Shape = {
  SubAppId: 'integer',
  Status: 'string',
  FileId: 'string',
  CreateTime: { object: TIME_RANGE },
  FinishTime: { object: TIME_RANGE },
  Sort: { object: { Field: 'string', Order: 'string' } },
  Limit: 'integer',
  ScrollToken: 'string',
};

/** ModifyEventConfigRequest. */
export const MODIFY_EVENT_CONFIG: Shape = {
  SubAppId: 'integer',
  Mode: 'string',
  NotificationUrl: 'string',
  UploadMediaCompleteEventSwitch: 'string',
  DeleteMediaCompleteEventSwitch: 'string',
  PersistenceCompleteEventSwitch: 'string',
  SignKey: 'string',
};

/** DescribeEventConfigRequest. */
export const DESCRIBE_EVENT_CONFIG: Shape = { SubAppId: 'integer' };

/** PullEventsRequest. */
export const PULL_EVENTS: Shape = { ExtInfo: 'string', SubAppId: 'integer' };

/** ConfirmEventsRequest. */
export const CONFIRM_EVENTS: Shape = { EventHandles: 'stringArray', ExtInfo: 'string', SubAppId: 'integer' };

/** DescribeAigcUsageDataRequest. */
export const DESCRIBE_AIGC_USAGE_DATA: Shape = {
  StartTime: 'string',
  EndTime: 'string',
  AigcType: 'string',
  SubAppId: 'integer',
  APIKey: 'string',
  APIKeys: 'stringArray',
  ScrollToken: 'string',
  PageSize: 'integer',
  ReqId: 'string',
};
