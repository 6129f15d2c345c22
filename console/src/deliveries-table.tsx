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

/** The last answer of an event: its HTTP status, or what went wrong, and the start of the body. */
export function lastAnswer(e: DeliveryEvent): string {
  const a = e.attempts.at(-1);
  if (!a) return 'no attempt yet';
  const what = a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? 'no answer');
  return `${what}${a.error && a.status !== undefined ? ` (${a.error})` : ''}${a.response_excerpt ? `: ${a.response_excerpt.slice(0, 80)}` : ''}`;
}

export function EventList(props: { events: DeliveryEvent[] }) {
  return (
    <ul>
      {props.events.map((e) => (
        <li key={e.webhook_id}>
          {e.event}: <span class={`status status-${e.state}`}>{e.state}</span> after {e.attempt_count} attempt(s); last answer:{' '}
          {lastAnswer(e)}
        </li>
      ))}
    </ul>
  );
}
