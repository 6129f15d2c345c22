/** The submit dedup key (workflows/dedup-key.ts): per run, within platform T's 50 characters, URL-safe. */
import { DEDUP_KEY_MAX_LENGTH, submitDedupKey } from '../../../workflows/dedup-key';

const TASK = 'task_Zm9vYmFyYmF6cXV4cXV1eA';
const RUN_A = '01a20084-0185-70df-8072-8cf6da5ad01b';
const RUN_B = '01a20084-3f92-7b65-943e-eeba4cb8a725';

test('stable for a run (activity retries reuse it), different for another run of the same task (a reset)', () => {
  expect(submitDedupKey(TASK, RUN_A)).toBe(submitDedupKey(TASK, RUN_A));
  expect(submitDedupKey(TASK, RUN_B)).not.toBe(submitDedupKey(TASK, RUN_A));
});

test('starts with the task id so an operator can match an upstream job to its task, and keeps the whole run id', () => {
  const key = submitDedupKey(TASK, RUN_A);
  expect(key).toBe('task_Zm9vYmFyYmF6-01a20084018570df80728cf6da5ad01b');
  expect(key.length).toBeLessThanOrEqual(DEDUP_KEY_MAX_LENGTH);
});

test('at most 50 URL-safe characters whatever the ids look like', () => {
  for (const [wf, run] of [
    ['x'.repeat(300), RUN_A],
    ['odd id/with spaces?', RUN_B],
    ['', RUN_A],
    [TASK, 'r'.repeat(80)],
  ] as const) {
    const key = submitDedupKey(wf, run);
    expect(key.length).toBeLessThanOrEqual(DEDUP_KEY_MAX_LENGTH);
    expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
  }
  expect(submitDedupKey('', RUN_A)).toBe('01a20084018570df80728cf6da5ad01b');
});

test('a re-submission after a transient upstream failure gets a key of its own, still within 50 characters', () => {
  const first = submitDedupKey(TASK, RUN_A);
  const again = submitDedupKey(TASK, RUN_A, 1);
  expect(again).not.toBe(first);
  expect(again).not.toBe(submitDedupKey(TASK, RUN_A, 2));
  expect(again).toBe('task_Zm9vYmFyYm-01a20084018570df80728cf6da5ad01br1');
  expect(again.length).toBeLessThanOrEqual(DEDUP_KEY_MAX_LENGTH);
  expect(submitDedupKey(TASK, RUN_A, 0)).toBe(first);
});
