/**
 * Whether each platform's callbacks are reaching this worker's tasks: a platform counts as healthy for push
 * when push is configured for it and a callback arrived within the window. Tasks of a healthy platform wait on
 * the longer fallback poll interval; when callbacks stop arriving the window lapses and tasks go back to the
 * spec's intervals. Fed by the generation workflow through a sink (workflows/sinks.ts), read by the poll
 * activity. Per worker process, in memory: a restarted worker starts cautious (spec intervals).
 */
export class PushMonitor {
  private readonly lastSeen = new Map<string, number>();

  constructor(
    /** Platforms whose push channel is configured on this deployment. */
    private readonly configured: ReadonlySet<string>,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  isConfigured(platform: string): boolean {
    return this.configured.has(platform);
  }

  seen(platform: string): void {
    this.lastSeen.set(platform, this.now());
  }

  healthy(platform: string): boolean {
    const at = this.lastSeen.get(platform);
    return this.configured.has(platform) && at !== undefined && this.now() - at <= this.windowMs;
  }
}
