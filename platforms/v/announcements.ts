/**
 * Platform V's push: Ark POSTs the task object to a per-task `callback_url` on each status change (docs/platforms/v.md,
 * "callback_url"). Ark does not sign callbacks, so the URL carries the proof instead: a token that is an HMAC
 * of the task id under the gateway's CALLBACK_SECRET, checked in constant time. Only someone who was handed the
 * URL (Ark) can wake the task — and even then, a callback is only a hint to poll, and a sign that the job's slot
 * on the account is free.
 *
 *   {PUBLIC_BASE_URL}/v1/callbacks/V/{task_id}?token={base64url HMAC-SHA256(secret, "V:" + task_id)}
 *
 * Only a callback that may announce the job's end wakes the task. Ark also calls back for `queued` and
 * `running`; polling for those would cost a poll (and a workflow task) each and tell the client only what the
 * next fallback poll tells anyway, so they are acknowledged and dropped. A body whose status cannot be read
 * still wakes the task: when in doubt, one extra poll.
 */
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../../core/constant-time';
import { z } from 'zod';
import { callbackSchema, parseEnv } from '../../core/config';
import { callbackUrlFor, CallbackRefused, unverifiedClaims, type CallbackReceiver } from '../platform';

export function callbackToken(secret: string, taskId: string): string {
  return createHmac('sha256', secret).update(`V:${taskId}`).digest('base64url');
}

export function callbackUrl(publicBaseUrl: string, secret: string, taskId: string): string {
  return `${callbackUrlFor(publicBaseUrl, 'V', taskId)}?token=${callbackToken(secret, taskId)}`;
}

/** Ark statuses of a job still under way (docs/platforms/v.md#calls): nothing for the task to act on yet. */
const STILL_RUNNING: ReadonlySet<string> = new Set(['queued', 'running']);
/**
 * Ark statuses after which the job runs no more (docs/platforms/v.md#calls; docs/platforms/v.md#callbacks): a job that succeeded, failed, expired
 * unstarted or was cancelled while queued no longer counts towards the account's concurrency.
 */
const FINAL: ReadonlySet<string> = new Set(['succeeded', 'failed', 'expired', 'cancelled']);

/** What V's receiver reads: the secret its per-task tokens are made with. */
const vCallbackEnv = z.object({ CALLBACK_SECRET: callbackSchema.shape.CALLBACK_SECRET });

export const vCallbackReceiver: CallbackReceiver = {
  env: vCallbackEnv,
  create(env) {
    const { CALLBACK_SECRET: secret } = parseEnv(vCallbackEnv, env);
    return (req) => {
      if (!secret) throw new CallbackRefused(403, 'Callbacks for platform V are not enabled on this gateway (CALLBACK_SECRET)');
      const [taskId, ...extra] = req.rest;
      if (!taskId || extra.length > 0)
        throw new CallbackRefused(400, 'A platform V callback URL names one task: /v1/callbacks/V/{task_id}');
      const token = req.query.token ?? '';
      if (!constantTimeEqual(token, callbackToken(secret, taskId))) {
        // Ark's task object names its job (`id`): with the task in the URL, what a refused callback claims.
        const claims = unverifiedClaims(req.rawBody, (body) =>
          typeof body.id === 'string' ? { taskId, upstreamTaskId: body.id } : undefined,
        );
        throw new CallbackRefused(401, 'The callback token does not match its task', claims);
      }
      // The body (Ark's task object) is not believed for the task's outcome: the task polls for that. Its status
      // decides whether a poll is worth it, and a final one frees the job's slot early (UpstreamHint.ended).
      let upstreamTaskId: string | undefined;
      let ended = false;
      try {
        const body = JSON.parse(req.rawBody.toString('utf8')) as { id?: unknown; status?: unknown };
        if (typeof body.status === 'string' && STILL_RUNNING.has(body.status)) return [];
        if (typeof body.id === 'string') upstreamTaskId = body.id;
        ended = typeof body.status === 'string' && FINAL.has(body.status);
      } catch {
        // a malformed body still says "something changed"; the poll will tell what
      }
      return [{ taskId, ...(upstreamTaskId ? { upstreamTaskId, ...(ended ? { ended } : {}) } : {}) }];
    };
  },
};
