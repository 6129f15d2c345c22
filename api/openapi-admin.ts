/**
 * The ledger's routes in GET /openapi.json (api/openapi.ts assembles the document): the admin API (keys, usage)
 * with the operator's token, and a key's own usage.
 */
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  createdKeySchema,
  createKeySchema,
  deletedKeySchema,
  KEY_ID,
  keyListSchema,
  keyViewSchema,
  updateKeySchema,
} from './admin-schemas';
import { errorSchema } from './response-schemas';
import { keyListQuerySchema } from './admin-console-schemas';
import { adminUsageQuerySchema, usageQuerySchema } from './routes/usage';

const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
const error = (description: string): ResponseConfig => ({ description, content: json(errorSchema) });

export const ADMIN_ERRORS: Record<string, ResponseConfig> = {
  401: error('Missing or invalid admin token, or a console session that ended'),
  403: error(
    'An API key was sent (the admin API takes the admin token only), or a console request changing something without its X-CSRF-Token',
  ),
  405: error('Method not allowed on this path (see the Allow header)'),
  429: error(
    'Too many wrong admin tokens from this address (code too_many_auth_failures, ADMIN_AUTH_FAILURES_PER_MINUTE; see Retry-After)',
  ),
  500: error('Internal error'),
};

/** The admin token, or a console session (POST /admin/v1/sessions) made with it. */
export const ADMIN_SECURITY: Record<string, string[]>[] = [{ adminAuth: [] }, { consoleSession: [] }];
/** What the JSON body reader answers before the route reads the body (api/middleware/json-body.ts), as on /v1. */
const BODY_ERRORS: Record<string, ResponseConfig> = {
  408: error('The body did not arrive in time'),
  413: error('Body larger than 1 MiB (declared or after decompression)'),
  415: error('Content-Type is not application/json, or an unsupported Content-Encoding'),
};

const keyParams = z.object({ id: z.string().regex(KEY_ID).describe('A key id') });

export function registerAdmin(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'adminAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer <ADMIN_TOKEN>',
  });
  registry.registerComponent('securitySchemes', 'consoleSession', {
    type: 'apiKey',
    in: 'cookie',
    name: 'mediagate_console',
    description: 'A console session (POST /admin/v1/sessions); a request that changes something also sends X-CSRF-Token',
  });
  const security = ADMIN_SECURITY;
  const body = (schema: z.ZodType) => ({ body: { content: json(schema), required: true } });
  registry.registerPath({
    method: 'post',
    path: '/admin/v1/keys',
    summary: 'Make an API key (its secret is in this answer only)',
    security,
    request: body(createKeySchema),
    responses: {
      201: { description: 'The key, with its secret', content: json(createdKeySchema) },
      400: error('Invalid field (error.param names it), an unknown model, or an id that exists or existed'),
      503: error('No database configured (DATABASE_URL)'),
      ...BODY_ERRORS,
      ...ADMIN_ERRORS,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/keys',
    summary: 'A page of the keys: bootstrap keys (read-only) first, then those made here, each with its budget’s state',
    security,
    request: { query: keyListQuerySchema },
    responses: {
      200: { description: 'The keys', content: json(keyListSchema) },
      400: error('Invalid parameter (error.param names it)'),
      ...ADMIN_ERRORS,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/keys/{id}',
    summary: 'One key',
    security,
    request: { params: keyParams },
    responses: { 200: { description: 'The key', content: json(keyViewSchema) }, 404: error('No such key'), ...ADMIN_ERRORS },
  });
  registry.registerPath({
    method: 'patch',
    path: '/admin/v1/keys/{id}',
    summary: 'Change a key’s models, limits or budget (every replica within seconds)',
    security,
    request: { params: keyParams, ...body(updateKeySchema) },
    responses: {
      200: { description: 'The changed key', content: json(keyViewSchema) },
      400: error('Invalid field (error.param names it)'),
      404: error('No such key'),
      409: error('A bootstrap key: change it in API_KEYS or API_KEYS_FILE'),
      503: error('No database configured (DATABASE_URL)'),
      ...BODY_ERRORS,
      ...ADMIN_ERRORS,
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/admin/v1/keys/{id}',
    summary: 'Revoke a key (every replica within seconds); its id is never reused',
    security,
    request: { params: keyParams },
    responses: {
      200: { description: 'Revoked', content: json(deletedKeySchema) },
      404: error('No such key'),
      409: error('A bootstrap key: remove it from API_KEYS or API_KEYS_FILE'),
      503: error('No database configured (DATABASE_URL)'),
      ...ADMIN_ERRORS,
    },
  });
}

const usageRow = z
  .object({
    tasks: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int().describe('Failed or cancelled'),
    running: z.number().int(),
    unpriced: z
      .number()
      .int()
      .describe('Tasks without a price (their model has none this gateway knows): left out of `cost`, never counted as money'),
    seconds: z.number(),
    images: z.number().int(),
    tokens: z.number().int(),
    cost: z
      .record(z.string(), z.number())
      .nullable()
      .describe(
        'Per currency (USD, CNY), of the priced tasks only: final costs, and the estimates of tasks still running; null when no task of the group has a price',
      ),
  })
  .catchall(z.string().nullable())
  .describe(
    'One group: its `model`, `route`, `served_model`, `platform`, `day` or `key` (null: tasks without one — no route, or not served yet), then the counts',
  );

const usageAnswer = z
  .object({
    object: z.literal('usage'),
    start: z.string(),
    end: z.string(),
    group_by: z.string(),
    data: z.array(usageRow),
    budget: z
      .object({
        amount: z.number(),
        currency: z.string(),
        period: z.string(),
        period_start: z.string(),
        spent: z.number(),
        remaining: z.number(),
        unpriced: z.number().int().describe('The period’s tasks counted at zero (no known price, or a price in another currency)'),
      })
      .nullable()
      .optional()
      .describe('GET /v1/usage: the key’s budget in the current period (spent includes running tasks’ estimates), or null'),
    key: z.string().optional(),
  })
  .meta({ id: 'Usage' });

const usageContent = { 'application/json': { schema: usageAnswer }, 'text/csv': { schema: z.string() } };

export function registerUsage(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/usage',
    summary: 'The calling key’s tasks, units and cost per model, route, served model or day, and its budget (Accept: text/csv for CSV)',
    security: [{ bearerAuth: [] }],
    request: { query: usageQuerySchema },
    responses: {
      200: { description: 'Usage', content: usageContent },
      400: error('Invalid parameter (error.param names it): a malformed date, end before start, a range over a year'),
      401: error('Missing or invalid API key'),
      405: error('Method not allowed on this path (see the Allow header)'),
      429: error('Rate limit reached (see Retry-After)'),
      500: error('Internal error'),
      503: error('No database configured (DATABASE_URL)'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/v1/usage',
    summary:
      'Every key’s (or one key’s) tasks, units and cost per key, model, route, served model, platform or day (Accept: text/csv for CSV)',
    security: ADMIN_SECURITY,
    request: { query: adminUsageQuerySchema },
    responses: {
      200: { description: 'Usage', content: usageContent },
      400: error('Invalid parameter (error.param names it)'),
      503: error('No database configured (DATABASE_URL)'),
      ...ADMIN_ERRORS,
    },
  });
}
