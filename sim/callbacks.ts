/**
 * Outbound callbacks, as the platforms send them (V per task, T event notification PUSH, B account-level
 * events): each simulated platform builds and signs its own request; this module delivers it over real HTTP,
 * retries a failed delivery a few times (like the platforms, best effort), records every delivery for tests
 * (GET /_sim/callbacks), and applies the faults a test asks for (POST /_sim/callback-faults):
 *
 *   drop           the callback is never sent (the gateway's timers must still finish the task)
 *   duplicate      it is sent twice
 *   late           it is sent `delayMs` later (default 5 s)
 *   bad-signature  the platform's signature is corrupted (the gateway must refuse it)
 */
import type { SimPlatform } from './vocabulary';

export type CallbackFault = 'drop' | 'duplicate' | 'late' | 'bad-signature';

export interface CallbackRequest {
  url: string;
  /** The exact bytes sent (platforms sign the body as sent). */
  body: string;
  headers: Record<string, string>;
  /** Returns the headers with the signature corrupted, for the `bad-signature` fault. */
  corrupt?: (headers: Record<string, string>, body: string) => { headers: Record<string, string>; body: string };
}

export interface CallbackDelivery {
  platform: SimPlatform;
  url: string;
  body: unknown;
  headers: Record<string, string>;
  fault?: CallbackFault;
  /** HTTP status of each attempt (0: network error). */
  attempts: number[];
  at: number;
  /** Identifies the job the callback is about, when the platform module says. */
  jobId?: string;
}

interface PendingFault {
  platform: SimPlatform | '*';
  fault: CallbackFault;
  remaining: number;
  delayMs?: number;
}

const MAX_RECORDED = 5_000;
/** Attempts per delivery and the pause between them: the platforms retry "a few times". */
const ATTEMPTS = 3;
const RETRY_DELAY_MS = 500;
const TIMEOUT_MS = 5_000;

export class CallbackSender {
  readonly deliveries: CallbackDelivery[] = [];
  private faults: PendingFault[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  addFault(f: { platform?: SimPlatform | '*'; fault: CallbackFault; count?: number; delayMs?: number }): void {
    this.faults.push({ platform: f.platform ?? '*', fault: f.fault, remaining: f.count ?? 1, delayMs: f.delayMs });
  }

  clearFaults(): void {
    this.faults = [];
  }

  reset(): void {
    this.clearFaults();
    this.deliveries.length = 0;
  }

  /** Sends the callback in the background (never blocks the platform's own request handling). */
  send(platform: SimPlatform, req: CallbackRequest, jobId?: string): void {
    const pending = this.faults.find((f) => f.remaining > 0 && (f.platform === '*' || f.platform === platform));
    if (pending) pending.remaining--;
    this.faults = this.faults.filter((f) => f.remaining > 0);
    const fault = pending?.fault;

    let { headers, body } = req;
    if (fault === 'bad-signature' && req.corrupt) ({ headers, body } = req.corrupt(headers, body));
    let parsed: unknown = body;
    try {
      parsed = JSON.parse(body);
    } catch {
      // a non-JSON body is recorded as sent
    }
    const delivery: CallbackDelivery = { platform, url: req.url, body: parsed, headers, fault, attempts: [], at: Date.now(), jobId };
    this.deliveries.push(delivery);
    if (this.deliveries.length > MAX_RECORDED) this.deliveries.splice(0, this.deliveries.length - MAX_RECORDED);
    if (fault === 'drop') return;

    const deliver = () => void this.attempt(delivery, req.url, body, headers);
    if (fault === 'late') this.later(deliver, pending?.delayMs ?? 5_000);
    else deliver();
    if (fault === 'duplicate') this.later(deliver, 50);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private async attempt(delivery: CallbackDelivery, url: string, body: string, headers: Record<string, string>, n = 1): Promise<void> {
    let status = 0;
    try {
      const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
      status = res.status;
      await res.arrayBuffer();
    } catch {
      // network error or timeout: recorded as status 0
    }
    delivery.attempts.push(status);
    if ((status < 200 || status >= 300) && n < ATTEMPTS)
      this.later(() => void this.attempt(delivery, url, body, headers, n + 1), RETRY_DELAY_MS * n);
  }
}
