/**
 * Platform B's announcements: account-level event callbacks (b-baidu-vod.md §7). One URL per account, set with
 * `PUT /v2/callback` (`callbackUrl`, `enableSign`, `signKey`, and the video-generation switch, whose name
 * `enableVideoGenerateCompleteEvent` is inferred from its siblings [INF] — verify with GET /v2/callback). On a
 * finished job VOD POSTs a `VIDEO_GENERATE_COMPLETE` event naming the job (`videoGenerateCompleteEvent.taskId`),
 * so the API finds the task through the GenerationUpstreamTaskId search attribute.
 *
 * Signed when a key is set (§7.3): `vod-callback-auth-token` = hex HMAC-SHA256(signKey,
 * `POST;{callbackUrl};{body};{timestamp};{user}`) [INF: the doc's sentence defining SHA256-HEX(token, content) was
 * cut off; HMAC with the key is the reading two arguments suggest], with `vod-callback-auth-timestamp` in ms —
 * refused beyond 5 minutes either way. Delivery is best effort by Baidu's own words: the timers stay the safety
 * net. Enabling callbacks replaces the account's callback URL, which other consumers of the same VOD account may
 * use: it is opt-in (PLATFORM_B_CALLBACKS=manage).
 */
import { createHmac } from 'node:crypto';
import { hexDigestsEqual } from '../../core/constant-time';
import { z } from 'zod';
import { optionalString, parseEnv } from '../../core/config';
import { CallbackRefused, type CallbackReceiver } from '../platform';

export const bCallbacksEnv = z.object({
  /**
   * `manage`: at start the worker points the account's VOD callback at PUBLIC_BASE_URL/v1/callbacks/B (replacing
   * any URL set there before) and turns the video-generation event on; `off`: polling only.
   */
  PLATFORM_B_CALLBACKS: z.enum(['off', 'manage']).default('off'),
  /** The callback signKey: events are then signed by VOD and verified by the API. */
  PLATFORM_B_CALLBACK_SIGN_KEY: optionalString,
});

/** How far a signed event's timestamp may be from the API's clock. */
const MAX_SKEW_MS = 5 * 60_000;

export function bCallbackToken(signKey: string, callbackUrl: string, body: string, timestamp: string, user: string): string {
  return createHmac('sha256', signKey).update(`POST;${callbackUrl};${body};${timestamp};${user}`).digest('hex');
}

/** The account's callback configuration the worker sets (b-baidu-vod.md §7.1). */
export function callbackConfig(callbackUrl: string, signKey: string | undefined): Record<string, unknown> {
  return { callbackUrl, enableVideoGenerateCompleteEvent: true, enableSign: Boolean(signKey), ...(signKey ? { signKey } : {}) };
}

export const bCallbackReceiver: CallbackReceiver = {
  env: bCallbacksEnv,
  create(env) {
    const { PLATFORM_B_CALLBACKS, PLATFORM_B_CALLBACK_SIGN_KEY: signKey } = parseEnv(bCallbacksEnv, env);
    return (req) => {
      if (PLATFORM_B_CALLBACKS !== 'manage') throw new CallbackRefused(403, 'Callbacks from platform B are not enabled on this gateway (PLATFORM_B_CALLBACKS)');
      const body = req.rawBody.toString('utf8');
      if (signKey) {
        const token = req.headers['vod-callback-auth-token'];
        const timestamp = req.headers['vod-callback-auth-timestamp'];
        const user = req.headers['vod-callback-auth-user'];
        if (!token || !timestamp || !user) throw new CallbackRefused(401, 'The event carries no signature (vod-callback-auth-*)');
        if (!/^\d{1,15}$/.test(timestamp) || Math.abs(req.receivedAt - Number(timestamp)) > MAX_SKEW_MS) {
          throw new CallbackRefused(401, 'The event signature has expired or is dated in the future');
        }
        if (!hexDigestsEqual(token, bCallbackToken(signKey, req.url, body, timestamp, user))) throw new CallbackRefused(401, 'The event signature does not match');
      }
      let event: { eventType?: unknown; videoGenerateCompleteEvent?: { taskId?: unknown } };
      try {
        event = JSON.parse(body) as typeof event;
      } catch {
        throw new CallbackRefused(400, 'The event is not JSON');
      }
      const taskId = event?.videoGenerateCompleteEvent?.taskId;
      return event?.eventType === 'VIDEO_GENERATE_COMPLETE' && typeof taskId === 'string' ? [{ upstreamTaskId: taskId }] : [];
    };
  },
};
