/**
 * Simulated upstream jobs, shared by the three protocols. A job's state is a function of time: queued for the
 * first quarter of its duration, running (with progress) until it ends, then succeeded or failed as its
 * directives say. Cancelling works only while queued.
 *
 * Jobs are kept in a JSON file (SIM_DATA_FILE, under data/ for `npm start`) and reloaded at start, so a job
 * submitted before a simulator restart is still there afterwards — as a real platform's jobs outlive its API
 * servers. Writes are debounced and atomic (temporary file, then rename): a crash loses at most the last few
 * milliseconds of changes, never the file.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FirstTimes, type Directives } from './directives';
import type { SimKind, SimPlatform } from './vocabulary';

export type SimState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface SimJob {
  id: string;
  platform: SimPlatform;
  kind: SimKind;
  /** The model as the platform names it (V model id, T `ModelName/ModelVersion`, B model code). */
  model: string;
  createdAt: number;
  durationMs: number;
  directives: Directives;
  /** How many result files (images: `n`). */
  outputs: number;
  /** The platform's dedup key, where it has one (T SessionId). */
  dedupKey?: string;
  /** Platform-specific data echoed in task views and lists (the request as received, options…). JSON only. */
  meta: Record<string, unknown>;
  cancelledAt?: number;
  pollFaultsLeft: number;
  /** A phase the job is held in, whatever the time (`[sim:hold]`, then JobStore.advance); absent: time decides. */
  heldIn?: 'queued' | 'running';
}

export interface JobView {
  state: SimState;
  progress: number;
}

/** Jobs older than this are forgotten at load: every platform's task query window is 7 days or less. */
const RETENTION_MS = 8 * 24 * 3600_000;

export interface JobStoreOptions {
  defaultDurationMs: () => number;
  /** Where jobs are kept; undefined = memory only. */
  file?: string;
  now?: () => number;
}

export class JobStore {
  private readonly jobs = new Map<string, SimJob>();
  /** Jobs created so far per platform and prompt, for `[sim:fail=…xN]` (only the first N fail). */
  private readonly failTimes = new FirstTimes();
  private saveTimer?: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly opts: JobStoreOptions) {
    this.now = opts.now ?? Date.now;
    this.load();
  }

  create(fields: Omit<SimJob, 'id' | 'createdAt' | 'durationMs' | 'pollFaultsLeft'>, idPrefix: string, id?: string): SimJob {
    let directives = fields.directives;
    if (directives.failTimes !== undefined) {
      if (!this.failTimes.take(`${fields.platform}\n${directives.prompt ?? ''}`, directives.failTimes))
        directives = { ...directives, fail: undefined };
    }
    const job: SimJob = {
      ...fields,
      directives,
      id: id ?? `${idPrefix}${this.now().toString(36)}${randomBytes(6).toString('hex')}`,
      createdAt: this.now(),
      durationMs: directives.durationMs ?? this.opts.defaultDurationMs(),
      pollFaultsLeft: directives.pollFault?.times ?? 0,
      ...(directives.hold ? { heldIn: 'queued' as const } : {}),
    };
    this.jobs.set(job.id, job);
    this.changed();
    return job;
  }

  get(id: string): SimJob | undefined {
    return this.jobs.get(id);
  }

  /** One platform's jobs, oldest first. */
  all(platform: SimPlatform): SimJob[] {
    return [...this.jobs.values()].filter((j) => j.platform === platform);
  }

  /** The platform's job with this dedup key created within `windowMs`, if any. */
  byDedupKey(platform: SimPlatform, key: string, windowMs: number): SimJob | undefined {
    const since = this.now() - windowMs;
    return this.all(platform).find((j) => j.dedupKey === key && j.createdAt >= since);
  }

  view(job: SimJob, now = this.now()): JobView {
    if (job.cancelledAt !== undefined) return { state: 'cancelled', progress: 0 };
    if (job.heldIn === 'queued') return { state: 'queued', progress: 0 };
    if (job.heldIn === 'running') return { state: 'running', progress: 50 };
    const elapsed = now - job.createdAt;
    if (job.directives.never) {
      return elapsed < job.durationMs / 4 ? { state: 'queued', progress: 0 } : { state: 'running', progress: 50 };
    }
    if (elapsed >= job.durationMs) {
      return job.directives.fail ? { state: 'failed', progress: 100 } : { state: 'succeeded', progress: 100 };
    }
    if (elapsed < job.durationMs / 4) return { state: 'queued', progress: 0 };
    // Progress in steps of 10, like the platforms that report it.
    const pct = Math.floor(((elapsed - job.durationMs / 4) / ((job.durationMs * 3) / 4)) * 10) * 10;
    return { state: 'running', progress: Math.min(90, Math.max(0, pct)) };
  }

  /** When the job reaches its terminal state (undefined: never, or already cancelled). */
  finishesAt(job: SimJob): number | undefined {
    if (job.cancelledAt !== undefined || job.directives.never || job.heldIn) return undefined;
    return job.createdAt + job.durationMs;
  }

  /**
   * When the job reached a final state (succeeded, failed, cancelled), if it has by `now`; a job the store no longer
   * holds (forgotten, or the simulator reset) ended no later than `now`. Undefined while it is queued or running.
   */
  endedAt(job: SimJob, now = this.now()): number | undefined {
    if (this.jobs.get(job.id) !== job) return now;
    const { state } = this.view(job, now);
    if (state === 'cancelled') return job.cancelledAt ?? now;
    if (state === 'succeeded' || state === 'failed') return job.createdAt + job.durationMs;
    return undefined;
  }

  /**
   * Moves a job on now, whatever its timing (tests): `running` holds it running until advanced again; `done` ends it
   * now, succeeded or failed as its directives say (a `[sim:never]` job included). False for a cancelled job.
   */
  advance(job: SimJob, to: 'running' | 'done'): boolean {
    if (job.cancelledAt !== undefined) return false;
    if (to === 'running') {
      job.heldIn = 'running';
    } else {
      delete job.heldIn;
      job.directives = { ...job.directives, never: false };
      job.durationMs = Math.max(1, this.now() - job.createdAt);
    }
    this.changed();
    return true;
  }

  /** Cancels a queued job; false when it is past cancelling. */
  cancel(job: SimJob): boolean {
    if (this.view(job).state !== 'queued') return false;
    job.cancelledAt = this.now();
    this.changed();
    return true;
  }

  /** Records a change made to a job's fields by a platform module (e.g. a poll fault used up). */
  changed(): void {
    if (!this.opts.file || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
    }, 50);
    this.saveTimer.unref();
  }

  /** Forgets one job, as a platform does past its retention (tests: a job the platform lost). */
  forget(id: string): boolean {
    const known = this.jobs.delete(id);
    if (known) this.changed();
    return known;
  }

  clear(): void {
    this.jobs.clear();
    this.failTimes.clear();
    this.changed();
  }

  /** Writes pending changes now (on close). */
  flush(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.save();
  }

  private save(): void {
    const file = this.opts.file;
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, jobs: [...this.jobs.values()] }));
    renameSync(tmp, file);
  }

  private load(): void {
    const file = this.opts.file;
    if (!file) return;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const saved = JSON.parse(text) as { version?: number; jobs?: SimJob[] };
    const oldest = this.now() - RETENTION_MS;
    for (const job of saved.jobs ?? []) if (job.createdAt >= oldest) this.jobs.set(job.id, job);
  }
}

export function resultUrls(baseUrl: string, job: SimJob): string[] {
  const ext = job.kind === 'video' ? 'mp4' : 'png';
  return Array.from({ length: job.outputs }, (_, i) => `${baseUrl}/files/${job.id}-${i}.${ext}`);
}
