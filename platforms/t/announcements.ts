/**
 * Platform T's announcements: VOD event notification (docs/platforms/t.md#callbacks), configured
 * per SubAppId with ModifyEventConfig. The AIGC completion events (`AigcVideoTaskComplete`,
 * `AigcImageTaskComplete`) carry the task, including `SessionContext` — the gateway's task id, which the
 * adapter puts there on create — so an event names its task directly.
 *
 * - PUSH: T POSTs each event to NotificationUrl (`{PUBLIC_BASE_URL}/v1/callbacks/T`). With a SignKey the event
 *   carries `T` (expiry, unix seconds, 10 minutes ahead by default) and `Sign = MD5(SignKey + T)`, "placed in the
 *   notification message" (ModifyEventConfigRequest.SignKey in the SDK's types, platforms/t/wire-types.ts) — read
 *   here as top-level fields of the JSON body beside EventType, as Tencent's other MD5(key + t) callbacks do.
 *   Unverifiable placement: an event without both fields is refused whenever a SignKey is configured.
 * - PULL: a reliable queue: PullEvents long-polls (up to 16 events, each with an EventHandle), ConfirmEvents
 *   acknowledges them; an unconfirmed event comes back after 30 s. No public URL needed: the worker consumes it
 *   (workflows/platform-events.ts).
 */
import { createHash } from 'node:crypto';
import { hexDigestsEqual } from '../../core/constant-time';
import { z } from 'zod';
import { optionalString, parseEnv } from '../../core/config';
import { CallbackRefused, eventObject, type CallbackReceiver, type PlatformEventQueue, type UpstreamHint } from '../platform';
import type { TCall } from './request-body';
import type { DescribeEventConfigResponse, EventContent, PullEventsResponse } from './wire-types';

/** ModifyEventConfig's SignKey: "由大小写字母及数字组成，最长32字符". */
export const tSignKey = optionalString.pipe(
  z
    .string()
    .regex(/^[A-Za-z0-9]{1,32}$/, "must be 1 to 32 letters and digits (T's SignKey)")
    .optional(),
);

export const tEventsEnv = z.object({
  /**
   * How T announces finished jobs: `off` (polling only), `push` (HTTP callbacks to PUBLIC_BASE_URL/v1/callbacks/T)
   * or `pull` (the worker consumes T's reliable event queue: no public URL needed).
   */
  PLATFORM_T_EVENTS: z.enum(['off', 'push', 'pull']).default('off'),
  /** T's event SignKey (letters and digits, ≤ 32): PUSH events are then signed and verified. */
  PLATFORM_T_EVENTS_SIGN_KEY: tSignKey,
});

const AIGC_EVENTS = new Set(['AigcVideoTaskComplete', 'AigcImageTaskComplete']);

/** The task an AIGC completion event is about, or undefined for any other event. */
export function hintOf(event: EventContent): UpstreamHint | undefined {
  if (!event.EventType || !AIGC_EVENTS.has(event.EventType)) return undefined;
  const task = event.AigcVideoCompleteEvent ?? event.AigcImageCompleteEvent;
  if (!task) return undefined;
  const hint: UpstreamHint = {};
  if (task.SessionContext) hint.taskId = task.SessionContext;
  if (task.TaskId) hint.upstreamTaskId = task.TaskId;
  return hint.taskId || hint.upstreamTaskId ? hint : undefined;
}

/** The account setting that makes T announce AIGC completions (done once when a worker starts). */
export function eventConfigCall(
  subAppId: number,
  mode: 'push' | 'pull',
  notificationUrl: string | undefined,
  signKey: string | undefined,
): TCall {
  return {
    action: 'ModifyEventConfig',
    body: {
      SubAppId: subAppId,
      Mode: mode === 'push' ? 'PUSH' : 'PULL',
      ...(mode === 'push' && notificationUrl ? { NotificationUrl: notificationUrl } : {}),
      ...(signKey ? { SignKey: signKey } : {}),
    },
  };
}

/**
 * How the SubAppId's current event configuration relates to the one the gateway wants:
 * - `same`: already what the gateway sets (its SignKey cannot be read back: DescribeEventConfigResponse has none);
 * - `unset`: PUSH with no NotificationUrl — a SubAppId never configured reads so, and its events go nowhere;
 * - `foreign`: anything else (another mode, another URL): someone else's, since the gateway sets only what
 *   PLATFORM_T_EVENTS and PUBLIC_BASE_URL say. In PULL mode the URL does not matter (events are queued).
 */
export function eventConfigChange(
  current: DescribeEventConfigResponse,
  wanted: { mode: 'push' | 'pull'; notificationUrl?: string },
): { kind: 'same' | 'unset' | 'foreign'; from: string; to: string } {
  const describe = (mode: string, url: string) => (mode === 'PULL' ? 'PULL' : `PUSH to ${url === '' ? '(no URL)' : url}`);
  const mode = current.Mode ?? 'PUSH';
  const url = current.NotificationUrl ?? '';
  const wantMode = wanted.mode === 'push' ? 'PUSH' : 'PULL';
  const wantUrl = wanted.mode === 'push' ? (wanted.notificationUrl ?? '') : '';
  const from = describe(mode, url);
  const to = describe(wantMode, wantUrl);
  if (mode === wantMode && (mode === 'PULL' || url === wantUrl)) return { kind: 'same', from, to };
  if (mode === 'PUSH' && url === '') return { kind: 'unset', from, to };
  return { kind: 'foreign', from, to };
}

/** T's event queue (PULL mode) as the pull consumer sees it. */
export function tEventQueue(call: (c: TCall) => Promise<Record<string, unknown>>, subAppId: number): PlatformEventQueue {
  return {
    async pull() {
      const res = (await call({ action: 'PullEvents', body: { SubAppId: subAppId } })) as PullEventsResponse;
      return (res.EventSet ?? []).flatMap((e) => (e.EventHandle ? [{ handle: e.EventHandle, hint: hintOf(e) }] : []));
    },
    async confirm(handles) {
      await call({ action: 'ConfirmEvents', body: { EventHandles: handles, SubAppId: subAppId } });
    },
  };
}

const md5Hex = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');

/** PUSH events at POST /v1/callbacks/T: verified (when a SignKey is configured), reduced to task hints. */
export const tCallbackReceiver: CallbackReceiver = {
  env: tEventsEnv,
  create(env) {
    const { PLATFORM_T_EVENTS, PLATFORM_T_EVENTS_SIGN_KEY: signKey } = parseEnv(tEventsEnv, env);
    return (req) => {
      if (PLATFORM_T_EVENTS !== 'push')
        throw new CallbackRefused(403, 'Push events from platform T are not enabled on this gateway (PLATFORM_T_EVENTS)');
      const event = eventObject(req.rawBody) as EventContent & { T?: unknown; Sign?: unknown };
      const hint = hintOf(event);
      if (signKey) {
        const claims = hint ? [hint] : [];
        const t = Number(event.T);
        if (!Number.isInteger(t) || typeof event.Sign !== 'string')
          throw new CallbackRefused(401, 'The event carries no signature (T, Sign)', claims);
        if (!hexDigestsEqual(event.Sign, md5Hex(`${signKey}${t}`)))
          throw new CallbackRefused(401, 'The event signature does not match', claims);
        if (t * 1000 < req.receivedAt) throw new CallbackRefused(401, 'The event signature has expired', claims);
      }
      return hint ? [hint] : [];
    };
  },
};
