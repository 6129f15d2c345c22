/**
 * The admin API's keys: POST/GET/PATCH/DELETE /admin/v1/keys. Keys made here live in the database
 * and reach every API replica within seconds (keys/managed-keys.ts); bootstrap keys (API_KEYS, API_KEYS_FILE) are
 * listed too, read-only: they change only in their file.
 */
import type Router from '@koa/router';
import type { z } from 'zod';
import { checkWebhookUrl, WebhookUrlError } from '../../webhooks/url';
import { createKeySchema, DEFAULT_WEBHOOK_SECRET_OVERLAP_SECONDS, keyViewSchema, updateKeySchema } from '../admin-schemas';
import { ApiError, invalidRequest } from '../api-error';
import type { ApiKey } from '../../keys/api-keys';
import type { AppContext, AppDeps, AppState } from '../context';
import type { ManagedKeys } from '../../keys/managed-keys';
import { parseBody, parseQuery } from '../admin-input';
import { keyListQuerySchema } from '../admin-console-schemas';
import { budgetView, type BudgetView } from '../../ledger/entries';
import { decimalOf } from '../../pricing/price';
import type { BudgetSetting, KeyFields } from '../../ledger/keys';

const MICROS = 1_000_000;

/** A budget's state now: the period it counts, what was committed in it (running tasks' estimates included), what is left. */
export interface BudgetState {
  period_start: string;
  spent: number;
  remaining: number;
}

export function keyView(
  key: ApiKey,
  createdAt: Date | undefined,
  budgetState?: BudgetState | null,
  revokedAt?: Date,
): z.infer<typeof keyViewSchema> {
  return {
    id: key.id,
    object: 'api_key',
    source: key.source ?? 'bootstrap',
    models: key.models ? [...key.models] : null,
    rate_limit_rps: key.rateLimitRps ?? null,
    max_inflight: key.maxInflight ?? null,
    max_streams: key.maxStreams ?? null,
    weight: key.weight ?? 1,
    budget: key.budget ? { amount: key.budget.micros / MICROS, currency: key.budget.currency, period: key.budget.period } : null,
    allow_unpriced: key.allowUnpriced === true,
    webhook_url: key.webhookUrl ?? null,
    created_at: createdAt ? Math.floor(createdAt.getTime() / 1000) : null,
    revoked_at: revokedAt ? Math.floor(revokedAt.getTime() / 1000) : null,
    ...(budgetState !== undefined ? { budget_state: budgetState } : {}),
  };
}

/** The budgets' states of these keys, in one read of the ledger (null for a key without a budget). */
async function budgetStates(
  deps: Pick<AppDeps, 'taskLedger'>,
  keys: readonly ApiKey[],
  now = new Date(),
): Promise<Map<string, BudgetState | null>> {
  const views = deps.taskLedger ? await deps.taskLedger.budgetViews(keys, now) : new Map<string, BudgetView>();
  return new Map(
    keys.map((k) => {
      if (!k.budget) return [k.id, null];
      // Without a ledger nothing was committed.
      const view = views.get(k.id) ?? budgetView(k.budget, 0, now);
      return [k.id, { period_start: view.periodKey, spent: decimalOf(view.spentMicros), remaining: decimalOf(view.remainingMicros) }];
    }),
  );
}

type KeyBody = z.infer<typeof createKeySchema> | z.infer<typeof updateKeySchema>;

/**
 * A key's default webhook URL, checked by the rules a request's webhook_url is (webhooks/url.ts: https, or
 * http to an allowed origin; no private host, nor a name resolving to one): 400 naming `webhook_url`.
 */
async function checkedWebhookUrl(deps: Pick<AppDeps, 'webhooks'>, url: string | null | undefined): Promise<string | null | undefined> {
  if (url === undefined || url === null) return url;
  try {
    await checkWebhookUrl(url, deps.webhooks?.allowPrivateOrigins ?? new Set(), deps.webhooks?.hostCheck);
  } catch (err) {
    if (err instanceof WebhookUrlError) throw invalidRequest(`webhook_url ${err.message}`, 'webhook_url', 'invalid_value');
    throw err;
  }
  return url;
}

/**
 * The body's fields as the table's; an allowlist may name only models and routes the gateway knows (docs/api.md
 * "Routes": a route is allowed by its name, as a client names it in `model`).
 */
async function keyFields(deps: Pick<AppDeps, 'catalogue' | 'routes' | 'webhooks'>, body: KeyBody): Promise<KeyFields> {
  const known = new Set([...deps.catalogue.entries.map((e) => e.id), ...(deps.routes?.routes.map((r) => r.name) ?? [])]);
  body.models?.forEach((m, i) => {
    if (!known.has(m))
      throw invalidRequest(`models.${i}: unknown model or route '${m}' (see GET /v1/models)`, `models.${i}`, 'unknown_model');
  });
  const budget = body.budget as { amount: number; currency: BudgetSetting['currency']; period: BudgetSetting['period'] } | null | undefined;
  return {
    models: body.models === undefined ? undefined : body.models && [...new Set(body.models)],
    rateLimitRps: body.rate_limit_rps,
    maxInflight: body.max_inflight,
    maxStreams: body.max_streams,
    weight: body.weight,
    budget:
      budget === undefined
        ? undefined
        : budget && { micros: Math.round(budget.amount * MICROS), currency: budget.currency, period: budget.period },
    allowUnpriced: body.allow_unpriced,
    webhookUrl: await checkedWebhookUrl(deps, body.webhook_url),
  };
}

/**
 * PATCH: the given fields change, then — with `rotate_webhook_secret` — the key gets a new webhook secret, the one
 * it signed with until now signing beside it for the overlap. Undefined: no such stored key.
 */
async function patchKey(
  deps: Pick<AppDeps, 'catalogue' | 'managedKeys' | 'routes' | 'webhooks'>,
  id: string,
  body: z.infer<typeof updateKeySchema>,
): Promise<ApiKey | undefined> {
  const managed = managedOf(deps);
  const fields = await keyFields(deps, body);
  let key = await managed.update(id, fields);
  if (key && body.rotate_webhook_secret) {
    const signingUntilNow = (await deps.webhooks?.secrets.forKey(id))?.current;
    const overlapSeconds = body.webhook_secret_overlap_seconds ?? DEFAULT_WEBHOOK_SECRET_OVERLAP_SECONDS;
    key = await managed.rotateWebhookSecret(id, signingUntilNow, overlapSeconds * 1000);
  }
  return key;
}

const keyNotFound = (id: string) =>
  new ApiError(404, 'not_found_error', `No API key with id '${id}'`, { param: 'id', code: 'key_not_found' });

const bootstrapReadOnly = (id: string) =>
  new ApiError(409, 'conflict_error', `Key '${id}' is a bootstrap key (API_KEYS or API_KEYS_FILE): change it in its file`, {
    param: 'id',
    code: 'bootstrap_key',
  });

function managedOf(deps: Pick<AppDeps, 'managedKeys'>): ManagedKeys {
  if (!deps.managedKeys) {
    throw new ApiError(
      503,
      'service_unavailable_error',
      'No database is configured (DATABASE_URL): keys can only come from API_KEYS or API_KEYS_FILE',
      { code: 'database_not_configured' },
    );
  }
  return deps.managedKeys;
}

/** What the admin API's key routes use of the app's dependencies. */
type AdminKeyDeps = Pick<AppDeps, 'catalogue' | 'keys' | 'managedKeys' | 'routes' | 'taskLedger' | 'webhooks'>;

export function adminKeyRoutes(router: Router<AppState>, deps: AdminKeyDeps): void {
  const view = (key: ApiKey) => keyView(key, deps.managedKeys?.createdAtOf(key.id));

  router.post('/admin/v1/keys', async (ctx: AppContext) => {
    const body = parseBody(createKeySchema, ctx.request.body);
    const fields = await keyFields(deps, body);
    const duplicate = () =>
      invalidRequest(`id: a key with id '${body.id}' exists or existed (ids are never reused)`, 'id', 'duplicate_key_id');
    if (deps.keys.find(body.id)) throw duplicate();
    const created = await managedOf(deps).create(body.id, fields);
    if (!created) throw duplicate();
    ctx.state.log.info({ keyIdCreated: body.id }, 'API key created');
    ctx.status = 201;
    ctx.body = { ...keyView(created.key, created.createdAt), secret: created.secret };
  });

  // A page of the keys (bootstrap keys first, then by id; revoked ones after the live ones when asked for), each with
  // its budget's state: 10,000 keys are never sent at once.
  router.get('/admin/v1/keys', async (ctx: AppContext) => {
    const q = parseQuery(keyListQuerySchema, ctx.query);
    const state = q.state ?? 'live';
    const live = state === 'revoked' ? [] : deps.keys.list().map((key) => ({ key, createdAt: deps.managedKeys?.createdAtOf(key.id) }));
    const revoked = state === 'live' || !deps.managedKeys ? [] : await deps.managedKeys.revoked();
    const matching = [...live, ...revoked].filter(
      ({ key: k }) =>
        (q.search ? k.id.includes(q.search) : true) && (q.budgeted ? (k.budget !== undefined) === (q.budgeted === 'true') : true),
    );
    const page = matching.slice((q.page - 1) * q.page_size, q.page * q.page_size);
    // A revoked key's budget counts nothing any more: its state is left out (null).
    const states = await budgetStates(
      deps,
      page.filter((e) => !('revokedAt' in e)).map((e) => e.key),
    );
    ctx.body = {
      object: 'list',
      data: page.map((e) =>
        keyView(e.key, e.createdAt, states.get(e.key.id) ?? null, 'revokedAt' in e ? (e.revokedAt as Date) : undefined),
      ),
      total: matching.length,
      page: q.page,
      page_size: q.page_size,
      has_more: q.page * q.page_size < matching.length,
    };
  });

  router.get('/admin/v1/keys/:id', async (ctx: AppContext) => {
    const id = String(ctx.params?.id ?? '');
    const key = deps.keys.find(id);
    if (!key) throw keyNotFound(id);
    ctx.body = keyView(key, deps.managedKeys?.createdAtOf(key.id), (await budgetStates(deps, [key])).get(key.id));
  });

  router.patch('/admin/v1/keys/:id', async (ctx: AppContext) => {
    const id = String(ctx.params?.id ?? '');
    if (deps.keys.isBootstrap(id)) throw bootstrapReadOnly(id);
    const body = parseBody(updateKeySchema, ctx.request.body);
    const updated = await patchKey(deps, id, body);
    if (!updated) throw keyNotFound(id);
    ctx.state.log.info({ keyIdChanged: id, webhookSecretRotated: body.rotate_webhook_secret === true }, 'API key changed');
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
