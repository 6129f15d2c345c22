/**
 * Client webhooks' wire types: what a task's owner asked to be told (GenerationInput.webhook), the events, the
 * delivery workflow's input, memo and record of every attempt, and its activities' signatures. Shared by the
 * workflows (the generation workflow announces events, the delivery workflow sends them) and webhooks/, where
 * everything else of client webhooks lives. No I/O: workflows import it.
 *
 * The retries of a task's events are a workflow of their own per task (`webhooks-<task_id>`), so they — for up to 72
 * hours — never add a single event to the generation workflow's history. The final event's first attempt, for a task
 * that did not ask for `running`, is a step of the task's own end instead (FirstAttemptInput): the task's record is
 * final and readable before it, and the delivery workflow is started only when that attempt does not deliver.
 */

/** The events a client may ask for; the body's `type` is `generation.<event>`. */
export const WEBHOOK_EVENTS = ['running', 'succeeded', 'failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Without `webhook_events`, the two final events. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['succeeded', 'failed'];
export const FINAL_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['succeeded', 'failed'];

export function isWebhookEvent(s: unknown): s is WebhookEvent {
  return typeof s === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(s);
}

/** Where a task's events go, recorded in the workflow input (the URL is the client's, never a secret). */
export interface WebhookTarget {
  url: string;
  events: WebhookEvent[];
  /**
   * The origin the client reached the API on, the base of the result links in the delivered record when
   * PUBLIC_BASE_URL is unset (as a GET on that origin would show them).
   */
  linkBase?: string;
}

/** The delivery workflow's registered type (its id per task and its task queue: webhooks/delivery.ts). */
export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';
/** Signals of the delivery workflow: a new event of the task, and the client's redelivery of the last one. */
export const WEBHOOK_EVENT_SIGNAL = 'webhookEvent';
export const WEBHOOK_REDELIVER_SIGNAL = 'webhookRedeliver';

/**
 * The `webhook-id` of one event of one task: the same on every attempt and every redelivery, so a receiver can
 * deduplicate (Standard Webhooks, "webhook-id").
 */
export function webhookMessageId(taskId: string, event: WebhookEvent): string {
  return `msg_${taskId}_${event}`;
}

/** Retry and timeout settings of deliveries (worker: WEBHOOK_*), fixed per delivery workflow when it starts. */
export interface WebhookTiming {
  /** One attempt's bound (connect, send, answer): 10 s by default, inside the 10–15 s. */
  attemptTimeoutMs: number;
  /** The first retry's wait; doubled after each failure up to maxIntervalMs. */
  initialIntervalMs: number;
  maxIntervalMs: number;
  /** How long an event is retried before it is given up (72 h by default). */
  retryForMs: number;
}

/** One attempt as GET /v1/generations/:id/deliveries shows it. */
export interface DeliveryAttempt {
  /** ISO 8601. */
  at: string;
  duration_ms: number;
  /** The receiver's HTTP status; absent when none came (refused, timed out, refused by the address guard). */
  status?: number;
  error?: string;
  /** The first bytes of the receiver's answer. */
  response_excerpt?: string;
}

/**
 * An event's delivery: `pending` (being tried), `delivered` (2xx), `gone` (410: the receiver wants no more),
 * `expired` (retried until the bound without success), `superseded` (a running event dropped because the task
 * ended first: a running event never arrives after the final one).
 */
export type DeliveryState = 'pending' | 'delivered' | 'gone' | 'expired' | 'superseded';

export interface DeliveryEventRecord {
  webhook_id: string;
  event: WebhookEvent;
  state: DeliveryState;
  /** When the task reached the state the event tells of (ISO 8601); the body's `timestamp`. */
  occurred_at: string;
  /** All attempts so far (the last MAX_ATTEMPTS_SHOWN are kept in `attempts`). */
  attempt_count: number;
  attempts: DeliveryAttempt[];
}

/**
 * What one run of the delivery workflow is started with. A redelivery starts a new run carrying `events`; the
 * hand-over of a final event whose first attempt (made at the task's end) did not deliver starts one with that
 * event `pending`, its first attempt in `attempts`.
 */
export interface WebhookDeliveryInput {
  taskId: string;
  ownerId: string;
  target: WebhookTarget;
  timing: WebhookTiming;
  events?: DeliveryEventRecord[];
}

/** The delivery workflow's memo: the record GET .../deliveries reads (no worker needed), and the next run's input. */
export interface WebhookDeliveryMemo {
  delivery: WebhookDeliveryInput;
}

/** What the delivery activity is asked to send. */
export interface WebhookSendInput {
  taskId: string;
  ownerId: string;
  target: WebhookTarget;
  webhookId: string;
  event: WebhookEvent;
  occurredAt: string;
  attemptTimeoutMs: number;
  /**
   * The attempt is a step of the task's own end: its workflow is still open, its memo already final, so the record is
   * read from the memo at once rather than after the workflow closes (which would wait for this very attempt).
   */
  taskOpen?: boolean;
}

/** One attempt's outcome as the activity reports it (it never throws for the receiver's answer). */
export interface WebhookSendResult {
  outcome: 'delivered' | 'gone' | 'retry' | 'superseded';
  attempt: DeliveryAttempt;
}

/**
 * An attempt that failed without an answer to report (its activity lost with its worker, or the task's record or the
 * key's secret unreadable): recorded like a refusal, to be tried again.
 */
export function lostAttempt(err: unknown): WebhookSendResult {
  return {
    outcome: 'retry',
    attempt: { at: new Date().toISOString(), duration_ms: 0, error: `attempt lost: ${err instanceof Error ? err.message : String(err)}` },
  };
}

/**
 * The task queue webhook deliveries run on, beside the generation tasks' own: a delivery's workflow tasks never wait
 * behind a backlog of generation tasks (hundreds of tasks ending together), so an event goes out within moments of
 * its task's end. Every worker polls both (worker/main.ts). The final event's first attempt at a task's end runs there
 * too, on that queue's activity slots (workflows/generation/announcement.ts).
 */
export function webhookTaskQueue(taskQueue: string): string {
  return `${taskQueue}-webhooks`;
}

/** What the generation workflow announces: an event of its task, for the task's delivery workflow. */
export interface AnnounceInput {
  taskId: string;
  ownerId: string;
  target: WebhookTarget;
  event: WebhookEvent;
  occurredAt: string;
}

/**
 * The bound of the final event's first attempt when it is a step of the task's end: WEBHOOK_ATTEMPT_TIMEOUT_MS, at most
 * this. A sync caller's answer waits for the task's workflow to close, so a slow receiver delays it by no more.
 */
export const FIRST_ATTEMPT_TIMEOUT_MS = 5_000;

/**
 * The final event's first attempt, made by the generation workflow at its end (a task whose webhook did not ask for
 * `running`): the same fields as an announcement.
 */
export type FirstAttemptInput = AnnounceInput;

/**
 * The webhook activities as the workflows call them (webhooks/activities.ts makes them; the worker adds them to
 * its activities): announcing an event to its task's delivery workflow, one signed attempt, and the final event's
 * first attempt at the task's end — handed to the delivery workflow when it does not deliver. That one answers the
 * event's delivery record (the memo shape GET .../deliveries reads): it is kept as the activity's result in the
 * task's own history, the record's one copy when no delivery workflow was needed.
 */
export interface WebhookActivities {
  announceWebhookEvent(input: AnnounceInput): Promise<void>;
  deliverWebhook(input: WebhookSendInput): Promise<WebhookSendResult>;
  firstWebhookAttempt(input: FirstAttemptInput): Promise<WebhookDeliveryMemo>;
}

/** The activity type of the first attempt at a task's end: its completion in the task's history holds the record. */
export const FIRST_WEBHOOK_ATTEMPT_ACTIVITY = 'firstWebhookAttempt' satisfies keyof WebhookActivities;
