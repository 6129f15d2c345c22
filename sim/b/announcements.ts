/**
 * B's event callbacks (docs/platforms/b.md#callbacks): one account-level configuration (`GET/PUT /v2/callback`, a `CallbackConfig`, every
 * parameter optional on PUT, empty 200 answer [OFF Pm3h9z4wj, cm3h9yj5b]) and, when a generation task ends, a
 * `VIDEO_GENERATE_COMPLETE` event POSTed to `callbackUrl` [OFF Fm5v10gkb].
 *
 * Choices where the page is silent:
 *  - The per-event switch for video generation is not visible in the docs; by the naming pattern it is
 *    `enableVideoGenerateCompleteEvent` [INF]. Like the other enable* switches it is off until set [GUESS]: a
 *    client must turn it on to receive the event.
 *  - Image generation tasks emit the same event [GUESS].
 *  - A failed task's event carries `status:"FAILED"`, inner `status:"failed"` and `errMsg` [INF].
 *  - The configuration lives in memory: it is lost when the simulator restarts and cleared by /_sim/reset. Each
 *    account has its own ("回调配置" is the account's), and a task's event goes by its owner's, signed with the
 *    owner's account id.
 *
 * Signing (docs/platforms/b.md#callback-signatures), when `enableSign` is on: headers `vod-callback-auth-user` (the account id),
 * `vod-callback-auth-timestamp` (milliseconds), `vod-callback-auth-token` = SHA256-HEX(token = signKey, content) with
 * content = "POST;{callbackUrl};{body};{timestamp};{user}" and {body} "回调请求body进行json压缩后的字符串": the body
 * compacted as JSON, which says the bytes sent need not be compact — so the simulator sends the event indented
 * and signs its compacted form, and a receiver that signs the raw bytes fails as it would against VOD. SHA256-HEX is
 * read as lower-hex HMAC-SHA256(key = signKey, msg = content) [INF: the sentence defining it is cut off; two
 * arguments suggest a keyed hash]. `user-agent: AHC/2.0` as observed. Delivery retries on a non-2xx answer are the
 * shared sender's (VOD "连续重试若干次").
 */
import { createHmac } from 'node:crypto';
import type { CallbackRequest } from '../callbacks';
import type { SimHost } from '../host';
import type { SimJob, SimState } from '../jobs';
import { inappropriate } from './errors';
import { bceTimestamp } from './signing';
import { newEventId } from './ids';
import { bMeta, taskStatus, videoGenerateTaskInfo } from './tasks';
import { isHttpUrl, isObject } from '../json';

/** The CallbackConfig switches seen in the docs [OFF], and the compose one completed from a truncated name. */
export const DOCUMENTED_EVENT_SWITCHES = [
  'enableMediaUploadCompleteEvent',
  'enableMediaFetchCompleteEvent',
  'enableMediaTranscodeCompleteEvent',
  'enableMediaThumbnailCompleteEvent',
  'enableMediaAnalysisCompleteEvent',
  'enableMediaRegulationCompleteEvent',
  'enableComposeTaskStatusChangeEvent',
] as const;

/**
 * The video-generation switch's name by the naming pattern [INF]. A test may give it another name
 * (/_sim/b/behaviour `videoEventSwitch`): what a real account shows is unknown.
 */
export const VIDEO_EVENT_SWITCH = 'enableVideoGenerateCompleteEvent';

/** Every switch, the video one under `videoSwitch`. */
export const eventSwitches = (videoSwitch: string = VIDEO_EVENT_SWITCH): string[] => [...DOCUMENTED_EVENT_SWITCHES, videoSwitch];

export interface CallbackConfig {
  callbackUrl: string;
  enableSign: boolean;
  signKey: string;
  /** Every switch of eventSwitches(), the video one under the name /_sim/b/behaviour gives it. */
  switches: Record<string, boolean>;
}

export function emptyCallbackConfig(videoSwitch: string = VIDEO_EVENT_SWITCH): CallbackConfig {
  return {
    callbackUrl: '',
    enableSign: false,
    signKey: '',
    switches: Object.fromEntries(eventSwitches(videoSwitch).map((s) => [s, false])),
  };
}

/** The `CallbackConfig` as GET /v2/callback returns it. */
export function renderCallbackConfig(c: CallbackConfig): Record<string, unknown> {
  return { callbackUrl: c.callbackUrl, enableSign: c.enableSign, signKey: c.signKey, ...c.switches };
}

/** Applies a PUT body (partial update; unknown fields ignored). Validates everything before changing anything. */
export function updateCallbackConfig(current: CallbackConfig, body: unknown): CallbackConfig {
  if (!isObject(body)) throw inappropriate('The request body must be a JSON object');
  const next: CallbackConfig = { ...current, switches: { ...current.switches } };
  if (body.callbackUrl !== undefined) {
    // An empty string clears the address (no events are sent).
    if (typeof body.callbackUrl !== 'string' || (body.callbackUrl !== '' && !isHttpUrl(body.callbackUrl))) {
      throw inappropriate('callbackUrl must be an http(s) URL');
    }
    next.callbackUrl = body.callbackUrl;
  }
  if (body.enableSign !== undefined) {
    if (typeof body.enableSign !== 'boolean') throw inappropriate('enableSign must be a boolean');
    next.enableSign = body.enableSign;
  }
  if (body.signKey !== undefined) {
    if (typeof body.signKey !== 'string') throw inappropriate('signKey must be a string');
    next.signKey = body.signKey;
  }
  for (const s of Object.keys(current.switches)) {
    if (body[s] === undefined) continue;
    if (typeof body[s] !== 'boolean') throw inappropriate(`${s} must be a boolean`);
    next.switches[s] = body[s];
  }
  // Signing with no key would sign nothing [GUESS: refused].
  if (next.enableSign && next.signKey === '') throw inappropriate('signKey is required when enableSign is true');
  return next;
}

/** lower-hex HMAC-SHA256(signKey, "POST;{url};{compacted body};{timestamp};{user}") (docs/platforms/b.md#callback-signatures). */
export function callbackToken(signKey: string, callbackUrl: string, compactBody: string, timestamp: string, user: string): string {
  return createHmac('sha256', signKey).update(`POST;${callbackUrl};${compactBody};${timestamp};${user}`, 'utf8').digest('hex');
}

/** The VIDEO_GENERATE_COMPLETE event for a finished job, shaped as the official example (null fields omitted). */
export function completeEvent(host: SimHost, job: SimJob): Record<string, unknown> {
  const status = taskStatus(host, job, false);
  const finishTime = bceTimestamp(status.finishedAt ?? host.now());
  return {
    eventId: newEventId(),
    eventType: 'VIDEO_GENERATE_COMPLETE',
    eventTime: finishTime,
    videoGenerateCompleteEvent: {
      taskId: job.id,
      status: status.top,
      createTime: bceTimestamp(job.createdAt),
      finishTime,
      videoGenerateTaskInfo: videoGenerateTaskInfo(job, status, bMeta(job).baseUrl),
    },
  };
}

/** Builds the signed request for one event (the shared sender delivers it, retries, and applies faults). */
export function callbackRequest(config: CallbackConfig, event: Record<string, unknown>, now: number, user: string): CallbackRequest {
  // Sent indented, signed compacted (see the header).
  const body = JSON.stringify(event, null, 2);
  const compacted = JSON.stringify(event);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'AHC/2.0' };
  if (!config.enableSign) return { url: config.callbackUrl, body, headers };
  const timestamp = String(now);
  headers['vod-callback-auth-user'] = user;
  headers['vod-callback-auth-timestamp'] = timestamp;
  headers['vod-callback-auth-token'] = callbackToken(config.signKey, config.callbackUrl, compacted, timestamp, user);
  return {
    url: config.callbackUrl,
    body,
    headers,
    // The bad-signature fault: a token of the right form that does not verify.
    corrupt: (h, b) => ({
      headers: {
        ...h,
        'vod-callback-auth-token': callbackToken(`${config.signKey}-wrong`, config.callbackUrl, compacted, timestamp, user),
      },
      body: b,
    }),
  };
}

const TERMINAL: ReadonlySet<SimState> = new Set(['succeeded', 'failed']);

/** Whose configuration a task's event follows: its owner's, and the owner's account id to sign it with. */
export interface CallbackOwner {
  config: CallbackConfig;
  userId: string;
}

/**
 * Sends the event when one of B's tasks reaches its end, if its owner's configuration asks for it (`videoSwitch`:
 * the video-generation switch's current name).
 */
export function watchCompletions(host: SimHost, ownerOf: (job: SimJob) => CallbackOwner, videoSwitch: () => string): void {
  host.onTransition('B', (job, _from, to) => {
    if (!TERMINAL.has(to)) return;
    const { config, userId } = ownerOf(job);
    if (config.callbackUrl === '' || !config.switches[videoSwitch()]) return;
    host.callbacks.send('B', callbackRequest(config, completeEvent(host, job), host.now(), userId), job.id);
  });
}
