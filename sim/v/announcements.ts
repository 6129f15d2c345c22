/**
 * Platform V's per-task callbacks: a create with `callback_url` gets the task object POSTed to that URL on every
 * status change ("当视频生成任务有状态变化时…推送 POST 请求，回调请求内容结构与查询任务 API 的返回体一致"; the
 * statuses pushed include queued, so the first callback goes out when the task is created). The body is exactly
 * what GET /contents/generations/tasks/{id} answers at that moment. Ark does not sign its callbacks, so the
 * `bad-signature` fault has nothing to corrupt here.
 *
 * Changes come from the host's transition watcher (queued → running → succeeded/failed, cancelled); `expired`
 * is V's own status, so a timer per task watches its execution_expires_after. At most one callback per status.
 */
import type { SimHost } from '../host';
import type { SimJob } from '../jobs';
import { expiresAt, taskObject, vMeta, vStatus, type VStatus } from './tasks';

export class VCallbacks {
  /** The last status sent per job, so the watcher and the expiry timer never send one twice. */
  private readonly sent = new Map<string, VStatus>();

  constructor(private readonly host: SimHost) {
    host.onTransition('V', (job) => this.check(job));
  }

  /** After a create: the queued callback, and a timer for the expiry. */
  created(job: SimJob): void {
    if (!vMeta(job).callbackUrl) return;
    this.check(job);
    const delay = expiresAt(job) - this.host.now();
    // Timers beyond a day are not armed: no test waits that long, and a restart forgets them anyway.
    if (delay < 24 * 3600_000) {
      const timer = setTimeout(() => this.check(job), Math.max(0, delay) + 5);
      timer.unref();
    }
  }

  /** Sends the task object if its status changed since the last callback. */
  check(job: SimJob): void {
    const meta = vMeta(job);
    if (!meta.callbackUrl || meta.deletedAt !== undefined) return;
    const status = vStatus(this.host, job);
    if (this.sent.get(job.id) === status) return;
    this.sent.set(job.id, status);
    this.host.callbacks.send(
      'V',
      {
        url: meta.callbackUrl,
        body: JSON.stringify(taskObject(this.host, job, meta.baseUrl)),
        headers: { 'content-type': 'application/json' },
      },
      job.id,
    );
  }
}
