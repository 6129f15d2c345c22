/**
 * Platform V's wire shapes, transcribed from the official Ark SDK (volcengine-ark-runtime 5.0.54, Python; there is
 * no official TypeScript SDK to import types from):
 * - create parameters: `resources/content_generation/tasks.py` `Tasks.create` (model, content, safety_identifier,
 *   callback_url, return_last_frame, service_tier, execution_expires_after, priority, generate_audio, draft,
 *   camera_fixed, watermark, seed, resolution, ratio, duration, frames, tools, output_format,
 *   omni_reference_task_type);
 * - content items: `types/content_generation/create_task_content_param.py`;
 * - the task object: `types/content_generation/content_generation_task.py` `ContentGenerationTask`;
 * - the list: `Tasks.list` (query page_num, page_size, filter.status, filter.task_ids, filter.model,
 *   filter.service_tier) → `ListContentGenerationTasksResponse` {total, items: ContentGenerationTask[]}.
 * Only what the adapter sends or reads is declared; the names are the SDK's, letter for letter.
 */

export type ArkContentItem =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string }; role: 'first_frame' | 'last_frame' | 'reference_image' }
  | { type: 'video_url'; video_url: { url: string }; role: 'reference_video' }
  | { type: 'audio_url'; audio_url: { url: string }; role: 'reference_audio' };

/** `{"type": "web_search"}` (ContentGenerationTool). */
export interface ArkTool {
  type: 'web_search';
}

/** The path of Ark's content-generation tasks under its API base (create: POST, read: GET …/{id}, list: GET). */
export const ARK_TASKS_PATH = '/contents/generations/tasks';

/** The body of `POST /contents/generations/tasks` (Tasks.create). */
export interface ArkCreateTaskRequest {
  model: string;
  content: ArkContentItem[];
  return_last_frame?: boolean;
  /** Seconds the job may take before the platform gives up on it (status `expired`). */
  execution_expires_after?: number;
  generate_audio?: boolean;
  draft?: boolean;
  /** `default` (online) or `flex` (the offline tier); absent: online. */
  service_tier?: 'default' | 'flex';
  watermark?: boolean;
  seed?: number;
  resolution?: string;
  ratio?: string;
  duration?: number;
  tools?: ArkTool[];
  /** Ark POSTs the task object here on each status change (platforms/v/announcements.ts). */
  callback_url?: string;
}

export type ArkTaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired';

/**
 * ContentGenerationTask. Note what it does NOT carry: the request's `content` (prompt, image and video URLs) —
 * its `content` is the output ({video_url, last_frame_url}). Of the request it echoes only the parameters:
 * model, seed, resolution, ratio, duration, generate_audio, draft, service_tier, execution_expires_after,
 * priority, tools, safety_identifier.
 */
export interface ArkTask {
  id: string;
  model?: string;
  status: ArkTaskStatus;
  error?: { code?: string; message?: string } | null;
  content?: { video_url?: string; last_frame_url?: string } | null;
  usage?: { completion_tokens?: number; total_tokens?: number };
  /** Unix seconds. */
  created_at?: number;
  updated_at?: number;
  seed?: number;
  duration?: number;
  ratio?: string;
  resolution?: string;
  generate_audio?: boolean;
  draft?: boolean;
  service_tier?: string;
  execution_expires_after?: number;
}

/** ListContentGenerationTasksResponse. */
export interface ArkTaskList {
  total?: number;
  items?: ArkTask[];
}

/** Ark's error replies: HTTP status + `{"error": {"code", "message", "param", "type"}}`. */
export interface ArkErrorBody {
  error?: { code?: string; message?: string; param?: string; type?: string };
}
