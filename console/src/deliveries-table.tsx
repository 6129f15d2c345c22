/** A task's webhook events and their attempts, with the last answer of each (the task page and the deliveries page). */
export interface DeliveryAttempt {
  at: string;
  duration_ms: number;
  status?: number;
  error?: string;
  response_excerpt?: string;
}

export interface DeliveryEvent {
  webhook_id: string;
  event: string;
  state: string;
  occurred_at: string;
  attempt_count: number;
  attempts: DeliveryAttempt[];
}

/**
 * The last answer of an event: its HTTP status (with what went wrong, unless that only repeats the status), or
 * what went wrong without one, and the receiver's body as the gateway kept it (already bounded: shown whole).
 */
export function lastAnswer(e: DeliveryEvent): string {
  const a = e.attempts.at(-1);
  if (!a) return 'no attempt yet';
  const status = a.status !== undefined ? `HTTP ${a.status}` : undefined;
  const error = a.error && a.error !== status && !(status && a.error.replace(/[()]/g, '') === status) ? a.error : undefined;
  const what = status ? `${status}${error ? ` (${error})` : ''}` : (error ?? 'no answer');
  return `${what}${a.response_excerpt ? `: ${a.response_excerpt}` : ''}`;
}

/**
 * An event's state in the words the deliveries list uses: an event still pending after a failed attempt is being
 * retried, as its row says.
 */
export function eventState(e: DeliveryEvent): string {
  const last = e.attempts.at(-1);
  const failed = last !== undefined && (last.status === undefined || last.status < 200 || last.status >= 300);
  return e.state === 'pending' && e.attempt_count > 0 && failed ? 'retrying' : e.state;
}

export function EventList(props: { events: DeliveryEvent[] }) {
  return (
    <ul class="events">
      {props.events.map((e) => {
        const state = eventState(e);
        return (
          <li key={e.webhook_id}>
            {e.event} event: <span class={`status status-${state}`}>{state.replace(/_/g, ' ')}</span>, {e.attempt_count}{' '}
            {e.attempt_count === 1 ? 'attempt' : 'attempts'}
            {state === 'retrying' ? ' so far' : ''}; last answer: <q class="answer">{lastAnswer(e)}</q>
          </li>
        );
      })}
    </ul>
  );
}
