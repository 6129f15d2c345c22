/** Sinks the generation workflow calls: the SDK's way out of the sandbox, not called during replay. */
import type { Sinks } from '@temporalio/workflow';

export interface PushMonitorSinks extends Sinks {
  pushMonitor: {
    /** A callback for `platform` reached a task on this worker: its push channel works. */
    seen(platform: string): void;
  };
}

/** How an event's delivery settled (workflows/webhook-delivery.ts): every outcome but `pending`. */
export type WebhookSettlement = 'delivered' | 'gone' | 'expired' | 'superseded';

/**
 * Webhook events' settlements, counted by the worker that ran the workflow task deciding them
 * (worker/worker-metrics.ts, `mediagate_webhook_deliveries_total`): the delivery workflow's, and the generation
 * workflow's for a final event its own end step delivered (or was refused, 410) at its first attempt
 * (workflows/generation/announcement.ts). A workflow, not the attempt, decides an event's fate: `expired` and a
 * `superseded` running event are settled with no attempt at all, and an attempt may be made twice (a workflow task
 * run again) for one settlement.
 */
export interface WebhookMetricsSinks extends Sinks {
  webhookMetrics: {
    settled(outcome: WebhookSettlement): void;
  };
}
