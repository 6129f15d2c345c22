/**
 * The OpenAPI part of client webhooks and the event stream: the request fields every generation
 * request takes, the delivery routes, the key's secret and the SSE stream. Registered by api/openapi.ts.
 */
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../core/webhooks';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhooks/url';

/** The webhook fields of a generation request (webhooks/targets.ts checks them). */
export const webhookRequestFields = {
  webhook_url: z
    .string()
    .max(MAX_WEBHOOK_URL_LENGTH)
    .optional()
    .describe(
      "Where the task's events are POSTed, signed per Standard Webhooks: an https URL whose host is public (default: the API key's webhook_url)",
    ),
  webhook_events: z
    .array(z.enum(WEBHOOK_EVENTS))
    .min(1)
    .optional()
    .describe('Which events to send (default: succeeded and failed); needs a webhook_url'),
};

const attemptSchema = z.object({
  at: z.string(),
  duration_ms: z.number(),
  status: z.number().int().optional().describe("The receiver's HTTP status; absent when none came"),
  error: z.string().optional(),
  response_excerpt: z.string().optional().describe("The first bytes of the receiver's answer"),
});
const deliveryEventSchema = z
  .object({
    webhook_id: z.string().describe('The webhook-id header: the same on every attempt and redelivery'),
    event: z.enum(WEBHOOK_EVENTS),
    state: z.enum(['pending', 'delivered', 'gone', 'expired', 'superseded']),
    occurred_at: z.string(),
    attempt_count: z.number().int(),
    attempts: z.array(attemptSchema).describe('The last 20 attempts'),
  })
  .meta({ id: 'WebhookDelivery' });

/** One event of the stream, as SSE parsers (and schemathesis) read it: its fields, `data` unparsed. */
const sseEventSchema = z
  .object({
    id: z.string().optional().describe('`<status>:<progress>` of the record: send it back as Last-Event-ID'),
    event: z
      .enum(['message', 'timeout'])
      .optional()
      .describe('`message` (the default): a task record; `timeout`: the stream reached its bound'),
    data: z.string().describe('The task record as JSON (as GET /v1/generations/{task_id}); for `timeout`, {"message"}'),
    retry: z.number().int().optional(),
  })
  .meta({ id: 'TaskEvent' });

const taskParams = z.object({ task_id: z.string().describe('The id returned at submission') });
const json = (schema: z.ZodType) => ({ 'application/json': { schema } });

export function registerWebhooks(
  registry: OpenAPIRegistry,
  errorResponse: (description: string) => ResponseConfig,
  commonErrors: Record<string, ResponseConfig>,
): void {
  const notFound = errorResponse("No such task (or another key's)");
  registry.registerPath({
    method: 'get',
    path: '/v1/webhooks/default/secret',
    summary: "The API key's webhook signing secret (whsec_…), to verify deliveries with",
    security: [{ bearerAuth: [] }],
    responses: {
      200: { description: 'The secret', content: json(z.object({ key: z.string() })) },
      404: errorResponse('This gateway has no signing secret for the key'),
      ...commonErrors,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/generations/{task_id}/deliveries',
    summary: "The task's webhook events and each one's attempts",
    security: [{ bearerAuth: [] }],
    request: { params: taskParams },
    responses: {
      200: {
        description: 'The deliveries',
        content: json(
          z.object({
            object: z.literal('list'),
            task_id: z.string(),
            webhook_url: z.string().nullable(),
            data: z.array(deliveryEventSchema),
          }),
        ),
      },
      404: notFound,
      ...commonErrors,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/generations/{task_id}/deliveries/redeliver',
    summary: "Send the task's last webhook event again (a new attempt, the same webhook-id)",
    security: [{ bearerAuth: [] }],
    request: { params: taskParams },
    responses: {
      202: {
        description: 'Queued',
        content: json(
          z.object({ task_id: z.string(), webhook_id: z.string(), event: z.enum(WEBHOOK_EVENTS), state: z.literal('pending') }),
        ),
      },
      404: notFound,
      409: errorResponse('The task has no webhook event yet'),
      ...commonErrors,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/generations/{task_id}/events',
    summary: 'The task as a Server-Sent Events stream',
    description:
      'Sends the task record (as GET /v1/generations/{task_id}) on every status or progress change, with id `<status>:<progress>`, and ends after the final one. Send Last-Event-ID to resume. A `: heartbeat` comment every 15 s; at the sync bound an `event: timeout` asks the client to reconnect. A key holds at most KEY_MAX_STREAMS (20) open streams per server (429 beyond), a server API_MAX_STREAMS (500; 503 beyond).',
    security: [{ bearerAuth: [] }],
    request: {
      params: taskParams,
      headers: z.object({ 'Last-Event-ID': z.string().optional().describe('The id of the last event received') }),
    },
    responses: {
      200: { description: 'The event stream', content: { 'text/event-stream': { schema: sseEventSchema } } },
      404: notFound,
      ...commonErrors,
      429: errorResponse(
        'Rate limit reached, or (code too_many_streams) the key already holds its maximum of open streams on this server (KEY_MAX_STREAMS or its max_streams; see Retry-After)',
      ),
      503: errorResponse(
        'Temporal (the task store) is unavailable, or (code streams_at_capacity) this server holds its maximum of open streams (API_MAX_STREAMS; see Retry-After)',
      ),
    },
  });
}
