/**
 * A task's share of Temporal's task queues (tasks/task-queue-share.ts): its fairness key is its API key's
 * id, weighted like the key's share of platform slots, and an id past Temporal's 64-byte limit for a fairness key is
 * replaced by its digest, so a long id never fails a task's start.
 */
import { taskQueueShare } from '../../../tasks/task-queue-share';

test("a key's id is its fairness key, weighted by the key's weight (1 when the key has none)", () => {
  expect(taskQueueShare('key_alice', 3)).toEqual({ fairnessKey: 'key_alice', fairnessWeight: 3 });
  expect(taskQueueShare('key_bob', undefined)).toEqual({ fairnessKey: 'key_bob', fairnessWeight: 1 });
});

test('an id over 64 bytes becomes a digest of 64 characters, the same for the same id and different for another', () => {
  const long = 'k'.repeat(40) + 'é'.repeat(13); // 66 bytes in UTF-8, 53 characters
  const share = taskQueueShare(long, 2);
  expect(Buffer.byteLength(share.fairnessKey!)).toBe(64);
  expect(share.fairnessKey).not.toContain('k');
  expect(taskQueueShare(long, 2)).toEqual(share);
  expect(taskQueueShare(`${long}x`, 2).fairnessKey).not.toBe(share.fairnessKey);
  expect(taskQueueShare('k'.repeat(64), 1).fairnessKey).toBe('k'.repeat(64));
});
