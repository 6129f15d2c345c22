/**
 * Platform B's announcements: account-level event callbacks (docs/platforms/b.md#callbacks). One URL per account, set with
 * `PUT /v2/callback` (`callbackUrl`, `enableSign`, `signKey`, and the video-generation switch, whose name
 * `enableVideoGenerateCompleteEvent` is inferred from its siblings [INF] — verify with GET /v2/callback). On a
 * finished job VOD POSTs a `VIDEO_GENERATE_COMPLETE` event naming the job (`videoGenerateCompleteEvent.taskId`),
 * so the API finds the task through the GenerationUpstreamTaskId search attribute.
 *
 * Signed when a key is set (docs/platforms/b.md#callback-signatures): `vod-callback-auth-token` = SHA256-HEX(token = signKey, content), content =
 * `POST;{callbackUrl};{body};{timestamp};{user}` with {body} "回调请求body进行json压缩后的字符串" (the body compacted
 * as JSON; the raw body is verified too, and both readings of SHA256-HEX: verifyBCallbackToken), with
 * `vod-callback-auth-timestamp` in ms — refused beyond 5 minutes either way. Signatures that keep failing are
 * reported once at warn by the API (api/callback-verification.ts): polling carries the tasks meanwhile. Delivery is best effort by Baidu's own words: the timers stay the safety
 * net. Enabling callbacks replaces the account's callback URL, which other consumers of the same VOD account may
 * use: it is opt-in (PLATFORM_B_CALLBACKS=manage).
 */
import { createHash, createHmac } from 'node:crypto';
import { hexDigestsEqual } from '../../core/constant-time';
import { z } from 'zod';
import { optionalString, parseEnv } from '../../core/config';
import { CallbackRefused, eventObject, unverifiedClaims, type CallbackReceiver, type UpstreamHint } from '../platform';

/** The video-generation event switch's name as inferred [INF]; PLATFORM_B_CALLBACK_SWITCH overrides it. */
export const DEFAULT_VIDEO_EVENT_SWITCH = 'enableVideoGenerateCompleteEvent';

export const bCallbacksEnv = z.object({
  /**
   * `manage`: at start the worker points the account's VOD callback at PUBLIC_BASE_URL/v1/callbacks/B (replacing
   * any URL set there before) and turns the video-generation event on; `off`: polling only.
   */
  PLATFORM_B_CALLBACKS: z.enum(['off', 'manage']).default('off'),
  /** The callback signKey: events are then signed by VOD and verified by the API. */
  PLATFORM_B_CALLBACK_SIGN_KEY: optionalString,
  /**
   * The CallbackConfig switch that turns video-generation events on. Its name is inferred from its documented
   * siblings [INF]: if GET /v2/callback shows another name (the conformance run reads it), set it here.
   */
  PLATFORM_B_CALLBACK_SWITCH: z
    .string()
    .regex(/^enable[A-Za-z]+Event$/, { message: 'a CallbackConfig switch is named enable…Event' })
    .default(DEFAULT_VIDEO_EVENT_SWITCH),
});

/** How far a signed event's timestamp may be from the API's clock. */
const MAX_SKEW_MS = 5 * 60_000;

/**
 * The two readings of `SHA256-HEX(token, content)`: the sentence of Baidu's page that defines it (docs/platforms/b.md#callback-signatures) is cut off in every copy
 * (docs/platforms/b.md#callback-signatures), and the page's worked example cannot settle it (its
 * body was edited). Two arguments suggest an HMAC keyed with the token (`hmac`); a plain hash of the token followed
 * by the content (`sha256-prefix`) is the other plausible reading. Both are accepted (docs/platforms/b.md#callback-signatures).
 */
export const B_SIGNATURE_READINGS = ['hmac', 'sha256-prefix'] as const;
export type BSignatureReading = (typeof B_SIGNATURE_READINGS)[number];

/** Which bytes stand for {body}: the body compacted as JSON (the documented form), or the bytes as received. */
export type BSignedBody = 'compacted' | 'raw';

/** The signed content (docs/platforms/b.md#callback-signatures): `POST;{callbackUrl};{body};{vod-callback-auth-timestamp};{vod-callback-auth-user}`. */
export function bCallbackContent(callbackUrl: string, body: string, timestamp: string, user: string): string {
  return `POST;${callbackUrl};${body};${timestamp};${user}`;
}

/** lower-hex SHA256-HEX(signKey, content) in one reading (HMAC-SHA256 keyed with signKey, by default). */
export function bCallbackToken(
  signKey: string,
  callbackUrl: string,
  body: string,
  timestamp: string,
  user: string,
  reading: BSignatureReading = 'hmac',
): string {
  const content = bCallbackContent(callbackUrl, body, timestamp, user);
  return reading === 'hmac'
    ? createHmac('sha256', signKey).update(content, 'utf8').digest('hex')
    : createHash('sha256').update(`${signKey}${content}`, 'utf8').digest('hex');
}

/**
 * The body "compacted as JSON": re-serialised without whitespace, as JSON.stringify writes it. Undefined when the
 * body is not JSON. A sender whose compaction writes numbers or escapes differently (`1.0`, `\u4e2d`) is still
 * matched by the raw form when it sent the body compact already.
 */
export function compactedJson(raw: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    return undefined;
  }
}

/**
 * The forms a genuine event may be signed in, and so the ones verified: each reading of SHA256-HEX over the
 * compacted body (the documented form) and over the raw body (when the two differ). Returns the form that
 * matched, or undefined. Each accepted form still needs the signKey: accepting four does not let anyone else sign.
 */
export function verifyBCallbackToken(
  token: string,
  signKey: string,
  callbackUrl: string,
  rawBody: string,
  timestamp: string,
  user: string,
): { body: BSignedBody; reading: BSignatureReading } | undefined {
  const compacted = compactedJson(rawBody);
  const bodies: [BSignedBody, string][] =
    compacted !== undefined && compacted !== rawBody
      ? [
          ['compacted', compacted],
          ['raw', rawBody],
        ]
      : [['compacted', rawBody]];
  for (const [body, text] of bodies) {
    for (const reading of B_SIGNATURE_READINGS) {
      if (hexDigestsEqual(token, bCallbackToken(signKey, callbackUrl, text, timestamp, user, reading))) return { body, reading };
    }
  }
  return undefined;
}

/** The account's callback configuration the worker sets (docs/platforms/b.md#callbacks). */
export function callbackConfig(
  callbackUrl: string,
  signKey: string | undefined,
  videoEventSwitch: string = DEFAULT_VIDEO_EVENT_SWITCH,
): Record<string, unknown> {
  return { callbackUrl, [videoEventSwitch]: true, enableSign: Boolean(signKey), ...(signKey ? { signKey } : {}) };
}

/** The job a `VIDEO_GENERATE_COMPLETE` event names (`videoGenerateCompleteEvent.taskId`); other events name none. */
function jobOf(event: Record<string, unknown>): UpstreamHint | undefined {
  const taskId = (event.videoGenerateCompleteEvent as { taskId?: unknown } | undefined)?.taskId;
  return event.eventType === 'VIDEO_GENERATE_COMPLETE' && typeof taskId === 'string' ? { upstreamTaskId: taskId } : undefined;
}

export const bCallbackReceiver: CallbackReceiver = {
  env: bCallbacksEnv,
  create(env) {
    const { PLATFORM_B_CALLBACKS, PLATFORM_B_CALLBACK_SIGN_KEY: signKey } = parseEnv(bCallbacksEnv, env);
    return (req) => {
      if (PLATFORM_B_CALLBACKS !== 'manage')
        throw new CallbackRefused(403, 'Callbacks from platform B are not enabled on this gateway (PLATFORM_B_CALLBACKS)');
      const body = req.rawBody.toString('utf8');
      if (signKey) {
        const token = req.headers['vod-callback-auth-token'];
        const timestamp = req.headers['vod-callback-auth-timestamp'];
        const user = req.headers['vod-callback-auth-user'];
        const refused = (why: string) => new CallbackRefused(401, why, unverifiedClaims(req.rawBody, jobOf));
        if (!token || !timestamp || !user) throw refused('The event carries no signature (vod-callback-auth-*)');
        if (!/^\d{1,15}$/.test(timestamp) || Math.abs(req.receivedAt - Number(timestamp)) > MAX_SKEW_MS) {
          throw refused('The event signature has expired or is dated in the future');
        }
        if (!verifyBCallbackToken(token, signKey, req.url, body, timestamp, user)) throw refused('The event signature does not match');
      }
      const hint = jobOf(eventObject(req.rawBody));
      return hint ? [hint] : [];
    };
  },
};
