/** Sinks the generation workflow calls: the SDK's way out of the sandbox, not called during replay. */
import type { Sinks } from '@temporalio/workflow';

export interface PushMonitorSinks extends Sinks {
  pushMonitor: {
    /** A callback for `platform` reached a task on this worker: its push channel works. */
    seen(platform: string): void;
  };
}
