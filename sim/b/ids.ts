/**
 * B's identifiers and times: `tsk-` + 16 lower-case alphanumerics (tsk-faikc9dmw8m8saic), `mda-…` media ids,
 * `evt-…` event ids [OFF examples], and UTC ISO times without milliseconds (2025-01-09T02:04:53Z).
 */
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function fromBytes(bytes: Uint8Array, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[(bytes[i] ?? 0) % ALPHABET.length];
  return out;
}

export function newTaskId(): string {
  return `tsk-${fromBytes(randomBytes(16), 16)}`;
}

export function newEventId(): string {
  return `evt-${fromBytes(randomBytes(16), 16)}`;
}

/** The media id of a task's n-th output: derived from the task id, so it is the same on every read and restart. */
export function mediaIdFor(taskId: string, index: number): string {
  return `mda-${fromBytes(createHash('sha256').update(`${taskId}#${index}`).digest(), 16)}`;
}
