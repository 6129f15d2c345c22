/**
 * Platform B's test fixtures, shared by test/unit/platforms/b/*: the create a request becomes, the simulator's
 * check that it ignores none of it, and the adapter's settings, clock and reconcile context.
 */
import type { ReconcileContext } from '../../../platforms/platform';
import { toBCreate } from '../../../platforms/b/request-body';
import { SIM_ACCOUNTS } from '../../../sim/accounts';
import { validateImageCreate, validateVideoCreate } from '../../../sim/b/validation';
import { validated, type Kind } from '../platform-kit';

export const IMG = 'https://img.test/first.png';
export const IMG2 = 'https://img.test/last.png';

/** The create a request becomes, for submit `dedupKey` (absent: without the reconciliation seed). */
export function create(kind: Kind, body: Record<string, unknown>, dedupKey?: string) {
  const { entry, request } = validated(kind, body);
  return toBCreate(entry, request, dedupKey === undefined ? undefined : { dedupKey });
}

/** The simulator (written from the shared page, not from our code) takes the body and ignores none of it. */
export function expectSimAccepts(c: ReturnType<typeof create>) {
  const report = c.endpoint === 'image' ? validateImageCreate(c.body).fields : validateVideoCreate(c.endpoint, c.body).fields;
  expect(report.ignored).toEqual([]);
}

export const NOW = Date.UTC(2026, 10, 22, 9, 30, 5);
export const SETTINGS = {
  endpoint: 'http://127.0.0.1:8090',
  accessKeyId: SIM_ACCOUNTS.B.accessKeyId,
  secretAccessKey: SIM_ACCOUNTS.B.secretAccessKey,
};
export const ctx = (dedupKey: string, since = NOW - 5_000): ReconcileContext => ({
  taskId: 'task_x',
  dedupKey,
  deadlineAt: NOW + 3_600_000,
  since,
});
