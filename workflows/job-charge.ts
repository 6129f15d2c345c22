/**
 * Whether the platform bills a task's upstream job, followed by the generation workflow as it goes: a task that did
 * not succeed may still be billed, since a platform bills a job it could not stop (T and B have no cancel, V
 * cancels only a queued job). The workflow tells it each answer that decides it — the submit (a job now exists),
 * each poll (the job succeeded or failed upstream, the platform no longer knows it, what it reported it billed), the
 * cancel (whether the platform accepted it) — and reads the charge when the task ends: it goes into the task's memo
 * (`charge`, core/task.ts TaskCharge), where the record's cost reads it, and into the settlement step. It also
 * remembers whether the poll that ended the task settled it already (a success, settled with its last poll).
 *
 * Pure and deterministic: it only records what the workflow already has.
 */
import type { PolledStatus, ReportedUsage, TaskCharge } from '../core/task';

export class JobCharge {
  private job: TaskCharge['job'];
  private usage: ReportedUsage | undefined;
  /** The poll that found the job done also settled the task's ledger entry (PolledStatus.settled). */
  private settled = false;

  /** `resumed`: a continued run, which carries its job on. */
  constructor(resumed: boolean) {
    this.job = resumed ? 'running' : 'none';
  }

  /** A new job was created (also after a transient upstream failure): what an earlier one reported is not its. */
  submitted(): void {
    this.job = 'running';
    this.usage = undefined;
  }

  polled(status: Pick<PolledStatus, 'state' | 'usage' | 'settled'>): void {
    if (status.usage) this.usage = status.usage;
    this.settled = status.settled === true;
    if (status.state === 'success') this.job = 'succeeded';
    else if (status.state === 'failed') this.job = 'failed';
  }

  /** The platform answered that it does not know the job (after the poll's grace): nothing of it is billed. */
  lost(): void {
    this.job = 'lost';
  }

  cancelAnswered(outcome: { cancelled: boolean }): void {
    if (outcome.cancelled) this.job = 'cancelled';
  }

  /** Whether the task's last poll settled its ledger entry, so its end needs no settlement step. */
  settledByPoll(): boolean {
    return this.settled;
  }

  /** The charge as the task ends: billed while the job runs on upstream or succeeded there. */
  charge(): TaskCharge {
    const billed = this.job === 'running' || this.job === 'succeeded';
    return { job: this.job, billed, ...(billed && this.usage ? { usage: this.usage } : {}) };
  }
}
