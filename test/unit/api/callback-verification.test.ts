/**
 * api/callback-verification.ts through the real app (api/routes/callbacks.ts): the platform's own signed callbacks
 * (naming a job of ours) that keep failing verification are reported at warn once per run of failures, per
 * platform, and the count starts again after one verifies; refused callbacks naming no job of ours are forged and
 * never warned about, however many. The log is the app's own logger, read as the JSON lines it writes; whether a
 * job is ours is the stand-in for Temporal's answer (the real one: test/system/callbacks.test.ts).
 */
import { createHmac } from 'node:crypto';
import pino from 'pino';
import { loadCallbackReceivers } from '../../../api/api-config';
import { VERIFICATION_FAILURES_BEFORE_WARNING } from '../../../api/callback-verification';
import type { Logger } from '../../../core/logger';
import { useTestApi } from '../../support/test-api';

const SIGN_KEY = 'b-sign-key-for-tests';
/** The URL B signs is the gateway's published one (PUBLIC_BASE_URL). */
const PUBLIC_BASE_URL = 'https://gw.example';
const lines: { level: number; msg: string; platform?: string; consecutiveFailures?: number }[] = [];
const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) }) as unknown as Logger;
const hinted: unknown[] = [];

const app = useTestApi({
  deps: {
    logger,
    publicBaseUrl: PUBLIC_BASE_URL,
    callbackReceivers: loadCallbackReceivers({
      PLATFORM_B_CALLBACKS: 'manage',
      PLATFORM_B_CALLBACK_SIGN_KEY: SIGN_KEY,
      CALLBACK_SECRET: 'callback-secret-for-tests-0123456789abcdef',
    }),
    // Our jobs: job-1 on B, cgt-1 (task_1) on V.
    callbackJobCheck: async (platform, hint) =>
      (platform === 'B' && hint.upstreamTaskId === 'job-1') ||
      (platform === 'V' && hint.taskId === 'task_1' && hint.upstreamTaskId === 'cgt-1'),
  },
  tasks: {
    async hint(_platform: string, hint: unknown) {
      hinted.push(hint);
      return 'signalled';
    },
  },
});

const eventOf = (job: string) =>
  JSON.stringify({
    eventId: 'evt-1',
    eventType: 'VIDEO_GENERATE_COMPLETE',
    videoGenerateCompleteEvent: { taskId: job, status: 'SUCCESS' },
  });

async function sendB(key: string, job = 'job-1'): Promise<number> {
  const ts = String(Date.now());
  const event = eventOf(job);
  const token = createHmac('sha256', key).update(`POST;${PUBLIC_BASE_URL}/v1/callbacks/B;${event};${ts};acct`).digest('hex');
  const r = await fetch(`${app.api.base}/v1/callbacks/B`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'vod-callback-auth-token': token,
      'vod-callback-auth-timestamp': ts,
      'vod-callback-auth-user': 'acct',
    },
    body: event,
  });
  await r.arrayBuffer();
  return r.status;
}

const warnings = () => lines.filter((l) => l.level === 40 && /keep failing verification/.test(l.msg));

/** A V callback with a wrong token, for `task` and claiming `job`. */
async function sendForgedV(task: string, job: string): Promise<number> {
  const r = await fetch(`${app.api.base}/v1/callbacks/V/${task}?token=forged`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: job, status: 'succeeded' }),
  });
  await r.arrayBuffer();
  return r.status;
}

test('refused callbacks naming no job of ours (an unknown job, a task without its job id, no body) are forged: never a warning, nor a warn line each', async () => {
  const before = lines.length;
  for (let i = 0; i < VERIFICATION_FAILURES_BEFORE_WARNING * 4; i++) {
    expect(await sendB('a-guessed-key', `job-forged-${i}`)).toBe(401);
    // Knowing a task id (a client knows its own) is not enough: its job id is never shown.
    expect(await sendForgedV('task_1', 'cgt-guessed')).toBe(401);
    expect(await sendForgedV(`task_unknown_${i}`, 'cgt-1')).toBe(401);
  }
  const r = await fetch(`${app.api.base}/v1/callbacks/V/task_1?token=forged`, { method: 'POST' });
  expect(r.status).toBe(401);
  const added = lines.slice(before);
  expect(warnings()).toHaveLength(0);
  expect(added.filter((l) => l.level >= 40)).toEqual([]);
  expect(added.filter((l) => /names no job of ours/.test(l.msg)).length).toBeGreaterThan(0);
});

test('repeated signature failures: one warn line naming the platform; polling carries the tasks; a verified callback starts the count again', async () => {
  const failures = VERIFICATION_FAILURES_BEFORE_WARNING * 3;
  for (let i = 0; i < failures; i++) expect(await sendB('a-rotated-key')).toBe(401);
  expect(warnings()).toHaveLength(1);
  expect(warnings()[0]).toMatchObject({
    platform: 'B',
    consecutiveFailures: VERIFICATION_FAILURES_BEFORE_WARNING,
    msg: expect.stringContaining('carried by polling'),
  });
  // The line says nothing of the key.
  expect(JSON.stringify(lines)).not.toContain(SIGN_KEY);

  // One genuine event verifies (and is handed on); the next run of failures is reported again, once.
  expect(await sendB(SIGN_KEY)).toBe(200);
  expect(hinted).toEqual([{ upstreamTaskId: 'job-1' }]);
  for (let i = 0; i < VERIFICATION_FAILURES_BEFORE_WARNING - 1; i++) expect(await sendB('a-rotated-key')).toBe(401);
  expect(warnings()).toHaveLength(1);
  expect(await sendB('a-rotated-key')).toBe(401);
  expect(warnings()).toHaveLength(2);
});
