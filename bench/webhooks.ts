/**
 * Part `webhooks`: how soon a client learns that its task succeeded, three ways side by side in one
 * run on one stack — its webhook arriving at a receiver, its event stream (GET /v1/generations/:id/events) sending
 * the final record, and a client polling GET /v1/generations/:id every second — with 1 and with 200 tasks in
 * flight. Each delay is measured from the task's success: the moment its final record became readable (the event time
 * of the memo write that recorded `success`; from then on a GET reads `success`), to the moment the receiver, the
 * stream reader or the poller had it (all on this machine's clock). Not the workflow's close, which may come later: a
 * workflow may take steps after the task's success (a settlement the poll could not make). Goal: webhook p50 ≤ 300 ms
 * after success.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startReceiver, type Receiver } from '../test/support/receiver';
import { openEvents } from '../test/support/sse';
import { freePort, TEST_KEYS } from '../test/support/stack';
import { temporalClient } from '../test/support/temporal';
import { AUTH, apiUrl, benchStack, percentile, round, sleep, VIDEO_MODEL } from './support';

const IN_FLIGHT = [1, 200];
const JOB_MS = 5_000;

interface Arrivals {
  webhook: number[];
  sse: number[];
  poll1s: number[];
}

/**
 * From GET .../deliveries: events that needed more than one attempt and the first errors they met, and where a
 * delivery's time goes — from the task's success to its first attempt's start, and that attempt's own duration.
 */
async function deliveryFacts(
  base: string,
  ids: string[],
  succeededAt: Map<string, number>,
): Promise<{ count: number; errors: string[]; startLag: number[]; attemptMs: number[] }> {
  const errors = new Set<string>();
  const out = { count: 0, errors: [] as string[], startLag: [] as number[], attemptMs: [] as number[] };
  for (const id of ids) {
    const r = await fetch(`${base}/v1/generations/${id}/deliveries`, { headers: AUTH });
    const events = (
      (await r.json()) as { data: { attempt_count: number; attempts: { at: string; duration_ms: number; error?: string }[] }[] }
    ).data;
    for (const e of events) {
      const first = e.attempts[0];
      if (first) {
        out.startLag.push(Date.parse(first.at) - succeededAt.get(id)!);
        out.attemptMs.push(first.duration_ms);
      }
      if (e.attempt_count <= 1) continue;
      out.count += 1;
      if (first?.error) errors.add(first.error.slice(0, 80));
    }
  }
  return { ...out, errors: [...errors].slice(0, 3) };
}

/** When the task's final record became readable: its memo's `success` write (the close, if none is found). */
async function successAt(client: Client, taskId: string): Promise<number> {
  const handle = client.workflow.getHandle(taskId);
  const events = (await handle.fetchHistory()).events ?? [];
  const isSuccess = (e: temporal.api.history.v1.IHistoryEvent) => {
    const status = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.status?.data;
    return status !== undefined && status !== null && Buffer.from(status).toString('utf8') === '"success"';
  };
  const written = events.find(isSuccess)?.eventTime;
  if (written) return Number(written.seconds ?? 0) * 1000 + Math.floor((written.nanos ?? 0) / 1e6);
  return (await handle.describe()).closeTime!.getTime();
}

/** Polls once a second until the task reads success; resolves with the time it first did. */
async function pollUntilSuccess(base: string, taskId: string): Promise<number> {
  for (;;) {
    const r = await fetch(`${base}/v1/generations/${taskId}`, { headers: AUTH });
    if (((await r.json()) as { status?: string }).status === 'success') return Date.now();
    await sleep(1_000);
  }
}

async function oneRound(
  base: string,
  client: Client,
  receiver: Receiver,
  n: number,
): Promise<Arrivals & { retried: Awaited<ReturnType<typeof deliveryFacts>> }> {
  const ids = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const r = await fetch(`${base}/v1/async/videos/generations`, {
        method: 'POST',
        headers: AUTH,
        body: JSON.stringify({
          model: VIDEO_MODEL,
          prompt: `bench webhooks ${n}-${i} [sim:duration=${JOB_MS}]`,
          duration: 5,
          webhook_url: `${receiver.url}/bench`,
        }),
      });
      return ((await r.json()) as { task_id: string }).task_id;
    }),
  );
  const streams = await Promise.all(ids.map((id) => openEvents(`${base}/v1/generations/${id}/events`, TEST_KEYS.alice.secret)));
  const polled = await Promise.all(ids.map((id) => pollUntilSuccess(base, id)));
  await Promise.all(streams.map((s) => s.ended));
  const deadline = Date.now() + 60_000;
  while (ids.some((id) => !receiver.got.some((g) => g.body?.data?.task_id === id)) && Date.now() < deadline) await sleep(100);
  const out: Arrivals = { webhook: [], sse: [], poll1s: [] };
  const succeededAt = new Map<string, number>();
  for (const id of ids) succeededAt.set(id, await successAt(client, id));
  const again = await deliveryFacts(base, ids, succeededAt);
  for (const [i, id] of ids.entries()) {
    const succeeded = succeededAt.get(id)!;
    const hook = receiver.got.find((g) => g.body?.data?.task_id === id);
    if (hook) out.webhook.push(hook.at - succeeded);
    const final = streams[i]!.messages.find((m) => m.data?.status === 'success');
    if (final) out.sse.push(final.at - succeeded);
    out.poll1s.push(polled[i]! - succeeded);
  }
  return { ...out, retried: again };
}

export async function runWebhookDelay(): Promise<{ rows: Record<string, unknown>[]; notes: string[] }> {
  const receiverPort = await freePort();
  const receiver = await startReceiver('/hooks', receiverPort);
  const stack = await benchStack('webhooks', {
    simJobDurationMs: JOB_MS,
    env: { WEBHOOK_ALLOW_PRIVATE_ORIGINS: `http://127.0.0.1:${receiverPort}`, POLL_FIRST_DELAY_MS: '3000', POLL_INTERVAL_VIDEO_MS: '5000' },
  });
  const { client, close } = await temporalClient(stack.temporalAddress);
  const rows: Record<string, unknown>[] = [];
  const notes: string[] = [];
  try {
    for (const n of IN_FLIGHT) {
      receiver.got.length = 0;
      const { retried: again, ...a } = await oneRound(apiUrl(stack), client, receiver, n);
      notes.push(
        `${n} in flight: ${again.count} webhook events needed more than one attempt${again.errors.length ? ` (first errors: ${again.errors.join(' | ')})` : ''}; ` +
          `first attempt started p50 ${round(percentile(again.startLag, 50), 0)} ms / p99 ${round(percentile(again.startLag, 99), 0)} ms after the success, ` +
          `took p50 ${round(percentile(again.attemptMs, 50), 0)} ms / p99 ${round(percentile(again.attemptMs, 99), 0)} ms`,
      );
      for (const [how, samples] of Object.entries(a) as [keyof Arrivals, number[]][]) {
        rows.push({
          in_flight: n,
          how,
          tasks: samples.length,
          p50_ms: round(percentile(samples, 50), 0),
          p99_ms: round(percentile(samples, 99), 0),
          max_ms: Math.max(...samples),
        });
      }
    }
  } finally {
    await close();
    await stack.stop();
    await receiver.close();
  }
  return {
    rows,
    notes: [
      "delay = when the client had the final record − when the task's memo recorded success",
      `sim jobs of ${JOB_MS / 1000} s, production polling (first poll 3 s, then 5 s), push off`,
      'webhook: a local receiver answering 200 at once; sse: one stream per task; poll1s: GET every second per task',
      ...notes,
    ],
  };
}
