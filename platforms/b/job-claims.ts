/**
 * Which submit (by dedup key) owns each upstream job this worker process created or adopted. B cannot tell two
 * jobs with identical requests apart (lost-answer.ts), so when a lost answer is reconciled, a job this worker knows
 * to be another submit's is never adopted, and one it knows to be this submit's is adopted at once. Memory only,
 * bounded: it narrows the window for tasks on the same worker; across workers and restarts, lost-answer.ts's rules
 * alone apply (docs/platforms/b.md#lost-answers).
 */

/** Longer than any task can keep reconciling: the video deadline (60 min) with room to spare. */
export const CLAIM_TTL_MS = 2 * 3600_000;
export const MAX_CLAIMS = 20_000;

export class JobClaims {
  /** Insertion order is claim order, so the oldest claims are evicted first. */
  private readonly owners = new Map<string, { owner: string; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  claim(jobId: string, owner: string): void {
    this.owners.delete(jobId);
    this.owners.set(jobId, { owner, at: this.now() });
    this.prune();
  }

  ownerOf(jobId: string): string | undefined {
    const claim = this.owners.get(jobId);
    return claim && this.now() - claim.at <= CLAIM_TTL_MS ? claim.owner : undefined;
  }

  private prune(): void {
    const oldest = this.now() - CLAIM_TTL_MS;
    for (const [id, claim] of this.owners) {
      if (claim.at >= oldest && this.owners.size <= MAX_CLAIMS) break;
      this.owners.delete(id);
    }
  }
}
