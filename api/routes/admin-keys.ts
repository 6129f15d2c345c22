/**
 * The admin API's keys (issue 20 §2): POST/GET/PATCH/DELETE /admin/v1/keys. Keys made here live in the database
 * and reach every API replica within seconds (api/managed-keys.ts); bootstrap keys (API_KEYS, API_KEYS_FILE) are
 * listed too, read-only: they change only in their file.
 */
import type Router from '@koa/router';
import type { z } from 'zod';
import { createKeySchema, keyViewSchema, updateKeySchema } from '../admin-schemas';
import { ApiError, invalidRequest } from '../api-error';
import type { ApiKey } from '../api-keys';
import type { AppContext, AppDeps, AppState } from '../context';
import type { ManagedKeys } from '../managed-keys';
import { describeIssue } from '../request-validation';
import type { BudgetSetting, KeyFields } from '../../ledger/keys';

const MICROS = 1_000_000;

export function keyView(key: ApiKey, createdAt: Date | undefined): z.infer<typeof keyViewSchema> {
  return {
    id: key.id,
    object: 'api_key',
    source: key.source ?? 'bootstrap',
    models: key.models ? [...key.models] : null,
    rate_limit_rps: key.rateLimitRps ?? null,
    max_inflight: key.maxInflight ?? null,
    budget: key.budget ? { amount: key.budget.micros / MICROS, currency: key.budget.currency, period: key.budget.period } : null,
    created_at: createdAt ? Math.floor(createdAt.getTime() / 1000) : null,
  };
}

function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('The request body must be a JSON object', 'body', 'invalid_body');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const { param, message, code } = describeIssue(parsed.error.issues[0]!, body);
    throw invalidRequest(message, param, code);
  }
  return parsed.data;
}

/** The body's fields as the table's; an allowlist may name only models the gateway knows (§8). */
function keyFields(deps: AppDeps, body: { models?: string[] | null; rate_limit_rps?: number | null; max_inflight?: number | null; budget?: { amount: number; currency: BudgetSetting['currency']; period: BudgetSetting['period'] } | null }): KeyFields {
  const known = new Set(deps.catalogue.entries.map((e) => e.id));
  body.models?.forEach((m, i) => {
    if (!known.has(m)) throw invalidRequest(`models.${i}: unknown model '${m}' (see GET /v1/models)`, `models.${i}`, 'unknown_model');
  });
  return {
    models: body.models === undefined ? undefined : body.models && [...new Set(body.models)],
    rateLimitRps: body.rate_limit_rps,
    maxInflight: body.max_inflight,
    budget: body.budget === undefined ? undefined : body.budget && { micros: Math.round(body.budget.amount * MICROS), currency: body.budget.currency, period: body.budget.period },
  };
}

const keyNotFound = (id: string) => new ApiError(404, 'not_found_error', `No API key with id '${id}'`, { param: 'id', code: 'key_not_found' });

const bootstrapReadOnly = (id: string) =>
  new ApiError(409, 'conflict_error', `Key '${id}' is a bootstrap key (API_KEYS or API_KEYS_FILE): change it in its file`, { param: 'id', code: 'bootstrap_key' });

function managedOf(deps: AppDeps): ManagedKeys {
  if (!deps.managedKeys) {
    throw new ApiError(503, 'service_unavailable_error', 'No database is configured (DATABASE_URL): keys can only come from API_KEYS or API_KEYS_FILE', { code: 'database_not_configured' });
  }
  return deps.managedKeys;
}

export function adminKeyRoutes(router: Router<AppState>, deps: AppDeps): void {
  const view = (key: ApiKey) => keyView(key, deps.managedKeys?.createdAtOf(key.id));

  router.post('/admin/v1/keys', async (ctx: AppContext) => {
    const body = parseBody(createKeySchema, ctx.request.body);
    const fields = keyFields(deps, body);
    const duplicate = () => invalidRequest(`id: a key with id '${body.id}' exists or existed (ids are never reused)`, 'id', 'duplicate_key_id');
    if (deps.keys.find(body.id)) throw duplicate();
    const created = await managedOf(deps).create(body.id, fields);
    if (!created) throw duplicate();
    ctx.state.log.info({ keyIdCreated: body.id }, 'API key created');
    ctx.status = 201;
    ctx.body = { ...keyView(created.key, created.createdAt), secret: created.secret };
  });

  router.get('/admin/v1/keys', (ctx: AppContext) => {
    ctx.body = { object: 'list', data: deps.keys.list().map(view) };
  });

  router.get('/admin/v1/keys/:id', (ctx: AppContext) => {
    const id = String(ctx.params?.id ?? '');
    const key = deps.keys.find(id);
    if (!key) throw keyNotFound(id);
    ctx.body = view(key);
  });

  router.patch('/admin/v1/keys/:id', async (ctx: AppContext) => {
    const id = String(ctx.params?.id ?? '');
    if (deps.keys.isBootstrap(id)) throw bootstrapReadOnly(id);
    const fields = keyFields(deps, parseBody(updateKeySchema, ctx.request.body));
    const updated = await managedOf(deps).update(id, fields);
    if (!updated) throw keyNotFound(id);
    ctx.state.log.info({ keyIdChanged: id }, 'API key changed');
    ctx.body = view(updated);
  });

  router.delete('/admin/v1/keys/:id', async (ctx: AppContext) => {
    const id = String(ctx.params?.id ?? '');
    if (deps.keys.isBootstrap(id)) throw bootstrapReadOnly(id);
    if (!(await managedOf(deps).revoke(id))) throw keyNotFound(id);
    ctx.state.log.info({ keyIdRevoked: id }, 'API key revoked');
    ctx.body = { id, object: 'api_key', deleted: true };
  });
}
