/**
 * Comparing a secret the caller sent (a signature, a token) with the one we computed, in time that does not
 * depend on where they differ, so the comparison leaks nothing of the expected value.
 */
import { timingSafeEqual } from 'node:crypto';

export function constantTimeEqual(given: string, expected: string): boolean {
  const x = Buffer.from(given, 'utf8');
  const y = Buffer.from(expected, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The same for hex digests, whichever letter case the sender used. */
export const hexDigestsEqual = (given: string, expected: string): boolean => constantTimeEqual(given.toLowerCase(), expected.toLowerCase());
