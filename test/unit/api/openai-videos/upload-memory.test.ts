/**
 * api/openai-videos/upload-memory.ts: what uploads in progress may hold — the process's budget, one key at most half
 * of it — reserved for what a form declares, grown as bytes arrive past that, given back once. Over HTTP against the
 * real stack: test/e2e/openai-videos.test.ts.
 */
import { refusal } from '../../../support/refusal';
import { UploadMemory } from '../../../../api/openai-videos/upload-memory';

const MiB = 1024 * 1024;

test("the declared size is reserved at once; past the budget 503 uploads_busy, past a key's half 429 uploads_per_key, each with Retry-After", () => {
  const memory = new UploadMemory(40 * MiB);
  const a = memory.reserve('a', 15 * MiB);
  expect(memory.holding()).toBe(15 * MiB);
  const own = refusal(() => memory.reserve('a', 6 * MiB));
  expect([own.status, own.type, own.opts.code, own.opts.param, own.opts.headers?.['Retry-After']]).toEqual([
    429,
    'rate_limit_error',
    'uploads_per_key',
    'input_reference',
    '10',
  ]);
  memory.reserve('b', 15 * MiB);
  const busy = refusal(() => memory.reserve('c', 11 * MiB));
  expect([busy.status, busy.type, busy.opts.code]).toEqual([503, 'service_unavailable_error', 'uploads_busy']);
  // A refused reservation takes nothing.
  expect(memory.holding()).toBe(30 * MiB);
  a.release();
  a.release();
  expect([memory.holding(), memory.holding('a')]).toEqual([15 * MiB, 0]);
  memory.reserve('c', 11 * MiB);
});

test('bytes past the declared size (a chunked body, or one that says less than it sends) take more as they arrive, and are refused past a bound', () => {
  const memory = new UploadMemory(10 * MiB);
  const r = memory.reserve('a', 1 * MiB);
  r.grow(512 * 1024);
  r.grow(512 * 1024);
  expect(memory.holding('a')).toBe(1 * MiB);
  r.grow(2 * MiB);
  expect(memory.holding('a')).toBe(3 * MiB);
  expect(refusal(() => r.grow(3 * MiB)).opts.code).toBe('uploads_per_key');
  r.release();
  expect(memory.holding()).toBe(0);
  // Unknown length: every byte is counted as it comes.
  const chunked = memory.reserve('b', 0);
  chunked.grow(4 * MiB);
  expect(memory.holding('b')).toBe(4 * MiB);
});

test('0 is unbounded', () => {
  const memory = new UploadMemory(0);
  for (let i = 0; i < 10; i++) memory.reserve('a', 100 * MiB);
  expect(memory.holding()).toBe(1000 * MiB);
});
