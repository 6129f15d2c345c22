/**
 * Keeps the embedded default's parts running (`npm start`): a part that dies unexpectedly is restarted with
 * backoff (1 s, doubling, at most 30 s; back to 1 s once it has run for a minute), and every death and restart
 * is logged. Only stop() — Ctrl-C — ends them, in the order given. Like a small process manager, so a killed
 * worker costs a few seconds instead of taking the API, the simulator and Temporal down with it.
 */

/** A running part: resolves `exited` when it ends; `stop` ends it gracefully. */
export interface Running {
  pid?: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export interface Service {
  name: string;
  /** Starts the part and resolves once it is ready to serve (throws if it cannot start). */
  start(): Promise<Running>;
}

const BACKOFF = { initialMs: 1_000, maxMs: 30_000, healthyAfterMs: 60_000 };

export class Supervisor {
  private readonly running = new Map<string, Running>();
  private stopping = false;

  constructor(private readonly log: (line: string) => void) {}

  /** Starts `service` and keeps it running until stop(). Resolves once it is first ready. */
  async add(service: Service): Promise<void> {
    await this.launch(service, BACKOFF.initialMs);
  }

  private async launch(service: Service, backoffMs: number): Promise<void> {
    const part = await service.start();
    const startedAt = Date.now();
    this.running.set(service.name, part);
    this.log(`[supervisor] ${service.name} started${part.pid ? ` (pid ${part.pid})` : ''}`);
    void part.exited.then(({ code, signal }) => {
      if (this.stopping || this.running.get(service.name) !== part) return;
      this.running.delete(service.name);
      const next = Date.now() - startedAt >= BACKOFF.healthyAfterMs ? BACKOFF.initialMs : backoffMs;
      this.log(
        `[supervisor] ${service.name} exited unexpectedly (code ${code}, signal ${signal}); restarting in ${Math.round(next / 1000)} s`,
      );
      this.restart(service, next);
    });
  }

  private restart(service: Service, delayMs: number): void {
    setTimeout(() => {
      if (this.stopping) return;
      this.launch(service, Math.min(BACKOFF.maxMs, delayMs * 2)).catch((err: Error) => {
        this.log(`[supervisor] ${service.name} failed to start again: ${err.message}`);
        this.restart(service, Math.min(BACKOFF.maxMs, delayMs * 2));
      });
    }, delayMs);
  }

  /** Stops every part, in `order` (names), then any others. */
  async stop(order: readonly string[]): Promise<void> {
    this.stopping = true;
    const names = [...order.filter((n) => this.running.has(n)), ...[...this.running.keys()].filter((n) => !order.includes(n))];
    for (const name of names) await this.running.get(name)?.stop();
    this.running.clear();
  }
}
