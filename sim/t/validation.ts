/**
 * Validation of CreateAigcVideoTask / CreateAigcImageTask bodies, strict as the platform: the request shape
 * (request-shape.ts: unknown parameters, JSON types), then every value against the SDK's documented enumerations and the
 * per-model tables (models.ts). Throws TError; returns what the simulator needs to create and describe the task.
 */
import { invalidValue, missingParameter, TError } from './errors';
import {
  defaultDuration,
  describeDurations,
  durationAllowed,
  findImageModel,
  findVideoModel,
  T_IMAGE_MODELS,
  T_VIDEO_MODELS,
  type TImageModel,
  type TVideoModel,
} from './models';
import { checkShape, CREATE_IMAGE, CREATE_VIDEO } from './request-shape';
import { isHttpUrl } from '../json';

/** "最长 50 个字符" (SessionId) and "最长 1000 个字符" (SessionContext), on every Create action. */
export const SESSION_ID_MAX = 50;
export const SESSION_CONTEXT_MAX = 1000;
/** AigcVideoTaskInput: Prompt and NegativePrompt "最大支持1000字符". */
const VIDEO_PROMPT_MAX = 1000;
/** AigcVideoOutputConfig / AigcImageOutputConfig: MediaName "最长 64 个字符". */
const MEDIA_NAME_MAX = 64;

const ENABLED_DISABLED = ['Enabled', 'Disabled'];

export interface TCreatePlan {
  kind: 'video' | 'image';
  modelName: string;
  modelVersion: string;
  subAppId: number;
  prompt?: string;
  /** '' = no dedup ("不带或者带空字符串表示不做去重"). */
  sessionId: string;
  sessionContext: string;
  storageMode: 'Temporary' | 'Permanent';
  mediaName?: string;
  classId?: number;
  expireTime?: string;
  /** Result files: 1 for video; images: OutputImageCount where the model honours it. */
  outputs: number;
  /** Video only: the output duration in seconds (for Output.Usage). */
  outputSeconds?: number;
  /** AigcVideoTaskInput / AigcImageTaskInput: the request's fields the task echoes back. */
  input: Record<string, unknown>;
}

const VIDEO_INPUT_FIELDS = [
  'ModelName',
  'ModelVersion',
  'FileInfos',
  'SubjectInfos',
  'LastFrameFileId',
  'LastFrameUrl',
  'Prompt',
  'NegativePrompt',
  'EnhancePrompt',
  'OutputConfig',
  'InputRegion',
  'SceneType',
  'Seed',
];
const IMAGE_INPUT_FIELDS = [
  'ModelName',
  'ModelVersion',
  'FileInfos',
  'Prompt',
  'NegativePrompt',
  'EnhancePrompt',
  'OutputConfig',
  'Seed',
  'SceneType',
];

function oneOf(name: string, value: unknown, allowed: readonly string[]): void {
  if (value !== undefined && !allowed.includes(value as string)) throw invalidValue(name, `must be one of ${allowed.join(', ')}`);
}

/** SubAppId: required for the simulated account (opened after 2023-12-25: "必须将该字段填写为应用 ID"). */
export function checkSubAppId(body: Record<string, unknown>, expected: number): number {
  if (body.SubAppId === undefined) throw missingParameter('SubAppId');
  if (body.SubAppId !== expected)
    throw new TError(
      'InvalidParameterValue.SubAppId',
      `The SubAppId ${String(body.SubAppId)} does not exist or does not belong to this account.`,
    );
  return expected;
}

/** What both Create actions share; returns the trimmed common fields. */
function checkCommon(body: Record<string, unknown>, kind: 'video' | 'image', subAppId: number) {
  checkSubAppId(body, subAppId);
  if (body.ModelName === undefined) throw missingParameter('ModelName');
  if (body.ModelVersion === undefined) throw missingParameter('ModelVersion');
  const models: readonly { name: string; version: string }[] = kind === 'video' ? T_VIDEO_MODELS : T_IMAGE_MODELS;
  const name = body.ModelName as string;
  const version = body.ModelVersion as string;
  if (!models.some((m) => m.name === name))
    throw invalidValue('ModelName', `${name} is not a ${kind} model; use one of ${[...new Set(models.map((m) => m.name))].join(', ')}`);
  if (!models.some((m) => m.name === name && m.version === version)) {
    throw invalidValue(
      'ModelVersion',
      `${version} is not a version of ${name}; use one of ${models
        .filter((m) => m.name === name)
        .map((m) => m.version)
        .join(', ')}`,
    );
  }
  oneOf('EnhancePrompt', body.EnhancePrompt, ENABLED_DISABLED);
  // Video: "当文件url是国外地址时候，可选Oversea。默认Mainland"; image adds OverseaUSWest.
  oneOf('InputRegion', body.InputRegion, kind === 'video' ? ['Mainland', 'Oversea'] : ['Mainland', 'Oversea', 'OverseaUSWest']);
  const sessionId = (body.SessionId as string | undefined) ?? '';
  if (sessionId.length > SESSION_ID_MAX)
    throw new TError('InvalidParameterValue.SessionIdTooLong', `SessionId is longer than ${SESSION_ID_MAX} characters.`);
  const sessionContext = (body.SessionContext as string | undefined) ?? '';
  if (sessionContext.length > SESSION_CONTEXT_MAX)
    throw new TError('InvalidParameterValue.SessionContextTooLong', `SessionContext is longer than ${SESSION_CONTEXT_MAX} characters.`);
  // "任务的优先级，数值越大优先级越高，取值范围是 -10 到 10".
  const priority = body.TasksPriority as number | undefined;
  if (priority !== undefined && (priority < -10 || priority > 10)) throw invalidValue('TasksPriority', 'must be between -10 and 10');
  return { name, version, sessionId, sessionContext };
}

/** The output-config fields both kinds share. */
function checkCommonOutput(oc: Record<string, unknown>) {
  oneOf('OutputConfig.StorageMode', oc.StorageMode, ['Temporary', 'Permanent']);
  if (typeof oc.MediaName === 'string' && oc.MediaName.length > MEDIA_NAME_MAX)
    throw invalidValue('OutputConfig.MediaName', `must be at most ${MEDIA_NAME_MAX} characters`);
  if (typeof oc.ClassId === 'number' && oc.ClassId < 0) throw invalidValue('OutputConfig.ClassId', 'must not be negative');
  if (typeof oc.ExpireTime === 'string' && Number.isNaN(Date.parse(oc.ExpireTime)))
    throw invalidValue('OutputConfig.ExpireTime', 'must be an ISO 8601 date');
  oneOf('OutputConfig.PersonGeneration', oc.PersonGeneration, ['AllowAdult', 'Disallowed']);
  for (const f of ['InputComplianceCheck', 'OutputComplianceCheck', 'LogoAdd']) oneOf(`OutputConfig.${f}`, oc[f], ENABLED_DISABLED);
  return {
    storageMode: (oc.StorageMode as 'Temporary' | 'Permanent' | undefined) ?? 'Temporary',
    mediaName: oc.MediaName as string | undefined,
    classId: oc.ClassId as number | undefined,
    expireTime: oc.ExpireTime as string | undefined,
  };
}

/** Checks one FileInfos item's Type and its source field; returns the item. */
function checkFileSource(item: Record<string, unknown>, p: string): void {
  if (item.Type === undefined) throw missingParameter(`${p}.Type`);
  oneOf(`${p}.Type`, item.Type, ['File', 'Url', 'Base64']);
  if (item.Type === 'Url') {
    if (item.Url === undefined) throw missingParameter(`${p}.Url`);
    if (!isHttpUrl(item.Url as string)) throw invalidValue(`${p}.Url`, 'must be an http(s) URL');
  } else if (item.Type === 'File') {
    if (!item.FileId) throw missingParameter(`${p}.FileId`);
  } else if (!item.Base64) {
    throw missingParameter(`${p}.Base64`);
  }
}

function pick(body: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => body[f] !== undefined).map((f) => [f, body[f]]));
}

// ---------------------------------------------------------------- video

/** SceneType: "当 ModelName 为 Kling 时：motion_control / avatar_i2v / lip_sync；当 ModelName 为 Vidu 时：template_effect；其他 ModelName 暂不支持". */
const VIDEO_SCENES: Record<string, readonly string[]> = { Kling: ['motion_control', 'avatar_i2v', 'lip_sync'], Vidu: ['template_effect'] };
/** FileInfos ReferenceType: "GV：asset / style；Kling（Category 为 Video）：feature / base；PixVerse：subject / background". */
const REFERENCE_TYPES: Record<string, readonly string[]> = {
  GV: ['asset', 'style'],
  Kling: ['feature', 'base'],
  PixVerse: ['subject', 'background'],
};

/** How many input images of each use a video request gives (first frame, last frame, references). */
interface FrameCounts {
  first: number;
  last: number;
  refs: number;
}

/** The prompts' lengths, the scene type and the subjects, as the model takes them. */
function checkVideoText(body: Record<string, unknown>, name: string): void {
  for (const f of ['Prompt', 'NegativePrompt'] as const) {
    const v = body[f] as string | undefined;
    if (v !== undefined && v.length > VIDEO_PROMPT_MAX) throw invalidValue(f, `must be at most ${VIDEO_PROMPT_MAX} characters`);
  }
  const scenes = VIDEO_SCENES[name];
  if (body.SceneType !== undefined) {
    if (!scenes) throw invalidValue('SceneType', `${name} supports no scene type`);
    oneOf('SceneType', body.SceneType, scenes);
  }
  if (body.SubjectInfos !== undefined && name !== 'Kling' && name !== 'Vidu')
    throw invalidValue('SubjectInfos', `${name} takes no subjects (Kling and Vidu only)`);
}

/** One FileInfos item checked, its image counted in `counts` by its Usage. */
function countVideoFile(item: Record<string, unknown>, i: number, name: string, model: TVideoModel, counts: FrameCounts): void {
  const p = `FileInfos.${i}`;
  const label = `${name} ${model.version}`;
  checkFileSource(item, p);
  oneOf(`${p}.Category`, item.Category, ['Image', 'Video', 'Audio']);
  oneOf(`${p}.Usage`, item.Usage, ['FirstFrame', 'LastFrame', 'Reference']);
  oneOf(`${p}.KeepOriginalSound`, item.KeepOriginalSound, ENABLED_DISABLED);
  if (item.ReferenceType !== undefined) {
    const types = REFERENCE_TYPES[name];
    if (!types) throw invalidValue(`${p}.ReferenceType`, `${name} takes no reference type (GV, Kling and PixVerse only)`);
    oneOf(`${p}.ReferenceType`, item.ReferenceType, types);
  }
  const category = (item.Category as string | undefined) ?? 'Image';
  if (category === 'Video') {
    if (!model.videoInput) throw invalidValue(`${p}.Category`, `${label} takes no input video (Vidu and Kling only)`);
    return;
  }
  // GUESS: no model of the SDK documents audio references; refused rather than silently accepted.
  if (category === 'Audio') throw invalidValue(`${p}.Category`, `${label} takes no input audio`);
  // "注意，默认是FirstFrame".
  const usage = (item.Usage as string | undefined) ?? 'FirstFrame';
  if (usage === 'FirstFrame') counts.first++;
  else if (usage === 'LastFrame') counts.last++;
  else counts.refs++;
}

/** The input files and last frame: each item checked, then the frames and references against what the model takes. */
function checkVideoInputs(body: Record<string, unknown>, name: string, model: TVideoModel, oc: Record<string, unknown>): void {
  const label = `${name} ${model.version}`;
  const counts: FrameCounts = { first: 0, last: 0, refs: 0 };
  const files = (body.FileInfos as Record<string, unknown>[] | undefined) ?? [];
  files.forEach((item, i) => countVideoFile(item, i, name, model, counts));
  if (body.LastFrameUrl !== undefined) {
    if (!isHttpUrl(body.LastFrameUrl as string)) throw invalidValue('LastFrameUrl', 'must be an http(s) URL');
    counts.last++;
  }
  if (body.LastFrameFileId !== undefined) counts.last++;
  const { first, last, refs } = counts;
  if (first > 1) throw invalidValue('FileInfos', 'at most one image may have Usage FirstFrame');
  if (last > 1)
    throw invalidValue('LastFrameUrl', 'give one last frame: LastFrameUrl, LastFrameFileId or one FileInfos item with Usage LastFrame');
  // "可以单独传首帧，不能单独传尾帧" / "指定该参数时，须同时通过 FileInfos 指定首帧画面".
  if (last > 0 && first === 0) throw invalidValue('LastFrameUrl', 'a last frame requires a first frame in FileInfos');
  if (last > 0) {
    if (model.lastFrame === 'no')
      throw invalidValue('LastFrameUrl', `${label} does not accept a last frame (GV, Kling 2.1 at 1080P, Vidu q2-pro/q2-turbo only)`);
    if (model.lastFrame === 'only-1080P' && oc.Resolution !== '1080P')
      throw invalidValue('LastFrameUrl', `${label} accepts a last frame only with OutputConfig.Resolution 1080P`);
  }
  if (refs > 0) {
    if (model.maxReferenceImages === 0) throw invalidValue('FileInfos', `${label} does not accept reference images`);
    if (model.maxReferenceImages !== undefined && refs > model.maxReferenceImages)
      throw invalidValue('FileInfos', `${label} accepts at most ${model.maxReferenceImages} reference images`);
    // GUESS: the SDK describes first/last-frame and reference generation as separate modes; mixing them is refused.
    if (first + last > 0)
      throw invalidValue('FileInfos', 'reference images (Usage Reference) cannot be combined with a first or last frame');
  }
  const hasInput = files.length > 0 || (body.SubjectInfos as unknown[] | undefined)?.length;
  // "当 FileInfos 为空时，此参数必填" (AigcVideoTaskInput.Prompt).
  if (!hasInput && !body.Prompt) throw missingParameter('Prompt');
  if (!hasInput && !model.textToVideo) throw invalidValue('FileInfos', `${label} needs an input image (no text-to-video)`);
}

/** The video's output settings, per model; returns the duration asked for. */
function checkVideoOutput(oc: Record<string, unknown>, name: string, model: TVideoModel, silentKlingVersions: readonly string[]) {
  const label = `${name} ${model.version}`;
  for (const f of ['EnhanceSwitch', 'OffPeak', 'FrameInterpolate', 'EnableBGM', 'AudioGeneration'])
    oneOf(`OutputConfig.${f}`, oc[f], ENABLED_DISABLED);
  // "是否开启图标水印…目前支持的模型有 Vidu，其他模型暂不支持".
  if (oc.LogoAdd === 'Enabled' && name !== 'Vidu')
    throw invalidValue('OutputConfig.LogoAdd', `${label} does not support LogoAdd (Vidu only)`);
  const duration = oc.Duration as number | undefined;
  if (duration !== undefined && model.durations && !durationAllowed(model.durations, duration)) {
    throw invalidValue('OutputConfig.Duration', `${label} accepts ${describeDurations(model.durations)}`);
  }
  if (oc.Resolution !== undefined && model.resolutions && !model.resolutions.includes(oc.Resolution as string)) {
    throw invalidValue('OutputConfig.Resolution', `${label} accepts ${model.resolutions.join(', ')}`);
  }
  if (oc.AspectRatio !== undefined) {
    if (model.aspectRatios === null) throw invalidValue('OutputConfig.AspectRatio', `${label} does not support AspectRatio`);
    if (model.aspectRatios && !model.aspectRatios.includes(oc.AspectRatio as string))
      throw invalidValue('OutputConfig.AspectRatio', `${label} accepts ${model.aspectRatios.join(', ')}`);
  }
  if (oc.AudioGeneration === 'Enabled' && !model.audio)
    throw invalidValue('OutputConfig.AudioGeneration', `${label} does not generate audio (GV, OS, Vidu, Kling only)`);
  if (oc.AudioGeneration === 'Enabled' && name === 'Kling' && silentKlingVersions.includes(model.version)) {
    throw invalidValue('OutputConfig.AudioGeneration', `${label} does not generate audio`);
  }
  const extra = model.extraRule?.({ Duration: duration, Resolution: oc.Resolution as string | undefined });
  if (extra) throw invalidValue('OutputConfig', extra);
  return duration;
}

/**
 * `silentKlingVersions`: the Kling versions taken to refuse AudioGeneration `Enabled` (/_sim/t/behaviour; the SDK's
 * list names "Kling" without a version, so whether each version takes it is open: operations.ts TBehaviour).
 */
export function validateVideoCreate(raw: unknown, subAppId: number, silentKlingVersions: readonly string[] = []): TCreatePlan {
  const body = checkShape(raw, CREATE_VIDEO);
  const { name, version, sessionId, sessionContext } = checkCommon(body, 'video', subAppId);
  const model = findVideoModel(name, version) as TVideoModel;
  checkVideoText(body, name);
  const oc = (body.OutputConfig as Record<string, unknown> | undefined) ?? {};
  checkVideoInputs(body, name, model, oc);
  const common = checkCommonOutput(oc);
  const duration = checkVideoOutput(oc, name, model, silentKlingVersions);
  return {
    kind: 'video',
    modelName: name,
    modelVersion: version,
    subAppId,
    prompt: body.Prompt as string | undefined,
    sessionId,
    sessionContext,
    ...common,
    outputs: 1,
    outputSeconds: duration ?? defaultDuration(model),
    input: pick(body, VIDEO_INPUT_FIELDS),
  };
}

// ---------------------------------------------------------------- image

/** SceneType: "当 ModelName 为 Hunyuan 时：3d_panorama；当 ModelName 为 Kling 时：image_expand；其他 ModelName 暂不支持". */
const IMAGE_SCENES: Record<string, readonly string[]> = { Hunyuan: ['3d_panorama'], Kling: ['image_expand'] };

/** The image's output settings, per model; returns the image count asked for. */
function checkImageOutput(oc: Record<string, unknown>, model: TImageModel, label: string): number | undefined {
  oneOf('OutputConfig.OutputFormat', oc.OutputFormat, ['jpeg', 'png']);
  if (oc.Resolution !== undefined) {
    if (model.resolutions === null)
      throw invalidValue('OutputConfig.Resolution', `${label} does not support Resolution (set the size through ExtInfo)`);
    if (!model.resolutions.includes(oc.Resolution as string))
      throw invalidValue('OutputConfig.Resolution', `${label} accepts ${model.resolutions.join(', ')}`);
  }
  if (oc.AspectRatio !== undefined) {
    if (model.aspectRatios === null) throw invalidValue('OutputConfig.AspectRatio', `${label} does not support AspectRatio`);
    if (!model.aspectRatios.includes(oc.AspectRatio as string))
      throw invalidValue('OutputConfig.AspectRatio', `${label} accepts ${model.aspectRatios.join(', ')}`);
  }
  const count = oc.OutputImageCount as number | undefined;
  if (count !== undefined) {
    if (count < 1) throw invalidValue('OutputConfig.OutputImageCount', 'must be at least 1');
    // "Kling：可选值 1-9；OG：可选值1-8；其他模型不生效".
    if (model.maxOutputImages !== undefined && count > model.maxOutputImages)
      throw invalidValue('OutputConfig.OutputImageCount', `${label} accepts 1 to ${model.maxOutputImages}`);
  }
  return count;
}

export function validateImageCreate(raw: unknown, subAppId: number): TCreatePlan {
  const body = checkShape(raw, CREATE_IMAGE);
  const { name, version, sessionId, sessionContext } = checkCommon(body, 'image', subAppId);
  const model = findImageModel(name, version) as TImageModel;
  const label = `${name} ${version}`;

  const scenes = IMAGE_SCENES[name];
  if (body.SceneType !== undefined) {
    if (!scenes) throw invalidValue('SceneType', `${name} supports no scene type`);
    oneOf('SceneType', body.SceneType, scenes);
  }
  const files = (body.FileInfos as Record<string, unknown>[] | undefined) ?? [];
  files.forEach((item, i) => {
    const p = `FileInfos.${i}`;
    checkFileSource(item, p);
    // "仅当 ModelName 为 OG 时有效。图片类型。枚举值：mask".
    if (item.ReferenceType !== undefined) {
      if (name !== 'OG') throw invalidValue(`${p}.ReferenceType`, 'only OG takes a reference type');
      oneOf(`${p}.ReferenceType`, item.ReferenceType, ['mask']);
    }
  });
  if (model.maxFileInfos !== undefined && files.length > model.maxFileInfos)
    throw invalidValue('FileInfos', `${label} accepts at most ${model.maxFileInfos} reference images`);
  // "生成图片的提示词。当 FileInfos 为空时，此参数必填".
  if (files.length === 0 && !body.Prompt) throw missingParameter('Prompt');

  const oc = (body.OutputConfig as Record<string, unknown> | undefined) ?? {};
  const common = checkCommonOutput(oc);
  const count = checkImageOutput(oc, model, label);

  return {
    kind: 'image',
    modelName: name,
    modelVersion: version,
    subAppId,
    prompt: body.Prompt as string | undefined,
    sessionId,
    sessionContext,
    ...common,
    outputs: model.maxOutputImages !== undefined ? (count ?? 1) : 1,
    input: pick(body, IMAGE_INPUT_FIELDS),
  };
}
