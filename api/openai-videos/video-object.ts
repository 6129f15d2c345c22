/**
 * A task as OpenAI's `video` object (the `openai` npm package's openai/resources/videos.d.ts `Video`): the same task
 * record every other endpoint reads, in OpenAI's words. Pure.
 */
import type { Catalogue } from '../../core/catalogue';
import type { TaskStatus } from '../../core/task';
import type { TaskView } from '../../tasks/record';
import { sizeOfFields } from './sizes';

export interface VideoObject {
  id: string;
  object: 'video';
  model: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  progress: number;
  created_at: number;
  completed_at: number | null;
  expires_at: number | null;
  prompt: string | null;
  seconds: string | null;
  size: string | null;
  remixed_from_video_id: null;
  error: { code: string; message: string } | null;
}

const STATUS: Record<TaskStatus, VideoObject['status']> = {
  pending: 'queued',
  running: 'in_progress',
  success: 'completed',
  failed: 'failed',
};

const unixSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

export interface VideoObjectOptions {
  catalogue: Catalogue;
  /** RESULT_RETENTION_DAYS: stored outputs are deleted this long after they were written (0: kept forever). */
  retentionDays: number;
}

/** The record's `progress` ("40%") as a number; a finished task is at 100, a queued one at 0. */
function progressOf(view: TaskView): number {
  if (view.record.status === 'success') return 100;
  const shown = typeof view.record.progress === 'string' ? Number.parseInt(view.record.progress, 10) : (view.memo.progress ?? 0);
  return Number.isFinite(shown) ? Math.max(0, Math.min(100, shown)) : 0;
}

export function toVideoObject(view: TaskView, opts: VideoObjectOptions): VideoObject {
  const { record, memo } = view;
  const asked = memo.asked ?? {};
  const finished = record.status === 'success' || record.status === 'failed';
  // A success completed when its result was recorded: its run may still be open then (its final webhook event's
  // first attempt, which a receiver reading the video inside its handler waits on), and closes after that attempt.
  const recorded = record.status === 'success' ? memo.result?.created : undefined;
  const completedAt = recorded ?? (finished && view.closeTime ? unixSeconds(view.closeTime) : null);
  // The platform's own report of the length (the result's `duration` extra) where the request named none.
  const seconds = asked.seconds ?? (typeof record.duration === 'number' ? record.duration : undefined);
  const ratio = asked.ratio ?? (typeof record.ratio === 'string' ? record.ratio : undefined);
  const entry = opts.catalogue.find('video', record.model);
  return {
    id: record.task_id,
    object: 'video',
    model: record.model,
    status: STATUS[record.status],
    progress: progressOf(view),
    created_at: unixSeconds(view.startTime),
    completed_at: completedAt,
    // Retention deletes a stored output RESULT_RETENTION_DAYS after it was written, i.e. after the task finished.
    expires_at:
      record.status === 'success' && completedAt !== null && opts.retentionDays > 0 ? completedAt + opts.retentionDays * 86_400 : null,
    prompt: asked.prompt ?? null,
    seconds: seconds === undefined ? null : String(seconds),
    size: asked.size ?? sizeOfFields(entry, ratio, asked.resolution) ?? null,
    remixed_from_video_id: null,
    error:
      record.status === 'failed'
        ? { code: record.error?.code ?? 'upstream_failed', message: record.error?.message ?? 'The task failed' }
        : null,
  };
}
