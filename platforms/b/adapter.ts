/**
 * Platform B adapter: Baidu AI Cloud VOD's AIGC API (docs/platforms/b.md). Bodies are built in
 * request-body.ts, task details read in replies.ts, errors classified in replies.ts, lost answers recovered in
 * lost-answer.ts; this file signs and sends.
 *
 *   submit         POST /v2/aigc/{text_to_video|image_to_video|image} → {"taskId": "tsk-…"}
 *   findSubmitted  GET /v2/tasks?beginTime=… (+ GET /v2/tasks/{id} per candidate) — B has no idempotency key
 *   poll           GET /v2/tasks/{taskId}
 *   dayTotals      GET https://billing.baidubce.com/v1/bill/resource/month (day-totals.ts): the day's VOD bill, for reconciliation
 *   (no cancel)    B has no cancel endpoint (docs/platforms/b.md#cancel): the activities log that and stop polling
 *
 * Every `/v2` call is signed with bce-auth-v1 (AK/SK, host;x-bce-date). With PLATFORM_B_API_KEY, text-to-video
 * creates go to `/v3/aigc/text_to_video` with `Authorization: Bearer` instead — the only v3 twin of a call we make
 * that Baidu's official API-key page lists ("v3对应接口请求参数和v2接口对应请求参数相同" [OFF Mmmleact0]);
 * image-to-video, images, task queries and the task list stay on v2 ("v2接口依旧只支持AKSK鉴权").
 */
import { randomUUID } from 'node:crypto';
import type { HttpResponse } from '../http';
import type { AdapterDeps, PlatformAdapter } from '../platform';
import { lostJob, retryable } from '../upstream-error';
import { bceAuthorization, bceTimestamp, uriEncode, type BceCredentials } from './signing';
import { callbackConfig } from './announcements';
import { classifyBError, fromBTaskDetail, isUnknownTask } from './replies';
import { JobClaims } from './job-claims';
import { chooseJob, findTasksWithBody, type TaskLookup } from './lost-answer';
import { toBCreate } from './request-body';
import type { BCreate } from './wire-types';
import { bDayTotals, BILLING_ENDPOINT } from './day-totals';

/** What the adapter needs to reach the platform (from platforms/b/config.ts). */
export interface PlatformBSettings extends BceCredentials {
  /** Scheme and host (and port), e.g. https://vod.bj.baidubce.com. */
  endpoint: string;
  /** `bce-v3/ALTAK-…`: Bearer on /v3/aigc/text_to_video. */
  apiKey?: string;
  /** Baidu AI Cloud billing's host, for reconciliation's day totals (day-totals.ts); default https://billing.baidubce.com. */
  billingEndpoint?: string;
  /** PLATFORM_B_CALLBACKS=manage: the account's event callback the worker sets at start (announcements.ts). */
  callbacks?: { url: string; signKey?: string; /** PLATFORM_B_CALLBACK_SWITCH. */ videoEventSwitch?: string };
}

type Query = ReadonlyArray<readonly [string, string]>;

interface Call {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  query?: Query;
  body?: unknown;
  /** Bearer with the API key (v3) instead of bce-auth-v1. */
  bearer?: string;
}

/** Points the account's VOD callback at the gateway (docs/platforms/b.md#callbacks; idempotent, at worker start). */
export async function configureBCallbacks(settings: PlatformBSettings, deps: AdapterDeps): Promise<void> {
  if (!settings.callbacks) return;
  await bSender(
    settings,
    deps,
  )({
    method: 'PUT',
    path: '/v2/callback',
    body: callbackConfig(settings.callbacks.url, settings.callbacks.signKey, settings.callbacks.videoEventSwitch),
  });
}

/** Sends one call signed with bce-auth-v1 (or the API key's Bearer) and returns the 2xx answer, or throws. */
function bSender(settings: PlatformBSettings, { http, now = Date.now }: AdapterDeps): (call: Call) => Promise<HttpResponse> {
  const base = new URL(settings.endpoint);
  /** A path prefix in the endpoint (a proxy) is part of the path sent, so of the path signed. */
  const prefix = base.pathname.replace(/\/+$/, '');

  return async function send({ method, path: apiPath, query = [], body, bearer }: Call): Promise<HttpResponse> {
    const path = `${prefix}${apiPath}`;
    const qs = query.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&');
    // Sent RFC 3986-encoded, signed decoded: the platform decodes what it receives before canonicalising it.
    const url = new URL(`${base.origin}${uriEncode(path, true)}${qs ? `?${qs}` : ''}`);
    // The Host we sign must be the Host sent: url.host carries the port when it is not the scheme's default,
    // exactly as the HTTP client would write it; setting it ourselves removes any doubt.
    const headers: Record<string, string> = { host: url.host, 'x-bce-request-id': randomUUID() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (bearer) {
      headers.authorization = `Bearer ${bearer}`;
    } else {
      const timestamp = bceTimestamp(now());
      headers['x-bce-date'] = timestamp;
      headers.authorization = bceAuthorization({ method, path, query, headers }, settings, { timestamp });
    }
    const res = await http.send(method, url.toString(), { headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 200 && res.status < 300) return res;
    throw classifyBError(res);
  };
}

/**
 * Read-only account calls beyond the worker's needs, for the conformance run (platforms/b/conformance.ts): the
 * adapter B's worker builds carries them too, so the run reads the account with the worker's own signing.
 */
export interface BAccountReads {
  /** GET /v2/callback: the account's CallbackConfig as B shows it (which switch names it has). */
  readCallbackConfig(): Promise<Record<string, unknown>>;
}

/** The task list and a task's detail, as lost-answer.ts reads them; a task that vanished between the two is none. */
function taskReads(send: ReturnType<typeof bSender>, getTask: (id: string) => Promise<unknown>): TaskLookup {
  return {
    list: async (query) => (await send({ method: 'GET', path: '/v2/tasks', query })).body,
    detail: async (id) => {
      try {
        return await getTask(id);
      } catch (err) {
        // A task that vanished between the list and its detail is not ours to adopt.
        if (isUnknownTask(err)) return undefined;
        throw err;
      }
    },
  };
}

export function createPlatformB(settings: PlatformBSettings, deps: AdapterDeps): PlatformAdapter & BAccountReads {
  const now = deps.now ?? Date.now;
  const claims = new JobClaims(now);
  const send = bSender(settings, deps);
  // The bill is the billing service's, at its own host, signed with the same AK/SK (day-totals.ts).
  const billing = bSender({ ...settings, endpoint: settings.billingEndpoint ?? BILLING_ENDPOINT }, deps);

  const getTask = async (id: string) => (await send({ method: 'GET', path: `/v2/tasks/${id}` })).body;

  /** Text-to-video may go to its v3 twin with the API key; everything else is v2 with AK/SK. */
  const createCall = (create: BCreate): Call =>
    create.endpoint === 'text_to_video' && settings.apiKey
      ? { method: 'POST', path: '/v3/aigc/text_to_video', body: create.body, bearer: settings.apiKey }
      : { method: 'POST', path: create.path, body: create.body };

  return {
    // The endpoint (region) and the first characters of the AccessKey id: enough to pick the account, never its secret.
    account: `${new URL(settings.endpoint).host} AK ${settings.accessKeyId.slice(0, 6)}…`,
    async submit(entry, request, { dedupKey }) {
      const res = await send(createCall(toBCreate(entry, request, { dedupKey })));
      const taskId = (res.body as { taskId?: unknown } | undefined)?.taskId;
      // A 2xx without a task id may still have created the job: retrying lets findSubmitted find it.
      if (typeof taskId !== 'string' || taskId === '')
        throw retryable(`Platform B accepted the create but answered no taskId: ${res.text.slice(0, 200)}`, 'MALFORMED_REPLY');
      claims.claim(taskId, dedupKey);
      return { upstreamTaskId: taskId };
    },

    async findSubmitted(entry, request, { dedupKey, since }) {
      const { body } = toBCreate(entry, request, { dedupKey });
      const matches = await findTasksWithBody(taskReads(send, getTask), body, since);
      const id = chooseJob(matches, dedupKey, claims);
      if (id === undefined) return undefined;
      claims.claim(id, dedupKey);
      return { upstreamTaskId: id };
    },

    // Reconciliation by day totals: B lists tasks without usage or billing; its bill says what the day cost.
    dayTotals: bDayTotals(async (path, query) => (await billing({ method: 'GET', path, query })).body),

    async readCallbackConfig() {
      return ((await send({ method: 'GET', path: '/v2/callback' })).body ?? {}) as Record<string, unknown>;
    },

    async poll(_kind, id) {
      try {
        return fromBTaskDetail(await getTask(id));
      } catch (err) {
        if (isUnknownTask(err)) throw lostJob('B', id, err);
        throw err;
      }
    },
  };
}
