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
 * The webhook delivery workflow's settlements, counted by the worker that ran the workflow task deciding them
 * (worker/worker-metrics.ts, `mediagate_webhook_deliveries_total`). The workflow, not the attempt, decides an
 * event's fate: `expired` and a `superseded` running event are settled with no attempt at all.
 */
export interface WebhookMetricsSinks extends Sinks {
  webhookMetrics: {
    settled(outcome: WebhookSettlement): void;
  };
}
