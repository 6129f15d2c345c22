/**
 * api/callback-verification.ts through the real app (api/routes/callbacks.ts): signed callbacks that keep failing
 * verification are reported at warn once per run of failures, per platform, and the count starts again after one
 * verifies (issue 19 A.5). The log is the app's own logger, read as the JSON lines it writes.
 */
import { createHmac } from 'node:crypto';
import pino from 'pino';
import { VERIFICATION_FAILURES_BEFORE_WARNING } from '../../../api/callback-verification';
import type { Logger } from '../../../core/logger';
import { useTestApi } from '../../support/test-api';

const SIGN_KEY = 'b-sign-key-for-tests';
/** The URL B signs is the gateway's published one (PUBLIC_BASE_URL). */
const PUBLIC_BASE_URL = 'https://gw.example';
const lines: { level: number; msg: string; platform?: string; consecutiveFailures?: number }[] = [];
const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) }) as unknown as Logger;
const hinted: unknown[] = [];

const app = useTestApi({
  deps: { logger, publicBaseUrl: PUBLIC_BASE_URL, callbackEnv: { PLATFORM_B_CALLBACKS: 'manage', PLATFORM_B_CALLBACK_SIGN_KEY: SIGN_KEY } },
  tasks: {
    async hint(_platform: string, hint: unknown) {
      hinted.push(hint);
      return 'signalled';
    },
  },
});

const EVENT = JSON.stringify({
  eventId: 'evt-1',
  eventType: 'VIDEO_GENERATE_COMPLETE',
  videoGenerateCompleteEvent: { taskId: 'job-1', status: 'SUCCESS' },
});

async function sendB(key: string): Promise<number> {
  const ts = String(Date.now());
  const token = createHmac('sha256', key).update(`POST;${PUBLIC_BASE_URL}/v1/callbacks/B;${EVENT};${ts};acct`).digest('hex');
  const r = await fetch(`${app.api.base}/v1/callbacks/B`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'vod-callback-auth-token': token,
      'vod-callback-auth-timestamp': ts,
      'vod-callback-auth-user': 'acct',
    },
    body: EVENT,
  });
  await r.arrayBuffer();
  return r.status;
}

const warnings = () => lines.filter((l) => l.level === 40 && /keep failing verification/.test(l.msg));

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
