/**
 * Why a stored result is gone. Two things delete a task's stored outputs: the daily retention (results/retention.ts,
 * RESULT_RETENTION_DAYS) and its owner (DELETE /v1/videos/:id). A read finds only that the object is missing, so the
 * owner's delete leaves a small marker beside the outputs (`<task_id>/deleted-by-owner`), and the 410 a later read
 * answers says which it was. The marker is an object like the others, so retention deletes it in its turn; after
 * that a read says retention, which by then is true as well.
 */
import { Readable } from 'node:stream';
import { ApiError } from './api-error';
import type { ResultStore } from '../results/result-store';

/** Stored keys start with their task's id (`<task_id>/0-result.mp4`, `<task_id>/thumbnail.jpg`). */
const TASK_OF_KEY = /^(task_[A-Za-z0-9_-]+)\//;

const markerKey = (taskId: string) => `${taskId}/deleted-by-owner`;

/** Records that the task's stored outputs were deleted by its owner, now. */
export async function markDeletedByOwner(store: ResultStore, taskId: string): Promise<void> {
  await store.put(markerKey(taskId), Readable.from([Buffer.from(`${new Date().toISOString()}\n`)]), { contentType: 'text/plain' });
}

/**
 * The 410 for a stored object that is no longer there: `content_expired`, saying its owner deleted it (DELETE
 * /v1/videos) when the task's marker says so, else that retention did.
 */
export async function storedContentGone(store: ResultStore, key: string): Promise<ApiError> {
  const taskId = TASK_OF_KEY.exec(key)?.[1];
  const byOwner = taskId !== undefined && (await store.head(markerKey(taskId)).catch(() => undefined)) !== undefined;
  const message = byOwner
    ? `This stored result was deleted by its owner (DELETE /v1/videos/${taskId})`
    : 'This stored result was deleted after the retention period (RESULT_RETENTION_DAYS)';
  return new ApiError(410, 'not_found_error', message, { code: 'content_expired' });
}
