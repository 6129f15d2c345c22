/**
 * Webhook settings of keys kept in the database (the admin API's keys) against a real
 * PostgreSQL and the real app over real HTTP: a key's default `webhook_url` (checked like a request's, stored,
 * shown, used by its tasks that name none) and its own signing secret, rotated with an overlap, read back through
 * the same WebhookSecrets interface the worker signs with.
 */
import { KeyStore, parseApiKeysEnv } from '../../../keys/api-keys';
import { ManagedKeys } from '../../../keys/managed-keys';
import type { WebhookTarget } from '../../../core/webhooks';
import { createLogger } from '../../../core/logger';
import { isWebhookSecret } from '../../../core/webhook-secret';
import { derivedWebhookSecret, webhookSecrets, type WebhookSecrets } from '../../../webhooks/signing';
import { openLedgerDatabase, type LedgerDatabase } from '../../../ledger/database';
import { keyWebhookSecret } from '../../../ledger/keys';
import { usePostgres } from '../../support/postgres';
import { rawRequest, SECRET, startTestApi, type TestApi } from '../../support/test-api';

const ADMIN_TOKEN = 'admin-token-for-webhook-tests-0123456789';
const ADMIN = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' };
const MASTER_SECRET = 'master-webhook-secret-for-these-tests-0123456789';
/** An http origin the operator allows (WEBHOOK_ALLOW_PRIVATE_ORIGINS); nothing listens there: no task runs. */
const ALLOWED = 'http://127.0.0.1:9';

const postgres = usePostgres();

interface KeyWebhookApi {
  api: TestApi;
  ledger: LedgerDatabase;
  managed: ManagedKeys;
  /** The API's WebhookSecrets (as api/main.ts builds it: a key's own secret from its record, else derived). */
  secrets: WebhookSecrets;
  /** The webhook target of every task the API started, in order. */
  targets: (WebhookTarget | undefined)[];
}

let app: KeyWebhookApi;

beforeAll(async () => {
  const ledger = await openLedgerDatabase(await postgres.pg.freshDatabase());
  const keys = new KeyStore(parseApiKeysEnv(`alice:${SECRET}`));
  const managed = new ManagedKeys(ledger, keys, createLogger('test', 'silent'));
  await managed.start(60_000);
  const secrets = webhookSecrets({ masterSecret: MASTER_SECRET, explicit: async (id) => keys.byId(id)?.webhookSecret });
  const targets: (WebhookTarget | undefined)[] = [];
  const api = await startTestApi({
    deps: { keys, managedKeys: managed, adminToken: ADMIN_TOKEN, webhooks: { secrets, allowPrivateOrigins: new Set([ALLOWED]) } },
    tasks: {
      async start(_owner: string, entry: { id: string }, _request: unknown, o: { taskId?: string; webhook?: WebhookTarget }) {
        targets.push(o.webhook);
        return { taskId: o.taskId ?? 'task_new', model: entry.id };
      },
    },
  });
  app = { api, ledger, managed, secrets, targets };
});

afterAll(async () => {
  app.managed.stop();
  await app.api.close();
  await app.ledger.close();
});

const adminCall = (method: string, path: string, body?: unknown) =>
  rawRequest(app.api.base, method, path, ADMIN, body === undefined ? undefined : JSON.stringify(body));
const asKey = (secret: string, method: string, path: string, body?: unknown) =>
  rawRequest(
    app.api.base,
    method,
    path,
    { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
    body === undefined ? undefined : JSON.stringify(body),
  );
const storedRow = (id: string) => app.ledger.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const IMAGE = { model: 'NB', prompt: 'a lighthouse at dusk' };

describe("a stored key's default webhook_url", () => {
  test('POST stores it, GET shows it, and a task of the key that names no webhook_url is sent there; its own wins', async () => {
    const created = await adminCall('POST', '/admin/v1/keys', { id: 'hooked', webhook_url: `${ALLOWED}/team` });
    expect(created.status).toBe(201);
    expect(created.body.webhook_url).toBe(`${ALLOWED}/team`);
    expect((await adminCall('GET', '/admin/v1/keys/hooked')).body.webhook_url).toBe(`${ALLOWED}/team`);
    expect((await storedRow('hooked')).webhook_url).toBe(`${ALLOWED}/team`);

    const secret = created.body.secret as string;
    expect((await asKey(secret, 'POST', '/v1/async/images/generations', IMAGE)).status).toBe(200);
    expect(
      (await asKey(secret, 'POST', '/v1/async/images/generations', { ...IMAGE, webhook_url: `${ALLOWED}/own`, webhook_events: ['failed'] }))
        .status,
    ).toBe(200);
    expect(app.targets.slice(-2)).toEqual([
      expect.objectContaining({ url: `${ALLOWED}/team`, events: ['succeeded', 'failed'] }),
      expect.objectContaining({ url: `${ALLOWED}/own`, events: ['failed'] }),
    ]);
  });

  test('PATCH changes it and null clears it: the next task has no webhook', async () => {
    const secret = (await adminCall('POST', '/admin/v1/keys', { id: 'changing', webhook_url: `${ALLOWED}/a` })).body.secret as string;
    expect((await adminCall('PATCH', '/admin/v1/keys/changing', { webhook_url: `${ALLOWED}/b` })).body.webhook_url).toBe(`${ALLOWED}/b`);
    await asKey(secret, 'POST', '/v1/async/images/generations', IMAGE);
    expect(app.targets.at(-1)?.url).toBe(`${ALLOWED}/b`);
    const cleared = await adminCall('PATCH', '/admin/v1/keys/changing', { webhook_url: null });
    expect([cleared.status, cleared.body.webhook_url]).toEqual([200, null]);
    await asKey(secret, 'POST', '/v1/async/images/generations', IMAGE);
    expect(app.targets.at(-1)).toBeUndefined();
    expect((await adminCall('GET', '/admin/v1/keys/alice')).body.webhook_url).toBeNull();
  });

  test.each([
    ['a private address', 'https://10.0.0.7/hook', /private or local host/],
    ['the metadata address', 'https://169.254.169.254/latest', /private or local host/],
    ['loopback over https', 'https://127.0.0.1/hook', /private or local host/],
    ['http to an origin not allowed', 'http://example.com/hook', /must be an https URL/],
    ['credentials in the URL', 'https://user:pw@example.com/hook', /must not carry credentials/],
    ['not a URL', 'hooks please', /must be an absolute URL/],
    ['not a string', 42, /expected string/],
  ])('%s → 400 naming webhook_url, on POST and PATCH; nothing is written', async (_what, url, message) => {
    const created = await adminCall('POST', '/admin/v1/keys', { id: 'refused-hook', webhook_url: url });
    expect([created.status, created.body.error.type, created.body.error.param]).toEqual([400, 'invalid_request_error', 'webhook_url']);
    expect(created.body.error.message).toMatch(message);
    expect(await app.ledger.db.selectFrom('api_keys').select('id').where('id', '=', 'refused-hook').executeTakeFirst()).toBeUndefined();

    await adminCall('POST', '/admin/v1/keys', { id: 'kept-hook', webhook_url: `${ALLOWED}/kept` });
    const patched = await adminCall('PATCH', '/admin/v1/keys/kept-hook', { webhook_url: url, max_inflight: 9 });
    expect([patched.status, patched.body.error.param]).toEqual([400, 'webhook_url']);
    expect(await storedRow('kept-hook')).toMatchObject({ webhook_url: `${ALLOWED}/kept`, max_inflight: null });
  });
});

describe("a stored key's own webhook secret, rotated with an overlap", () => {
  test('rotation: GET /v1/webhooks/default/secret shows the new whsec_ secret; the old one keeps signing beside it', async () => {
    const secret = (await adminCall('POST', '/admin/v1/keys', { id: 'rotating' })).body.secret as string;
    const before = (await asKey(secret, 'GET', '/v1/webhooks/default/secret')).body.key as string;
    expect(before).toBe(derivedWebhookSecret(MASTER_SECRET, 'rotating'));

    const rotated = await adminCall('PATCH', '/admin/v1/keys/rotating', { rotate_webhook_secret: true });
    expect(rotated.status).toBe(200);
    expect(JSON.stringify(rotated.body)).not.toContain('whsec_');
    const after = await asKey(secret, 'GET', '/v1/webhooks/default/secret');
    expect(after.headers['cache-control']).toBe('no-store');
    const current = after.body.key as string;
    expect(isWebhookSecret(current)).toBe(true);
    expect(current).not.toBe(before);
    // What deliveries are signed with: the new secret, and the derived one it replaced during the overlap.
    expect(await app.secrets.forKey('rotating')).toEqual({ current, previous: [before] });
    const row = await storedRow('rotating');
    expect(row.webhook_secret_previous_until!.getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);

    // A second rotation overlaps with the first rotation's secret, not with the derived one.
    await adminCall('PATCH', '/admin/v1/keys/rotating', { rotate_webhook_secret: true, webhook_secret_overlap_seconds: 600 });
    const third = (await asKey(secret, 'GET', '/v1/webhooks/default/secret')).body.key as string;
    expect(await app.secrets.forKey('rotating')).toEqual({ current: third, previous: [current] });
  });

  test('an overlap of 0 retires the old secret at once; the worker reads the same secrets by key id, revoked keys too', async () => {
    await adminCall('POST', '/admin/v1/keys', { id: 'abrupt' });
    await adminCall('PATCH', '/admin/v1/keys/abrupt', { rotate_webhook_secret: true, webhook_secret_overlap_seconds: 0 });
    const own = await app.secrets.forKey('abrupt');
    expect(own).toEqual({ current: expect.stringMatching(/^whsec_/), previous: [] });
    // ledger/keys.ts keyWebhookSecret is what the worker's WebhookSecrets reads at send time (worker/webhooks.ts).
    expect(await keyWebhookSecret(app.ledger, 'abrupt')).toEqual({ secret: own!.current });
    await adminCall('DELETE', '/admin/v1/keys/abrupt');
    expect(await keyWebhookSecret(app.ledger, 'abrupt')).toEqual({ secret: own!.current });
    expect(await keyWebhookSecret(app.ledger, 'never-made')).toBeUndefined();
  });

  test('bad rotation fields → 400 naming the field; a bootstrap key is rotated in its file (409)', async () => {
    await adminCall('POST', '/admin/v1/keys', { id: 'steady' });
    const cases: [unknown, string][] = [
      [{ rotate_webhook_secret: false }, 'rotate_webhook_secret'],
      [{ rotate_webhook_secret: true, webhook_secret_overlap_seconds: -1 }, 'webhook_secret_overlap_seconds'],
      [{ rotate_webhook_secret: true, webhook_secret_overlap_seconds: 8 * 24 * 3600 }, 'webhook_secret_overlap_seconds'],
      [{ webhook_secret_overlap_seconds: 60 }, 'webhook_secret_overlap_seconds'],
    ];
    for (const [body, param] of cases) {
      const answer = await adminCall('PATCH', '/admin/v1/keys/steady', body);
      expect([answer.status, answer.body.error.param]).toEqual([400, param]);
    }
    expect((await storedRow('steady')).webhook_secret).toBeNull();
    expect((await adminCall('PATCH', '/admin/v1/keys/alice', { rotate_webhook_secret: true })).status).toBe(409);
  });
});
