/**
 * api/event-stream-slots.ts: the bounds on open event streams — per key (KEY_MAX_STREAMS, or the key's own
 * max_streams) and per process (API_MAX_STREAMS) — with the refusals a client sees (429 for the key's own bound,
 * 503 for the process's) and slots given back once, however often a stream's end is reported. Over HTTP against the
 * real stack: test/e2e/events.test.ts.
 */
import { refusal } from '../../support/refusal';
import type { ApiKey } from '../../../keys/api-keys';
import { EventStreamSlots } from '../../../api/event-stream-slots';

const key = (id: string, maxStreams?: number): ApiKey => ({
  id,
  digest: Buffer.alloc(32),
  ...(maxStreams === undefined ? {} : { maxStreams }),
});

test("a key's own bound: its streams up to KEY_MAX_STREAMS, then 429 too_many_streams with Retry-After; a slot given back is usable again", () => {
  const slots = new EventStreamSlots({ perKey: 2, total: 100 });
  const alice = key('alice');
  const releases = [slots.acquire(alice), slots.acquire(alice)];
  const err = refusal(() => slots.acquire(alice));
  expect([err.status, err.type, err.opts.code, err.opts.headers?.['Retry-After']]).toEqual([
    429,
    'rate_limit_error',
    'too_many_streams',
    '5',
  ]);
  // Another key is not held back by alice's streams.
  slots.acquire(key('bob'));
  releases[0]!();
  releases[0]!();
  expect(slots.count('alice')).toBe(1);
  slots.acquire(alice);
  expect([slots.count('alice'), slots.count()]).toEqual([2, 3]);
});

test("a key's max_streams overrides the default, both ways; 0 is unbounded", () => {
  const slots = new EventStreamSlots({ perKey: 2, total: 0 });
  const wide = key('wide', 5);
  for (let i = 0; i < 5; i++) slots.acquire(wide);
  expect(refusal(() => slots.acquire(wide)).opts.code).toBe('too_many_streams');
  const narrow = key('narrow', 1);
  slots.acquire(narrow);
  expect(refusal(() => slots.acquire(narrow)).status).toBe(429);
  const unbounded = key('unbounded', 0);
  for (let i = 0; i < 50; i++) slots.acquire(unbounded);
  expect(slots.count('unbounded')).toBe(50);
});

test('the process bound: every key together up to API_MAX_STREAMS, then 503 streams_at_capacity; the key bound is told first', () => {
  const slots = new EventStreamSlots({ perKey: 2, total: 3 });
  const [a, b] = [key('a'), key('b')];
  const held = [slots.acquire(a), slots.acquire(a), slots.acquire(b)];
  const full = refusal(() => slots.acquire(b));
  expect([full.status, full.type, full.opts.code, full.opts.headers?.['Retry-After']]).toEqual([
    503,
    'service_unavailable_error',
    'streams_at_capacity',
    '5',
  ]);
  // `a` is at its own bound: told so (429), whatever the process has.
  expect(refusal(() => slots.acquire(a)).status).toBe(429);
  held[2]!();
  slots.acquire(b);
  expect(slots.count()).toBe(3);
});
