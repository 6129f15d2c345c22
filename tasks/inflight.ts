/**
 * The cap on a key's tasks in flight (OWASP API4, unrestricted resource consumption): beyond it a start is refused
 * (`too_many`, retry after a few seconds) and nothing is started. The count is the key's running workflows in
 * Temporal visibility (true across API replicas), cached for a second and bumped locally on each start so a burst
 * cannot slip past a stale count.
 */
import type { ApiKey } from '../keys/api-keys';
import { TaskRefused } from './refusal';

const COUNT_TTL_MS = 1_000;

export class InflightLimits {
  private readonly inflight = new Map<string, { count: number; at: number; refreshing?: Promise<number> }>();

  constructor(
    /** Running tasks per key when the key sets none (KEY_MAX_INFLIGHT); 0 = unlimited. */
    private readonly defaultMax: number,
    private readonly countRunning: (ownerId: string) => Promise<number>,
  ) {}

  maxFor(key: Pick<ApiKey, 'maxInflight'>): number {
    return key.maxInflight ?? this.defaultMax;
  }

  /**
   * Takes one in-flight slot, or refuses when the key already has its maximum of running tasks. The check and the
   * reservation happen with no await between them, so concurrent requests cannot overshoot. Returns a function
   * that gives the slot back (call it when the start failed).
   */
  async take(key: Pick<ApiKey, 'id' | 'maxInflight'>): Promise<() => void> {
    const max = this.maxFor(key);
    if (max <= 0) return () => undefined;
    await this.refreshCount(key.id);
    const entry = this.inflight.get(key.id)!;
    if (entry.count >= max) {
      throw new TaskRefused('too_many', `This API key already has ${max} tasks in progress; wait for some to finish`, {
        code: 'too_many_tasks_in_flight',
        retryAfterSeconds: 5,
      });
    }
    entry.count++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const current = this.inflight.get(key.id);
      if (current) current.count = Math.max(0, current.count - 1);
    };
  }

  /** Refreshes the key's running-task count from Temporal visibility when the cached one is stale. */
  private async refreshCount(ownerId: string): Promise<void> {
    const entry = this.inflight.get(ownerId);
    if (entry && Date.now() - entry.at < COUNT_TTL_MS) return;
    if (entry?.refreshing) {
      await entry.refreshing;
      return;
    }
    const refreshing = this.countRunning(ownerId);
    const pending = { count: entry?.count ?? 0, at: entry?.at ?? 0, refreshing };
    this.inflight.set(ownerId, pending);
    try {
      const count = await refreshing;
      this.inflight.set(ownerId, { count, at: Date.now() });
    } catch (err) {
      this.inflight.delete(ownerId);
      throw err;
    }
  }
}
