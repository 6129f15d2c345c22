/**
 * Search attributes the gateway writes on every task, so operators can filter in the Temporal UI, e.g.
 * `GenerationStatus = 'failed' AND GenerationPlatform = 'V'`, and the one the webhook delivery workflow writes.
 * All Keyword: with WebhookPendingSince they are ten, SQL visibility's limit per namespace (no room for another).
 * The owner is the API key's *id*, never its secret: search attributes are stored unencrypted.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { TASK_STATUSES } from './task';

/**
 * The values of `GenerationStatus`: the API's task statuses (docs/api.md "Task records"), plus `cancelled` for a task the client
 * cancelled. The API reads such a task as `failed` (error.code `cancelled`: the contract knows four statuses),
 * but in Temporal's views it has a value of its own, so that `GenerationStatus = 'failed'` lists only tasks that
 * failed, the ones an operator may have to look into or replay, and not the client's own cancels.
 */
export const GENERATION_STATUSES = [...TASK_STATUSES, 'cancelled'] as const;
export type GenerationStatus = (typeof GENERATION_STATUSES)[number];

export const SA = {
  owner: defineSearchAttributeKey('GenerationOwner', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('GenerationStatus', SearchAttributeType.KEYWORD),
  /**
   * The catalogue model that serves the task. A routed task's is set when its submit answers (the member that made
   * the job), beside `GenerationRoute`; until then it has none.
   */
  model: defineSearchAttributeKey('GenerationModel', SearchAttributeType.KEYWORD),
  /**
   * The route a task was started with (its public name, e.g. `kling-2.1`); absent for a task that named a catalogue
   * model. `GenerationRoute = 'kling-2.1' AND GenerationPlatform = 'B'` lists the route's tasks its B member served.
   */
  route: defineSearchAttributeKey('GenerationRoute', SearchAttributeType.KEYWORD),
  /** The platform of the model that serves the task (a routed task's: set with `GenerationModel`). */
  platform: defineSearchAttributeKey('GenerationPlatform', SearchAttributeType.KEYWORD),
  kind: defineSearchAttributeKey('GenerationKind', SearchAttributeType.KEYWORD),
  failureReason: defineSearchAttributeKey('GenerationFailureReason', SearchAttributeType.KEYWORD),
  upstreamTaskId: defineSearchAttributeKey('GenerationUpstreamTaskId', SearchAttributeType.KEYWORD),
  /** The platform account that owns the job (PLATFORM_<X>_ACCOUNTS_FILE's id, or `default`): never a secret. */
  upstreamAccount: defineSearchAttributeKey('UpstreamAccount', SearchAttributeType.KEYWORD),
} as const;

/**
 * On a task's webhook delivery workflow (workflows/webhook-delivery.ts), while an event of it is being retried: when
 * that event was queued, as an ISO 8601 UTC instant (fixed width, so Keyword order is time order); absent otherwise.
 * The workers' `mediagate_webhook_oldest_undelivered_age_seconds` is read from it (webhooks/backlog.ts), the
 * same on every worker whichever of them made an event's attempts. Keyword rather than Datetime so that every
 * cluster registers it as it registers the others.
 */
export const WEBHOOK_PENDING_SINCE = defineSearchAttributeKey('WebhookPendingSince', SearchAttributeType.KEYWORD);

export const ALL_SEARCH_ATTRIBUTES = [...Object.values(SA), WEBHOOK_PENDING_SINCE];
