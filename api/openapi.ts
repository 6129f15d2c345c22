/**
 * GET /openapi.json: an OpenAPI 3.1 document generated from the zod schemas the server validates requests with
 * (platforms/index.ts, assembled from every platform's fields) and builds responses from (api/response-schemas.ts),
 * with the models and routes of the catalogue and route table the app runs with (passed in, never read again from
 * the environment). Built once per app, on first request (api/app.ts).
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type ZodContentObject } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { Catalogue } from '../core/catalogue';
import { imageRequestSchema, videoRequestSchema } from '../platforms';
import type { RouteTable } from '../platforms/routes';
import { ROUTE_EXPLAIN_HEADER, routeExplainHeader, routeExplainResponseHeaders } from './route-explain';
import { MEDIA_EXTENSIONS } from '../results/result-store';
import { registerAdmin, registerUsage } from './openapi-admin';
import { registerOperator } from './openapi-operator';
import {
  errorSchema,
  generationResultSchema,
  listQuerySchema,
  modelListSchema,
  modelSchema,
  routeModelSchema,
  taskListSchema,
  taskRecordSchema,
} from './response-schemas';
import { registerVideosApi } from './openai-videos/openapi';
import { registerWebhooks, webhookRequestFields } from './openapi-webhooks';

const json = (schema: z.ZodType) => ({ 'application/json': { schema } });

function errorResponse(description: string): ResponseConfig {
  return { description, content: json(errorSchema) };
}

const COMMON_ERRORS: Record<string, ResponseConfig> = {
  401: errorResponse('Missing or invalid API key'),
  405: errorResponse('Method not allowed on this path (see the Allow header)'),
  429: errorResponse('Rate limit or in-flight task cap reached (see Retry-After)'),
  500: errorResponse('Internal error'),
  503: errorResponse('Temporal (the task store) is unavailable'),
};

const submitHeaders = (async: boolean) =>
  z.object({
    ...(async
      ? {}
      : {
          // api/routes/generations.ts reads it in any letter case; sent empty it is a malformed value (400), as anything else.
          'X-Async': z
            .string()
            .regex(/^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$/)
            .optional()
            .describe(
              'true or 1 (any letter case) selects asynchronous mode; false, 0 or no header synchronous; anything else, an empty value too, is 400',
            ),
        }),
    'Idempotency-Key': z
      .string()
      .max(255)
      .optional()
      .describe('Same key and body → the same task (never a second job); same key, different body → 409, whatever the timing'),
    'X-Request-Id': z.string().optional().describe('Echoed back; generated when absent'),
    [ROUTE_EXPLAIN_HEADER]: routeExplainHeader,
  });

/** What the document states of the deployment: the app's catalogue and routes (api/api-config.ts ApiConfig). */
export interface OpenApiSources {
  catalogue: Catalogue;
  /** Absent: no routes, as GET /v1/models lists none. */
  routes?: RouteTable;
}

/** The catalogue's ids of one kind, then its routes' names: the document's `model` enum (the server's own check names the field). */
function modelIds(kind: 'video' | 'image', { catalogue, routes }: OpenApiSources): [string, ...string[]] {
  const ids = [
    ...new Set([
      ...catalogue.entries.filter((e) => e.kind === kind).map((e) => e.id),
      ...(routes?.routes ?? []).filter((r) => r.kind === kind).map((r) => r.name),
    ]),
  ];
  return ids as [string, ...string[]];
}

/**
 * The prompt fields as the document states them. The validator's rule is a refinement ("not blank", trimmed),
 * which zod-to-openapi cannot see: stated here as JSON Schema says it, at least one character that is not
 * whitespace (ECMA-262's `\S`, the same set `String.prototype.trim` removes).
 */
function promptFieldsOf(schema: typeof videoRequestSchema | typeof imageRequestSchema): Record<string, z.ZodType> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const fields: Record<string, z.ZodType> = {};
  for (const name of ['prompt', 'negative_prompt']) {
    if (shape[name]) fields[name] = shape[name].meta({ minLength: 1, pattern: '\\S' });
  }
  return fields;
}

/** A generation request's body as the document states it: the server's schema, with the model and prompt enums and rules. */
function generationBody(kind: 'video' | 'image', sources: OpenApiSources): z.ZodType {
  const schema = kind === 'video' ? videoRequestSchema : imageRequestSchema;
  return schema
    .extend({
      model: z
        .enum(modelIds(kind, sources))
        .describe(
          'A model id of GET /v1/models, or a route’s name (owned_by "route"): one request for every member, each taking it as its platform does',
        ),
      ...promptFieldsOf(schema),
      ...webhookRequestFields,
    })
    .meta({ id: kind === 'video' ? 'VideoGenerationRequest' : 'ImageGenerationRequest', description: schema.description });
}

function registerGeneration(registry: OpenAPIRegistry, kind: 'video' | 'image', sources: OpenApiSources): void {
  const body = generationBody(kind, sources);
  const plural = `${kind}s`;
  const failures = {
    400: errorResponse(
      "Invalid request (error.param names the field), or a generation rejected upstream as invalid; for a route, its first member's refusal when no member can take the request",
    ),
    402: errorResponse(
      "The key's budget does not cover the task: its estimated cost exceeds what remains (code budget_exceeded; error.budget names period, budget and what remains; a route reserves its dearest member's estimate), or the budget cannot price its model (code unpriced_model, param model; a route: none of the members that can take the request has a price in the budget's currency); nothing was started",
    ),
    403: errorResponse('The API key may not use this model'),
    409: errorResponse(
      'Idempotency-Key reused with a different body (idempotency_key_reused), or its first request is still starting the task (idempotency_key_in_use, with Retry-After)',
    ),
    408: errorResponse('The body did not arrive within 30 s'),
    413: errorResponse('Body larger than 1 MiB (declared or after decompression)'),
    415: errorResponse('Content-Type is not application/json, or an unsupported Content-Encoding'),
  };
  registry.registerPath({
    method: 'post',
    path: `/v1/${plural}/generations`,
    summary: `Generate ${kind === 'video' ? 'a video' : 'images'} (synchronous; asynchronous with X-Async: true)`,
    description:
      'Synchronous mode waits up to 10 minutes and returns the result. A generation that fails answers 422 (content policy), 400 (rejected as invalid upstream) or 502 (upstream failure), naming error.task_id; past the wait, 504 names the task_id and the task keeps running.',
    security: [{ bearerAuth: [] }],
    request: { headers: submitHeaders(false), body: { required: true, content: json(body) } },
    responses: {
      200: {
        description: 'Sync: the generation result. Async: the task record, status pending.',
        headers: routeExplainResponseHeaders,
        content: json(z.union([generationResultSchema, taskRecordSchema])),
      },
      ...failures,
      ...COMMON_ERRORS,
      422: errorResponse('Sync: the generation was refused for content policy'),
      502: errorResponse('Sync: the generation failed upstream'),
      504: errorResponse('Sync: not finished within the wait; error.task_id names the task, which keeps running'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: `/v1/async/${plural}/generations`,
    summary: `Generate ${kind === 'video' ? 'a video' : 'images'} asynchronously`,
    security: [{ bearerAuth: [] }],
    request: { headers: submitHeaders(true), body: { required: true, content: json(body) } },
    responses: {
      200: {
        description: 'The task record, status pending, with a message on how to poll',
        headers: routeExplainResponseHeaders,
        content: json(taskRecordSchema),
      },
      ...failures,
      ...COMMON_ERRORS,
    },
  });
}

/** The document's header: its version, its title, and the envelope every error answer shares. */
const DOCUMENT_HEADER: Parameters<OpenApiGeneratorV31['generateDocument']>[0] = {
  openapi: '3.1.0',
  info: {
    title: 'mediagate',
    version: '1.0.0',
    description:
      'One HTTP API in front of AI video and image generation platforms T, B and V. Every non-2xx answer is {"error":{"message","type","param","code"}}.',
  },
  security: [{ bearerAuth: [] }],
};

const taskParams = z.object({ task_id: z.string().describe('The id returned at submission') });

/** GET /v1/generations/{task_id} and its legacy twin. */
function registerTaskQueries(registry: OpenAPIRegistry): void {
  for (const path of ['/v1/generations/{task_id}', '/v1/videos/generations/{task_id}']) {
    registry.registerPath({
      method: 'get',
      path,
      summary: path.startsWith('/v1/videos') ? 'Query a task (legacy path; works for image tasks too)' : 'Query a task',
      security: [{ bearerAuth: [] }],
      request: { params: taskParams },
      responses: {
        200: { description: 'The task record', content: json(taskRecordSchema) },
        404: errorResponse("No such task (or another key's)"),
        ...COMMON_ERRORS,
      },
    });
  }
}

function registerCancel(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/v1/generations/{task_id}/cancel',
    summary: 'Cancel a task',
    security: [{ bearerAuth: [] }],
    description: 'No body is needed (an empty POST, e.g. `fetch(url, {method: "POST"})`, is fine); a body, if sent, must be JSON.',
    request: { params: taskParams },
    responses: {
      200: { description: 'The task record after cancellation', content: json(taskRecordSchema) },
      202: {
        description:
          'Cancellation requested and still in progress (a paid submit in flight, or no worker running); the record as it is now',
        content: json(taskRecordSchema),
      },
      404: errorResponse("No such task (or another key's)"),
      409: errorResponse('The task has already finished'),
      415: errorResponse('A non-empty body that is not application/json'),
      ...COMMON_ERRORS,
    },
  });
}

/**
 * A kept file's media types: the type it was stored with (every type the result store keeps), or
 * application/octet-stream when the store knows none.
 */
function mediaContent(): ZodContentObject {
  const binary = { schema: z.string().meta({ format: 'binary' }) };
  return Object.fromEntries([...Object.keys(MEDIA_EXTENSIONS), 'application/octet-stream'].map((type) => [type, binary]));
}

/** GET /v1/generations/{task_id}/content: a kept result file. */
function registerContent(registry: OpenAPIRegistry): void {
  const request = {
    params: taskParams,
    query: z.object({
      index: z.int().min(0).max(9999).optional().describe('Which result (data[index]); default 0. Not with which=last_frame (400)'),
      which: z
        .enum(['result', 'last_frame'])
        .optional()
        .describe("result (the default: data[index]), or V's last frame; which=last_frame takes no index"),
      token: z.string().optional().describe('From a link the API handed out'),
    }),
    headers: z.object({ Range: z.string().optional().describe('bytes=start-end') }),
  };
  const failures: Record<string, string> = {
    400: 'index or which malformed, given twice, or index with which=last_frame (error.param names it)',
    403: 'The link token has expired (link_expired: read the task again for a fresh link) or is not valid (link_invalid)',
    404: "No such task, result or kept copy (or another key's)",
    410: 'The kept copy was deleted after RESULT_RETENTION_DAYS (content_expired)',
    416: 'The range cannot be satisfied',
  };
  const description =
    "The owner's Bearer key, or the expiring signed token of a link the API handed out (so a browser <video> tag needs no header). HTTP Range is supported (206/416); ETag is the sha256 of the bytes.";
  const responses: Record<string, ResponseConfig> = {
    200: { description: 'The file, served as the media type it was kept with', content: mediaContent() },
    206: { description: 'The requested byte range', content: mediaContent() },
    304: { description: 'If-None-Match names the current ETag' },
    ...Object.fromEntries(Object.entries(failures).map(([status, why]) => [status, errorResponse(why)])),
    ...COMMON_ERRORS,
  };
  registry.registerPath({
    method: 'get',
    path: '/v1/generations/{task_id}/content',
    summary: "A finished task's kept result file; data[].url links here",
    description,
    security: [{ bearerAuth: [] }, {}],
    request,
    responses,
  });
  // HEAD answers as GET does, with the headers and no body (error answers included).
  registry.registerPath({
    method: 'head',
    path: '/v1/generations/{task_id}/content',
    summary: 'The headers GET would answer with (Content-Type, Content-Length, ETag…), without the file',
    description,
    security: [{ bearerAuth: [] }, {}],
    request,
    responses: Object.fromEntries(Object.entries(responses).map(([status, r]) => [status, { description: r.description }])),
  });
}

/** The platforms' announcements (api/routes/callbacks.ts). */
function registerCallbacks(registry: OpenAPIRegistry): void {
  const callbackAnswer = z.object({ received: z.number().int(), signalled: z.number().int() });
  for (const perTask of [false, true]) {
    registry.registerPath({
      method: 'post',
      path: perTask ? '/v1/callbacks/{platform}/{task_id}' : '/v1/callbacks/{platform}',
      summary: 'For the platforms: an announcement that a job changed state (a hint: the task polls and trusts only the poll)',
      description:
        "No API key: V's URL carries a per-task token, T's and B's events are verified by the platform's signature and expiry. The answer is 200 once the announcement is handed on to its task.",
      security: [],
      request: {
        params: z.object({ platform: z.string().describe('T, V or B (any case)'), ...(perTask ? { task_id: z.string() } : {}) }),
        // T's and B's events are JSON, and an empty or non-JSON body is refused (400). V's per-task callback
        // believes nothing of its body (the task polls), so it may be empty or malformed.
        body: perTask
          ? { required: false, description: "V's task object; not required", content: json(z.unknown()) }
          : { required: true, description: "The platform's event (JSON)", content: json(z.looseObject({})) },
      },
      responses: {
        200: { description: 'Handed on', content: json(callbackAnswer) },
        400: errorResponse('Malformed announcement'),
        401: errorResponse('Bad token or signature, or expired'),
        403: errorResponse(
          'Callbacks of this platform are not enabled on this gateway (CALLBACK_SECRET, PLATFORM_T_EVENTS, PLATFORM_B_CALLBACKS)',
        ),
        404: errorResponse('No callbacks for this platform'),
        413: errorResponse('Body too large'),
        429: errorResponse('Too many callbacks'),
        503: errorResponse('Temporal unavailable (the platform retries)'),
      },
    });
  }
}

/**
 * GET /v1/tasks' query as the document states it. The validator reads page and page_size as decimal strings
 * and coerces them (api/routes/tasks.ts), which zod-to-openapi renders as bare patterned strings; stated here
 * as the integers and bounds they are (test/unit/api/openapi.test.ts holds the two to the same bounds).
 */
function listQueryParameters() {
  const { page, page_size } = listQuerySchema.shape;
  return listQuerySchema.extend({
    page: page.meta({ type: 'integer', minimum: 1, maximum: 10_000 }),
    page_size: page_size.meta({ type: 'integer', minimum: 1, maximum: 100 }),
  });
}

function registerTaskList(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/tasks',
    summary: "The calling key's tasks: running first, then finished ones by most recent close time",
    security: [{ bearerAuth: [] }],
    request: { query: listQueryParameters() },
    responses: {
      200: { description: 'One page of task records', content: json(taskListSchema) },
      400: errorResponse('Invalid or unknown query parameter (error.param names it)'),
      ...COMMON_ERRORS,
    },
  });
}

function registerModels(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/models',
    summary: 'The models currently available (platform configured or simulated; filtered by the key’s allowlist)',
    security: [{ bearerAuth: [] }],
    responses: { 200: { description: 'Model list', content: json(modelListSchema) }, ...COMMON_ERRORS },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/models/{model_id}',
    summary: 'One model (OpenAI SDKs: models.retrieve)',
    security: [{ bearerAuth: [] }],
    request: { params: z.object({ model_id: z.string().describe('A model id of GET /v1/models') }) },
    responses: {
      200: { description: 'The model, or the route', content: json(z.union([modelSchema, routeModelSchema])) },
      404: errorResponse('No such model available to this key'),
      ...COMMON_ERRORS,
    },
  });
}

/** Health, metrics and this document: no key. */
function registerOperational(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness',
    security: [],
    responses: { 200: { description: 'Process alive', content: json(z.object({ status: z.literal('ok') })) } },
  });
  registry.registerPath({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: Temporal reachable; with WORKER_READY_URLS, the platforms whose every account is out',
    security: [],
    responses: {
      200: {
        description:
          "Ready. `degraded`: a platform has no account in the rotation (its tasks wait within their deadline); the workers' words say why",
        content: json(
          z.object({
            status: z.enum(['ready', 'degraded']),
            platforms_without_account: z.record(z.string(), z.string()).optional(),
            workers_unreachable: z.array(z.string()).optional(),
          }),
        ),
      },
      503: errorResponse('Temporal unreachable'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics of this API process (keep it off the public listener)',
    security: [],
    responses: { 200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: z.string() } } } },
  });
  registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    security: [],
    responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: z.object({}).passthrough() } } } },
  });
}

/** The document, assembled route group by route group; each group's function registers its paths. */
export function buildOpenApiDocument(sources: OpenApiSources): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer <API_KEY>',
  });
  registerGeneration(registry, 'video', sources);
  registerGeneration(registry, 'image', sources);
  registerTaskQueries(registry);
  registerCancel(registry);
  registerContent(registry);
  registerCallbacks(registry);
  registerTaskList(registry);
  registerModels(registry);
  registerVideosApi(registry);
  registerOperational(registry);
  registerWebhooks(registry, errorResponse, COMMON_ERRORS);
  registerAdmin(registry);
  registerUsage(registry);
  registerOperator(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument(DOCUMENT_HEADER);
}
