/**
 * Platform T's event notification (VOD "事件通知"), for AIGC task completion, as the SDK documents it:
 *
 * - Configuration per SubAppId with ModifyEventConfig / DescribeEventConfig (ModifyEventConfigRequest: Mode
 *   PUSH | PULL, NotificationUrl, three event switches that do not concern AIGC events, SignKey).
 *   DescribeEventConfigResponse does not return the SignKey. A SubAppId never configured reads Mode PUSH with no
 *   URL, so its events go nowhere (GUESS: the console's default is "普通回调" with an empty address).
 * - Event: EventContent with EventType `AigcVideoTaskComplete` / `AigcImageTaskComplete` and
 *   `AigcVideoCompleteEvent` / `AigcImageCompleteEvent` (an AigcVideoTask / AigcImageTask, incl. SessionId and
 *   SessionContext), sent when the task reaches FINISH (success or failure).
 * - PUSH ("HTTP 回调"): the event is POSTed as JSON to NotificationUrl. With a SignKey, the notification carries
 *   `Sign` and `T` fields ("配置后将在回调中发送Sign与T字段…并将其放在通知消息里"): they are top-level fields of
 *   the JSON body, beside EventType, as in Tencent's other MD5(key + t) callbacks (e.g. TIW: ExpireTime/Sign in
 *   the body). T = expiry in unix seconds, 10 minutes ahead ("默认过期时间是10分钟"); Sign = MD5(SignKey + T), hex.
 * - PULL ("可靠回调"): events queue per SubAppId. PullEvents long-polls ("请求最多挂起5秒"), returns at most 16
 *   events ("每次最多可以获取16个事件通知"), each with an EventHandle; an event not confirmed within 30 s is pulled
 *   again ("否则该事件通知在30秒后会再次被拉取到"); ConfirmEvents with an expired handle is a parameter error
 *   ("超出 30 秒会报参数错误（4000）" → InvalidParameter); events are kept 4 days ("最多保留4天").
 *   With no event after the long poll, the answer is an empty EventSet (GUESS: the SDK only says it may be null).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SimHost } from '../host';
import type { SimJob } from '../jobs';
import { TError } from './errors';
import { aigcTask, tMeta } from './tasks';

export interface TEventSettings {
  /** How long PullEvents waits for an event when none is queued (T: 5 s). */
  pullWaitMs: number;
  /** How long a pulled event stays invisible awaiting ConfirmEvents (T: 30 s). */
  confirmWindowMs: number;
}

export const DEFAULT_EVENT_SETTINGS: TEventSettings = { pullWaitMs: 5_000, confirmWindowMs: 30_000 };

const RETENTION_MS = 4 * 24 * 3600_000;
const MAX_PULL = 16;
/** "来自腾讯云的消息通知默认过期时间是10分钟". */
const SIGN_TTL_S = 600;

export interface EventConfig {
  Mode: 'PUSH' | 'PULL';
  NotificationUrl: string;
  UploadMediaCompleteEventSwitch: 'ON' | 'OFF';
  DeleteMediaCompleteEventSwitch: 'ON' | 'OFF';
  PersistenceCompleteEventSwitch: 'ON' | 'OFF';
  SignKey: string;
}

interface QueuedEvent {
  id: string;
  subAppId: number;
  content: Record<string, unknown>;
  queuedAt: number;
  /** Hidden until then after a pull (awaiting ConfirmEvents). */
  visibleAt: number;
  /** The handle of the latest pull, and until when it can be confirmed. */
  handle?: string;
  handleExpiresAt?: number;
}

function defaultConfig(): EventConfig {
  return {
    Mode: 'PUSH',
    NotificationUrl: '',
    UploadMediaCompleteEventSwitch: 'OFF',
    DeleteMediaCompleteEventSwitch: 'OFF',
    PersistenceCompleteEventSwitch: 'OFF',
    SignKey: '',
  };
}

export const md5Hex = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex');

export class TEvents {
  readonly settings: TEventSettings = { ...DEFAULT_EVENT_SETTINGS };
  private readonly configs = new Map<number, EventConfig>();
  private queue: QueuedEvent[] = [];
  private waiters = new Set<() => void>();

  constructor(private readonly host: SimHost) {}

  config(subAppId: number): EventConfig {
    return this.configs.get(subAppId) ?? defaultConfig();
  }

  modify(subAppId: number, changes: Partial<EventConfig>): void {
    this.configs.set(subAppId, { ...this.config(subAppId), ...changes });
  }

  /** Forgets configurations and queued events (control endpoint). */
  reset(): void {
    this.configs.clear();
    this.queue = [];
  }

  /** The EventContent for a finished task. */
  eventFor(job: SimJob): Record<string, unknown> {
    const meta = tMeta(job);
    const video = meta.taskType === 'AigcVideoTask';
    return {
      EventType: video ? 'AigcVideoTaskComplete' : 'AigcImageTaskComplete',
      [video ? 'AigcVideoCompleteEvent' : 'AigcImageCompleteEvent']: aigcTask(this.host, job, meta.baseUrl),
    };
  }

  /** Called when a T job reaches FINISH: pushes or queues its completion event, as its SubAppId is configured. */
  taskFinished(job: SimJob): void {
    const meta = tMeta(job);
    const config = this.config(meta.subAppId);
    const content = this.eventFor(job);
    if (config.Mode === 'PULL') {
      const now = this.host.now();
      this.queue.push({ id: randomBytes(8).toString('hex'), subAppId: meta.subAppId, content, queuedAt: now, visibleAt: now });
      this.wake();
      return;
    }
    if (!config.NotificationUrl) return;
    this.push(config, content, job.id);
  }

  private push(config: EventConfig, content: Record<string, unknown>, jobId: string): void {
    const signed = config.SignKey ? this.sign(config.SignKey, content) : content;
    this.host.callbacks.send(
      'T',
      {
        url: config.NotificationUrl,
        body: JSON.stringify(signed),
        headers: { 'content-type': 'application/json' },
        // The bad-signature fault: a Sign that does not match MD5(SignKey + T).
        corrupt: (headers, body) => {
          const parsed = JSON.parse(body) as Record<string, unknown>;
          if (typeof parsed.Sign === 'string') parsed.Sign = md5Hex(`not-the-key${String(parsed.T)}`);
          return { headers, body: JSON.stringify(parsed) };
        },
      },
      jobId,
    );
  }

  private sign(signKey: string, content: Record<string, unknown>): Record<string, unknown> {
    const t = Math.floor(this.host.now() / 1000) + SIGN_TTL_S;
    return { ...content, T: t, Sign: md5Hex(`${signKey}${t}`) };
  }

  /** PullEvents: up to 16 visible events of the SubAppId, waiting up to `pullWaitMs` for one to arrive. */
  async pull(subAppId: number): Promise<Record<string, unknown>[]> {
    const deadline = this.host.now() + this.settings.pullWaitMs;
    for (;;) {
      const events = this.take(subAppId);
      const left = deadline - this.host.now();
      if (events.length > 0 || left <= 0) return events;
      // Sleep until an event is queued, or a pulled-but-unconfirmed one becomes visible again, or the deadline.
      const nextVisible = Math.min(...this.queue.filter((e) => e.subAppId === subAppId).map((e) => e.visibleAt - this.host.now()), left);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(10, nextVisible));
        timer.unref();
        const waiters = this.waiters;
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        waiters.add(done);
      });
    }
  }

  private take(subAppId: number): Record<string, unknown>[] {
    const now = this.host.now();
    this.queue = this.queue.filter((e) => now - e.queuedAt < RETENTION_MS);
    const due = this.queue.filter((e) => e.subAppId === subAppId && e.visibleAt <= now).slice(0, MAX_PULL);
    return due.map((e) => {
      e.handle = `${e.id}${randomBytes(8).toString('hex')}`;
      e.handleExpiresAt = now + this.settings.confirmWindowMs;
      e.visibleAt = now + this.settings.confirmWindowMs;
      return { EventHandle: e.handle, ...e.content };
    });
  }

  /** ConfirmEvents: every handle must be the latest of a queued event and still within its window; then they go. */
  confirm(subAppId: number, handles: readonly string[]): void {
    const now = this.host.now();
    const found = handles.map((h) => this.queue.find((e) => e.subAppId === subAppId && e.handle === h));
    const bad = handles.find((_, i) => {
      const e = found[i];
      return !e || (e.handleExpiresAt ?? 0) < now;
    });
    if (bad !== undefined)
      throw new TError(
        'InvalidParameter',
        `The event handle ${bad} is not valid or has expired (handles must be confirmed within ${this.settings.confirmWindowMs / 1000} s).`,
      );
    const done = new Set(found);
    this.queue = this.queue.filter((e) => !done.has(e));
  }

  private wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }
}
