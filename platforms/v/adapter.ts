/**
 * Platform V adapter: Ark's content-generation task API (docs/platforms/v.md#calls). The body is built in
 * request-body.ts, replies read in replies.ts, lost answers recovered in lost-answer.ts.
 */
import type { AdapterDeps, PlatformAdapter, PlatformJobRecord, PlatformRecords } from '../platform';
import { final, lostJob, retryable, UpstreamError } from '../upstream-error';
import { ARK_TASKS_PATH as TASKS, type ArkTask, type ArkTaskList } from './wire-types';
import { callbackUrl } from './announcements';
import { markerSeed, toVCreateBody } from './request-body';
import { classifyVError, fromVTask } from './replies';
import type { VVideoRequest } from './rules';
import { findJobBySeed } from './lost-answer';

/** What the adapter needs to reach the platform (from platforms/v/config.ts). */
export interface PlatformVSettings {
  baseUrl: string;
  apiKey: string;
  /** Push: each job gets a callback URL under this base, with a token under `callbackSecret` (announcements.ts). */
  callbacks?: { publicBaseUrl: string; secret: string };
}

/** Tasks per page of the list (Ark's page_size; the simulator takes up to 500). */
const RECORDS_PAGE = 100;

/** A task object as reconciliation reads it: billed when it succeeded, its usage the tokens Ark reports. */
function jobRecordOf(t: ArkTask): PlatformJobRecord {
  const tokens = t.usage?.completion_tokens;
  return {
    upstreamTaskId: t.id,
    createdAt: (t.created_at ?? 0) * 1000,
    ...(t.model ? { model: t.model } : {}),
    status: t.status,
    billed: t.status === 'succeeded',
    usage: typeof tokens === 'number' ? { tokens } : {},
  };
}

/**
 * Reconciliation (docs/platforms/v.md#reconciliation): Ark's task list, every task with its status and usage, and a
 * task by id (null once Ark no longer has it).
 */
function vRecords(call: (method: 'GET', path: string) => Promise<unknown>): PlatformRecords {
  return {
    async jobs(from, to, pace) {
      const out: PlatformJobRecord[] = [];
      // Ark keeps tasks listable for 7 days and does not document the list's order: every page is read, and the
      // window applied here.
      for (let page = 1; ; page++) {
        await pace();
        const list = ((await call('GET', `${TASKS}?page_num=${page}&page_size=${RECORDS_PAGE}`)) ?? {}) as ArkTaskList;
        const items = list.items ?? [];
        for (const t of items) {
          const record = jobRecordOf(t);
          if (record.createdAt >= from && record.createdAt < to) out.push(record);
        }
        if (items.length < RECORDS_PAGE) return out;
      }
    },
    async job(id, pace) {
      await pace();
      try {
        return jobRecordOf((await call('GET', `${TASKS}/${encodeURIComponent(id)}`)) as ArkTask);
      } catch (err) {
        if (err instanceof UpstreamError && err.opts.httpStatus === 404 && err.opts.reason !== 'upstream_auth') return null;
        throw err;
      }
    },
  };
}

export function createPlatformV(config: PlatformVSettings, { http, now = Date.now }: AdapterDeps): PlatformAdapter {
  const base = config.baseUrl.replace(/\/$/, '');
  const headers = { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' };

  async function call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    const res = await http.send(method, `${base}${path}`, { headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 200 && res.status < 300) return res.body;
    throw classifyVError(res);
  }

  return {
    // Ark keys carry no public id; the API host tells an operator which account (region, BytePlus or Volcengine) to open.
    account: new URL(config.baseUrl).host,
    async submit(entry, generation, { dedupKey, deadlineAt, taskId }) {
      if (generation.kind !== 'video') throw final('invalid_request', 'Platform V only generates video');
      // No idempotency key on Ark: a lost answer is recovered by findSubmitted, through the seed marker.
      const body = toVCreateBody(entry, generation as VVideoRequest, { dedupKey, deadlineAt, now: now() });
      if (config.callbacks) body.callback_url = callbackUrl(config.callbacks.publicBaseUrl, config.callbacks.secret, taskId);
      const created = (await call('POST', TASKS, body)) as { id?: string } | undefined;
      if (!created?.id) throw retryable('Platform V accepted the job but returned no id');
      return { upstreamTaskId: created.id };
    },
    async findSubmitted(entry, _request, { dedupKey, since }) {
      const model = entry.upstream.model ?? entry.id;
      const id = await findJobBySeed(
        { list: async (q) => ((await call('GET', `${TASKS}?${q}`)) ?? {}) as ArkTaskList },
        model,
        markerSeed(dedupKey),
        since,
      );
      return id === undefined ? undefined : { upstreamTaskId: id };
    },
    async poll(_kind, id) {
      try {
        return fromVTask((await call('GET', `${TASKS}/${encodeURIComponent(id)}`)) as ArkTask);
      } catch (err) {
        // A 404 on a task we were given is the task: unknown, or older than the 7 days Ark keeps tasks
        // queryable (docs/platforms/v.md). The code is not documented [GUESS: ResourceNotFound]; a 404 naming the
        // model or endpoint is the account's problem, already classified as upstream_auth.
        if (err instanceof UpstreamError && err.opts.httpStatus === 404 && err.opts.reason !== 'upstream_auth') throw lostJob('V', id, err);
        throw err;
      }
    },
    records: vRecords(call),
    async cancel(_kind, id) {
      // Only a queued task can be cancelled (docs/platforms/v.md#calls); a running one finishes and is billed. The
      // same DELETE of a finished task deletes its record instead, so the task is read first: only a queued one
      // is sent the DELETE, and its answer is the platform's acceptance. A refusal (the task started meanwhile)
      // is a final error, which the activities' adapter decorator reads as "not cancelled".
      const path = `${TASKS}/${encodeURIComponent(id)}`;
      const task = (await call('GET', path)) as ArkTask | undefined;
      if (task?.status !== 'queued') return false;
      await call('DELETE', path);
      return true;
    },
  };
}
