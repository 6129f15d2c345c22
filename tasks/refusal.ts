/**
 * Why a task is not started: the one error the start path (tasks/start.ts) throws for a request it refuses. It
 * says what was wrong in the task's terms — the request, the key's allowlist, its budget, its limits, its
 * Idempotency-Key — and names the field; a front door turns it into its own wire form (the API: an HTTP status
 * and the error envelope, api/task-refusals.ts). Nothing is started upstream, nothing is reserved, when one is
 * thrown.
 */

/**
 * - `invalid_request`: the request cannot be served as asked (a field's value, an unknown field);
 * - `not_allowed`: the key may not use the model;
 * - `payment_required`: the key's budget does not cover the task, or cannot price it;
 * - `too_many`: the key has its maximum of tasks in flight (`retryAfterSeconds` says when to try again);
 * - `conflict`: the Idempotency-Key names another request's task, or one being started at this moment.
 */
export type RefusalKind = 'invalid_request' | 'not_allowed' | 'payment_required' | 'too_many' | 'conflict';

export interface RefusalDetails {
  /** The request field (or header) at fault, as the client named it. */
  param?: string;
  /** A stable machine-readable code, e.g. `invalid_value`, `budget_exceeded`, `idempotency_key_reused`. */
  code: string;
  /** The task the refusal concerns, where one exists (an Idempotency-Key's task). */
  taskId?: string;
  /** When the client may try again, for `too_many` and a `conflict` that passes on its own. */
  retryAfterSeconds?: number;
  /** More of the refusal for the client, e.g. the budget's state: carried into the error body as is. */
  extra?: Record<string, unknown>;
}

export class TaskRefused extends Error {
  override name = 'TaskRefused';
  constructor(
    readonly kind: RefusalKind,
    message: string,
    readonly details: RefusalDetails,
  ) {
    super(message);
  }

  /**
   * The same refusal in a door's terms (`names`: each general field the door's own became → the door's name for
   * it): a refusal of one of them names the door's field. A message that starts with the general field's name starts
   * with the door's when that door field became this one field alone (`duration` → `seconds`); when it became
   * several (`size` → `ratio` and `resolution`), the door's field is put before the message, which says which part.
   */
  inDoorTerms(names: Readonly<Record<string, string>>): TaskRefused {
    const param = this.details.param;
    if (this.kind !== 'invalid_request' || param === undefined) return this;
    const [head = '', ...rest] = param.split('.');
    const door = Object.hasOwn(names, head) ? names[head] : undefined;
    if (door === undefined) return this;
    const doorParam = [door, ...rest].join('.');
    const alone = Object.values(names).filter((n) => n === door).length === 1;
    const next = this.message.charAt(param.length);
    const namesParam = this.message.startsWith(param) && (next === '' || next === ' ' || next === ':');
    const message = alone && namesParam ? `${doorParam}${this.message.slice(param.length)}` : `${doorParam}: ${this.message}`;
    return new TaskRefused(this.kind, message, { ...this.details, param: doorParam });
  }
}

/** A request the task cannot be made from, naming the field. */
export const invalidTask = (message: string, param?: string, code = 'invalid_value') =>
  new TaskRefused('invalid_request', message, { code, ...(param ? { param } : {}) });
