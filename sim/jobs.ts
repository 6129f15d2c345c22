/**
 * Simulated upstream jobs, shared by the three protocols. A job's state is a function of time: queued for the
 * first quarter of its duration, running (with progress) until it ends, then succeeded or failed as its
 * directives say. Cancelling works only while queued, as on the real platforms.
 */
import { randomBytes } from 'node:crypto';
import type { Kind, Platform } from '../core/platforms';
import type { Directives } from './directives';

export type SimState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface SimJob {
  id: string;
  platform: Platform;
  kind: Kind;
  model: string;
  createdAt: number;
  durationMs: number;
  directives: Directives;
  /** How many result files (images: `n`). */
  outputs: number;
  /** Echoed back in results (platform V: duration, ratio, resolution). */
  meta: Record<string, unknown>;
  cancelledAt?: number;
  pollFaultsLeft: number;
}

export interface JobView {
  state: SimState;
  progress: number;
}

export class JobStore {
  private readonly jobs = new Map<string, SimJob>();
  /** Platform dedup keys (T SessionId, B Idempotency-Key) → job id. */
  private readonly dedup = new Map<string, string>();

  constructor(private readonly defaultDurationMs: () => number) {}

  create(fields: Omit<SimJob, 'id' | 'createdAt' | 'durationMs' | 'pollFaultsLeft'>, idPrefix: string): SimJob {
    const job: SimJob = {
      ...fields,
      id: `${idPrefix}${Date.now().toString(36)}${randomBytes(6).toString('hex')}`,
      createdAt: Date.now(),
      durationMs: fields.directives.durationMs ?? this.defaultDurationMs(),
      pollFaultsLeft: fields.directives.pollFault?.times ?? 0,
    };
    this.jobs.set(job.id, job);
    return job;
  }

  get(id: string): SimJob | undefined {
    return this.jobs.get(id);
  }

  byDedupKey(scope: string, key: string): SimJob | undefined {
    const id = this.dedup.get(`${scope}:${key}`);
    return id === undefined ? undefined : this.jobs.get(id);
  }

  rememberDedupKey(scope: string, key: string, job: SimJob): void {
    this.dedup.set(`${scope}:${key}`, job.id);
  }

  view(job: SimJob, now = Date.now()): JobView {
    if (job.cancelledAt !== undefined) return { state: 'cancelled', progress: 0 };
    const elapsed = now - job.createdAt;
    if (job.directives.never) {
      return elapsed < job.durationMs / 4 ? { state: 'queued', progress: 0 } : { state: 'running', progress: 50 };
    }
    if (elapsed >= job.durationMs) {
      return job.directives.fail ? { state: 'failed', progress: 100 } : { state: 'succeeded', progress: 100 };
    }
    if (elapsed < job.durationMs / 4) return { state: 'queued', progress: 0 };
    // Progress in steps of 10, like the real platforms report it.
    const pct = Math.floor(((elapsed - job.durationMs / 4) / ((job.durationMs * 3) / 4)) * 10) * 10;
    return { state: 'running', progress: Math.min(90, Math.max(0, pct)) };
  }

  /** Cancels a queued job; false when it is past cancelling. */
  cancel(job: SimJob): boolean {
    if (this.view(job).state !== 'queued') return false;
    job.cancelledAt = Date.now();
    return true;
  }

  clear(): void {
    this.jobs.clear();
    this.dedup.clear();
  }
}

export function resultUrls(baseUrl: string, job: SimJob): string[] {
  const ext = job.kind === 'video' ? 'mp4' : 'png';
  return Array.from({ length: job.outputs }, (_, i) => `${baseUrl}/files/${job.id}-${i}.${ext}`);
}
