/** The generation workflow's own backoff between polls whose budget ran out (workflows/generation/policies.ts). */
import { pollBackoffMs } from '../../../../workflows/generation/policies';

test('2 s after the first failed poll, doubling, at most 30 s', () => {
  expect([1, 2, 3, 4, 5, 6, 10].map(pollBackoffMs)).toEqual([2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
});
