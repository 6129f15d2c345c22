/**
 * Per-key limits on a pinned clock, so the outcome never depends on how fast requests land: the rate (points per
 * second per key, api/key-limits.ts) and the in-flight cap (tasks/inflight.ts: checked and taken with no await
 * between).
 */
import { parseApiKeysEnv } from '../../../keys/api-keys';
import { ApiError } from '../../../api/api-error';
import { KeyLimits } from '../../../api/key-limits';
import { InflightLimits } from '../../../tasks/inflight';
import { TaskRefused } from '../../../tasks/refusal';

const [alice, bob] = parseApiKeysEnv('alice:sk-alice-0123456789abcdef,bob:sk-bob-0123456789abcdef0');

beforeEach(() => {
  jest.useFakeTimers({ now: new Date('2026-11-22T10:00:00Z') });
});

afterEach(() => {
  jest.useRealTimers();
});

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return `${err.status} ${err.opts.code} retry-after=${err.opts.headers?.['Retry-After']}`;
    if (err instanceof TaskRefused) return `${err.kind} ${err.details.code} retry-after=${err.details.retryAfterSeconds}`;
    throw err;
  }
}

test('a key gets its rate per second, then 429 with Retry-After until the window passes; keys are independent', async () => {
  const limits = new KeyLimits({ rps: 4 });
  const first = [];
  for (let i = 0; i < 6; i++) first.push(await outcome(limits.consumeRate(alice!)));
  expect(first).toEqual(['ok', 'ok', 'ok', 'ok', '429 rate_limit_exceeded retry-after=1', '429 rate_limit_exceeded retry-after=1']);
  expect(await outcome(limits.consumeRate(bob!))).toBe('ok');
  jest.advanceTimersByTime(1_000);
  expect(await outcome(limits.consumeRate(alice!))).toBe('ok');
});

test('a per-key rate overrides the default; 0 means unlimited', async () => {
  const limits = new KeyLimits({ rps: 0 });
  for (let i = 0; i < 100; i++) expect(await outcome(limits.consumeRate(alice!))).toBe('ok');
  const strict = { ...alice!, rateLimitRps: 1 };
  expect([await outcome(limits.consumeRate(strict)), await outcome(limits.consumeRate(strict))]).toEqual([
    'ok',
    '429 rate_limit_exceeded retry-after=1',
  ]);
});

test('the in-flight cap counts running tasks and the ones just reserved; a released slot is free again', async () => {
  const limits = new InflightLimits(2, async () => 1);
  const release = await limits.take(alice!);
  expect(await outcome(limits.take(alice!))).toBe('too_many too_many_tasks_in_flight retry-after=5');
  release();
  release(); // a slot is given back once, however often its holder says so
  expect(await outcome(limits.take(alice!))).toBe('ok');
  expect(await outcome(limits.take(alice!))).toBe('too_many too_many_tasks_in_flight retry-after=5');
});
