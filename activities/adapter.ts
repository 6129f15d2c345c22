/** What every platform adapter offers the activities: one file per platform implements it. */
import type { ModelEntry } from '../core/catalogue';
import type { Kind } from '../core/platforms';
import type { GenerationRequest } from '../core/schemas';
import type { SubmitResult, UpstreamStatus } from '../core/task';

export interface PlatformAdapter {
  /** Creates the upstream job. `dedupKey` is stable per workflow run (workflows/dedup-key.ts): platforms that support it never create twice. */
  submit(entry: ModelEntry, request: GenerationRequest, dedupKey: string): Promise<SubmitResult>;
  poll(kind: Kind, upstreamTaskId: string): Promise<UpstreamStatus>;
  /** Best effort; resolves when the platform accepted the cancel or the job can no longer be cancelled. */
  cancel(kind: Kind, upstreamTaskId: string): Promise<void>;
}

/** Logs an operator problem (bad credentials, no balance) loudly, but once per process and code. */
export type OperatorAlert = (platform: string, code: string, message: string) => void;
