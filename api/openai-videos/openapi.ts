/** The Videos API's part of GET /openapi.json (api/openapi.ts assembles the document). */
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { webhookRequestFields } from '../openapi-webhooks';
import { errorSchema } from '../response-schemas';
import { videoListQuerySchema } from './list';
import { UPLOAD_MAX_BYTES } from './multipart';

const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
const error = (description: string): ResponseConfig => ({ description, content: json(errorSchema) });

const COMMON: Record<string, ResponseConfig> = {
  401: error('Missing or invalid API key'),
  405: error('Method not allowed on this path (see the Allow header)'),
  429: error('Rate limit or in-flight task cap reached (see Retry-After)'),
  500: error('Internal error'),
  503: error('Temporal (the task store) is unavailable'),
};

/** OpenAI's `video` object (api/openai-videos/video-object.ts). */
export const videoObjectSchema = z
  .object({
    id: z.string().describe('The task id: the same task at GET /v1/generations/{id}'),
    object: z.literal('video'),
    model: z.string(),
    status: z.enum(['queued', 'in_progress', 'completed', 'failed']),
    progress: z.number().int().min(0).max(100),
    created_at: z.number().int().describe('Unix seconds'),
    completed_at: z.number().int().nullable(),
    expires_at: z.number().int().nullable().describe('When retention (RESULT_RETENTION_DAYS) deletes the stored video'),
    prompt: z.string().nullable(),
    seconds: z.string().nullable(),
    size: z.string().nullable().describe('WxH'),
    remixed_from_video_id: z.null(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .meta({ id: 'Video', description: "OpenAI's video object" });

const createFields = {
  model: z.string().describe('A video model id of GET /v1/models'),
  prompt: z.string().optional(),
  seconds: z
    .union([z.string(), z.number()])
    .optional()
    .describe('A duration the model takes (docs/api.md "Videos API"), as a string or a number'),
  size: z.string().optional().describe('WxH, mapped to the model\'s ratio and resolution (docs/api.md "Videos API")'),
};

const createJson = z
  .looseObject({ ...createFields, input_reference: z.object({ image_url: z.string() }).optional(), ...webhookRequestFields })
  .describe('Also any field of VideoGenerationRequest (generate_audio, ratio, resolution, last_frame_url…)');
const createForm = z.looseObject({
  ...createFields,
  seconds: z.string().optional(),
  input_reference: z
    .string()
    .meta({ format: 'binary' })
    .optional()
    .describe(`A PNG, JPEG or WebP image of at most ${UPLOAD_MAX_BYTES / (1024 * 1024)} MiB`),
  webhook_url: webhookRequestFields.webhook_url,
  webhook_events: z
    .string()
    .optional()
    .describe('As JSON (["running","succeeded"]) or comma-separated (running,succeeded); needs a webhook_url'),
});

/** Video ids are task ids, which start `task_` (the router matches only those: routes.ts VIDEO_PATH). */
const idParams = z.object({
  video_id: z
    .string()
    .regex(/^task_[A-Za-z0-9_-]{1,123}$/)
    .describe('A video id (a task id)'),
});
const binary = { schema: z.string().meta({ format: 'binary' }) };
const media = { 'video/mp4': binary, 'image/jpeg': binary, 'image/png': binary, 'image/webp': binary, 'application/octet-stream': binary };

function registerCreateAndList(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/v1/videos',
    summary: 'Create a video (OpenAI Videos API): a task, queued',
    security: [{ bearerAuth: [] }],
    request: {
      headers: z.object({ 'Idempotency-Key': z.string().max(255).optional() }),
      body: { required: true, content: { 'application/json': { schema: createJson }, 'multipart/form-data': { schema: createForm } } },
    },
    responses: {
      200: { description: 'The video, queued', content: json(videoObjectSchema) },
      400: error(
        'Invalid request (error.param names the field: size and seconds list what the model takes; an image model is refused naming model; a form field that is not UTF-8, or holds a NUL, is refused naming it)',
      ),
      402: error(
        "The key's budget does not cover the video: its estimated cost exceeds what remains (code budget_exceeded; error.budget names period, budget and what remains), or the budget cannot price its model (code unpriced_model); nothing was started",
      ),
      403: error('The API key may not use this model'),
      408: error('The body did not arrive in time'),
      409: error(
        'Idempotency-Key reused with a different body (idempotency_key_reused), or its first request is still starting the task (idempotency_key_in_use, with Retry-After)',
      ),
      413: error(`Upload larger than ${UPLOAD_MAX_BYTES / (1024 * 1024)} MiB, or a JSON body over 1 MiB`),
      415: error('The upload is not a PNG, JPEG or WebP image, or the body is neither JSON nor a form'),
      ...COMMON,
      429: error(
        "Rate limit or in-flight task cap reached, or (code uploads_per_key) this key's uploads in progress would hold more than half of UPLOADS_MAX_MEMORY_BYTES (see Retry-After)",
      ),
      503: error(
        'Temporal (the task store) is unavailable, or (code uploads_busy) the uploads in progress hold UPLOADS_MAX_MEMORY_BYTES already (see Retry-After)',
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/videos',
    summary: "The key's videos (every video task, whichever endpoint created it), by creation time",
    security: [{ bearerAuth: [] }],
    request: {
      query: videoListQuerySchema.extend({ limit: videoListQuerySchema.shape.limit.meta({ type: 'integer', minimum: 1, maximum: 100 }) }),
    },
    responses: {
      200: {
        description: 'One page',
        content: json(
          z.object({
            object: z.literal('list'),
            data: z.array(videoObjectSchema),
            first_id: z.string().nullable(),
            last_id: z.string().nullable(),
            has_more: z.boolean(),
          }),
        ),
      },
      400: error('Invalid query parameter (error.param names it)'),
      ...COMMON,
    },
  });
}

function registerOne(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/videos/{video_id}',
    summary: 'One video',
    security: [{ bearerAuth: [] }],
    request: { params: idParams },
    responses: {
      200: { description: 'The video', content: json(videoObjectSchema) },
      404: error("No such video (or another key's)"),
      ...COMMON,
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/v1/videos/{video_id}',
    summary: "Delete a finished video's stored outputs",
    security: [{ bearerAuth: [] }],
    request: { params: idParams },
    responses: {
      200: {
        description: 'Deleted',
        content: json(z.object({ id: z.string(), object: z.literal('video.deleted'), deleted: z.literal(true) })),
      },
      404: error("No such video (or another key's)"),
      409: error('Still queued or in progress: cancel it first (POST /v1/generations/{id}/cancel)'),
      ...COMMON,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/videos/{video_id}/content',
    summary: "A finished video's stored bytes: the video, a thumbnail or a spritesheet (HTTP ranges supported)",
    security: [{ bearerAuth: [] }],
    request: {
      params: idParams,
      query: z.object({ variant: z.enum(['video', 'thumbnail', 'spritesheet']).optional() }),
      headers: z.object({ Range: z.string().optional() }),
    },
    responses: {
      200: { description: 'The file', content: media },
      206: { description: 'The requested byte range', content: media },
      304: { description: 'If-None-Match names the current ETag' },
      400: error('Unknown variant'),
      404: error('No such video, no content yet, or the variant cannot be made (variant_unavailable)'),
      410: error('The stored video was deleted (DELETE, or RESULT_RETENTION_DAYS)'),
      416: error('The range cannot be satisfied'),
      ...COMMON,
    },
  });
}

function registerNotOffered(registry: OpenAPIRegistry): void {
  const notOffered = { 404: error('Not offered by this gateway (remix, edits, extensions and characters)'), ...COMMON };
  for (const path of ['/v1/videos/edits', '/v1/videos/extensions', '/v1/videos/characters']) {
    registry.registerPath({ method: 'post', path, summary: 'Not offered (404)', security: [{ bearerAuth: [] }], responses: notOffered });
  }
  registry.registerPath({
    method: 'post',
    path: '/v1/videos/{video_id}/remix',
    summary: 'Not offered (404)',
    security: [{ bearerAuth: [] }],
    request: { params: z.object({ video_id: z.string() }) },
    responses: notOffered,
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/videos/characters/{character_id}',
    summary: 'Not offered (404)',
    security: [{ bearerAuth: [] }],
    request: { params: z.object({ character_id: z.string() }) },
    responses: notOffered,
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/videos/inputs/{name}',
    summary: 'For the platforms: an uploaded reference image, by the signed link handed to them',
    security: [],
    request: { params: z.object({ name: z.string() }), query: z.object({ token: z.string() }) },
    responses: {
      200: { description: 'The image', content: media },
      403: error('The link token is missing, altered or expired'),
      404: error('No such input'),
      410: error('Deleted by retention'),
    },
  });
}

export function registerVideosApi(registry: OpenAPIRegistry): void {
  registerCreateAndList(registry);
  registerOne(registry);
  registerNotOffered(registry);
}
