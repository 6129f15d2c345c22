/**
 * The live event stream GET /v1/generations/:id/events on the shared stack (issue 21 §6): the task's record on
 * every status or progress change, ending after the final one; heartbeats; a resume with Last-Event-ID; the
 * same ownership as reads. (Two clients on two API processes: test/system/webhooks.test.ts.)
 */
import { sharedStack } from '../support/shared-stack';
import { openEvents } from '../support/sse';
import { TEST_KEYS } from '../support/stack';
import { waitFor } from '../support/wait-for';

const { api, apiUrl } = sharedStack();
const alice = api('alice');
const V_MODEL = 'vendor-video-1-0-pro-250528';
const eventsUrl = (taskId: string) => `${apiUrl}/v1/generations/${taskId}/events`;

async function startTask(prompt: string): Promise<string> {
  const r = await alice.post('/v1/async/videos/generations', { model: V_MODEL, prompt, duration: 5 });
  expect(r.status).toBe(200);
  return r.body.task_id as string;
}

describe('GET /v1/generations/:id/events', () => {
  test('pending → running (with progress) → success, then the stream ends; heartbeats meanwhile', async () => {
    const taskId = await startTask('a glacier calving [sim:duration=3000]');
    const stream = await openEvents(eventsUrl(taskId), TEST_KEYS.alice.secret);
    expect(stream.status).toBe(200);
    await stream.ended;
    const statuses = stream.messages.map((m) => m.data.status);
    expect(statuses[0]).toBe('pending');
    expect(statuses).toContain('running');
    expect(statuses.at(-1)).toBe('success');
    for (const m of stream.messages.filter((x) => x.data.status === 'running')) expect(m.data.progress).toMatch(/^\d{1,3}%$/);
    // Every message is a change: no two consecutive ones alike.
    const ids = stream.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const last = stream.messages.at(-1)!;
    expect(last.data).toMatchObject({ task_id: taskId, status: 'success', data: [{ url: expect.any(String) }] });
    // SSE_HEARTBEAT_MS is 500 ms on this stack and the job took 3 s.
    expect(stream.comments.filter((c) => c.text === 'heartbeat').length).toBeGreaterThan(0);
  });

  test('a reconnect with Last-Event-ID is not sent what it already has, only what follows', async () => {
    const taskId = await startTask('a slow tide [sim:duration=2500]');
    const first = await openEvents(eventsUrl(taskId), TEST_KEYS.alice.secret);
    await waitFor(async () => first.messages.find((m) => m.data.status === 'running'), 20_000);
    first.close();
    const seen = first.messages.at(-1)!;
    const resumed = await openEvents(eventsUrl(taskId), TEST_KEYS.alice.secret, seen.id);
    await resumed.ended;
    expect(resumed.messages.map((m) => m.id)).not.toContain(seen.id);
    expect(resumed.messages.at(-1)!.data.status).toBe('success');

    // After the end, a reconnect naming the final event gets nothing more and ends at once.
    const after = await openEvents(eventsUrl(taskId), TEST_KEYS.alice.secret, resumed.messages.at(-1)!.id);
    await after.ended;
    expect(after.messages).toEqual([]);
  });

  test("another key's task, or an unknown one, is 404 in the error envelope", async () => {
    const taskId = await startTask('a lantern [sim:duration=500]');
    const bob = await fetch(eventsUrl(taskId), {
      headers: { Authorization: `Bearer ${TEST_KEYS.bob.secret}`, Accept: 'text/event-stream' },
    });
    expect(bob.status).toBe(404);
    expect(((await bob.json()) as { error: unknown }).error).toMatchObject({ type: 'not_found_error' });
    const none = await fetch(eventsUrl('task_nope'), { headers: { Authorization: `Bearer ${TEST_KEYS.alice.secret}` } });
    expect(none.status).toBe(404);
    const anonymous = await fetch(eventsUrl(taskId));
    expect(anonymous.status).toBe(401);
  });
});
