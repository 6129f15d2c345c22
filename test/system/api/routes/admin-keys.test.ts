/**
 * Keys through the admin API against a real PostgreSQL: the real app over real HTTP, two
 * replicas sharing one database, the table read directly to see what was (and was not) stored.
 */
import { sha256 } from '../../../../keys/api-keys';
import { startAdminReplica, stopAdminReplica, type AdminReplica } from '../../../support/admin-replica';
import { usePostgres } from '../../../support/postgres';
import { rawRequest, SECRET } from '../../../support/test-api';
import { waitFor } from '../../../support/wait-for';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
const ADMIN = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' };

const postgres = usePostgres();

type Replica = AdminReplica;
const replicas: Replica[] = [];

/** An API replica on the database: its own key store, reading the stored keys every `refreshMs`. */
async function replica(url: string, refreshMs: number): Promise<Replica> {
  const r = await startAdminReplica(url, { adminToken: ADMIN_TOKEN, refreshMs });
  replicas.push(r);
  return r;
}

afterAll(async () => {
  for (const r of replicas) await stopAdminReplica(r);
});

const admin = (r: Replica, method: string, path: string, body?: unknown) =>
  rawRequest(r.api.base, method, path, ADMIN, body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
const withKey = (r: Replica, secret: string, path = '/v1/models') =>
  rawRequest(r.api.base, 'GET', path, { Authorization: `Bearer ${secret}` });
const storedKeys = (r: Replica) => r.ledger.db.selectFrom('api_keys').selectAll().execute();

describe('admin authentication', () => {
  let a: Replica;
  beforeAll(async () => {
    a = await replica(await postgres.pg.freshDatabase(), 60_000);
  });

  test('no token → 401, a wrong token → 401, an API key → 403; nothing is listed', async () => {
    const none = await rawRequest(a.api.base, 'GET', '/admin/v1/keys', {});
    const wrong = await rawRequest(a.api.base, 'GET', '/admin/v1/keys', { Authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x` });
    const apiKey = await rawRequest(a.api.base, 'GET', '/admin/v1/keys', { Authorization: `Bearer ${SECRET}` });
    expect([none.status, none.body.error.code]).toEqual([401, 'invalid_admin_token']);
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_admin_token']);
    expect([apiKey.status, apiKey.body.error.code]).toEqual([403, 'admin_token_required']);
  });

  test('the admin token is not an API key', async () => {
    expect((await withKey(a, ADMIN_TOKEN)).status).toBe(401);
  });
});

describe('POST, GET, PATCH, DELETE /admin/v1/keys', () => {
  let a: Replica;
  beforeAll(async () => {
    a = await replica(await postgres.pg.freshDatabase(), 60_000);
  });

  test('POST → 201 with the secret, shown once and stored only as its digest; the key works at once', async () => {
    const created = await admin(a, 'POST', '/admin/v1/keys', {
      id: 'team-a',
      models: ['NB'],
      max_inflight: 3,
      budget: { amount: 25.5, currency: 'USD', period: 'month' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 'team-a',
      object: 'api_key',
      source: 'admin',
      models: ['NB'],
      max_inflight: 3,
      rate_limit_rps: null,
      budget: { amount: 25.5, currency: 'USD', period: 'month' },
    });
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^sk-[A-Za-z0-9_-]{40,}$/);

    const [row] = await storedKeys(a);
    expect(row!.digest.equals(sha256(secret))).toBe(true);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row!.budget_micros).toBe('25500000');

    const models = await withKey(a, secret);
    expect(models.status).toBe(200);
    expect(models.body.data.map((m: { id: string }) => m.id)).toEqual(['NB']);
    const again = await admin(a, 'GET', '/admin/v1/keys/team-a');
    expect(again.body.secret).toBeUndefined();
  });

  test('GET lists bootstrap keys read-only next to stored ones', async () => {
    const list = await admin(a, 'GET', '/admin/v1/keys');
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { id: string; source: string }) => [k.id, k.source])).toEqual([
      ['alice', 'bootstrap'],
      ['team-a', 'admin'],
    ]);
    expect((await admin(a, 'PATCH', '/admin/v1/keys/alice', { max_inflight: 1 })).status).toBe(409);
    expect((await admin(a, 'DELETE', '/admin/v1/keys/alice')).body.error.code).toBe('bootstrap_key');
    expect((await withKey(a, SECRET)).status).toBe(200);
  });

  test('PATCH changes the given fields (null clears one); an unknown id is 404', async () => {
    const patched = await admin(a, 'PATCH', '/admin/v1/keys/team-a', {
      models: null,
      rate_limit_rps: 5,
      budget: { amount: 1, currency: 'CNY', period: 'day' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      models: null,
      rate_limit_rps: 5,
      max_inflight: 3,
      budget: { amount: 1, currency: 'CNY', period: 'day' },
    });
    expect((await admin(a, 'PATCH', '/admin/v1/keys/nobody', { max_inflight: 1 })).status).toBe(404);
  });

  test('max_streams (open event streams per replica): set when made, changed, cleared with null; stored, shown, and the key carries it', async () => {
    const made = await admin(a, 'POST', '/admin/v1/keys', { id: 'streamer', max_streams: 3 });
    expect([made.status, made.body.max_streams]).toEqual([201, 3]);
    expect(a.keys.find('streamer')?.maxStreams).toBe(3);
    expect((await admin(a, 'PATCH', '/admin/v1/keys/streamer', { max_streams: 0 })).body.max_streams).toBe(0);
    expect((await storedKeys(a)).find((k) => k.id === 'streamer')?.max_streams).toBe(0);
    const cleared = await admin(a, 'PATCH', '/admin/v1/keys/streamer', { max_streams: null });
    expect([cleared.body.max_streams, a.keys.find('streamer')?.maxStreams]).toEqual([null, undefined]);
    for (const bad of [-1, 1.5, '2'])
      expect((await admin(a, 'PATCH', '/admin/v1/keys/streamer', { max_streams: bad })).body.error).toMatchObject({ param: 'max_streams' });
    expect((await admin(a, 'GET', '/admin/v1/keys/alice')).body.max_streams).toBeNull();
  });

  test('a changed rate limit applies to the next requests', async () => {
    const secret = (await admin(a, 'POST', '/admin/v1/keys', { id: 'rated', rate_limit_rps: 1000 })).body.secret as string;
    const burst = async () => (await Promise.all([1, 2, 3].map(() => withKey(a, secret)))).map((r) => r.status);
    expect(await burst()).toEqual([200, 200, 200]);
    await admin(a, 'PATCH', '/admin/v1/keys/rated', { rate_limit_rps: 1 });
    expect(await burst()).toContain(429);
  });

  test('DELETE revokes: the key stops working, its id is never reused', async () => {
    const secret = (await admin(a, 'POST', '/admin/v1/keys', { id: 'short-lived' })).body.secret as string;
    expect((await withKey(a, secret)).status).toBe(200);
    const deleted = await admin(a, 'DELETE', '/admin/v1/keys/short-lived');
    expect(deleted.body).toEqual({ id: 'short-lived', object: 'api_key', deleted: true });
    expect((await withKey(a, secret)).status).toBe(401);
    expect((await admin(a, 'GET', '/admin/v1/keys/short-lived')).status).toBe(404);
    const reused = await admin(a, 'POST', '/admin/v1/keys', { id: 'short-lived' });
    expect([reused.status, reused.body.error.param]).toEqual([400, 'id']);
  });
});

describe('bad input → 400 naming the field; nothing is written (§8)', () => {
  let a: Replica;
  beforeAll(async () => {
    a = await replica(await postgres.pg.freshDatabase(), 60_000);
  });

  test.each([
    ['an unknown currency', { id: 'k1', budget: { amount: 1, currency: 'EUR', period: 'day' } }, 'budget.currency'],
    ['an unknown period', { id: 'k1', budget: { amount: 1, currency: 'USD', period: 'week' } }, 'budget.period'],
    ['a negative amount', { id: 'k1', budget: { amount: -1, currency: 'USD', period: 'day' } }, 'budget.amount'],
    ['a non-finite amount', '{"id":"k1","budget":{"amount":1e400,"currency":"USD","period":"day"}}', 'budget.amount'],
    ['an amount given as text', { id: 'k1', budget: { amount: '5', currency: 'USD', period: 'day' } }, 'budget.amount'],
    // Counted in millionths, as PRICES_FILE's amounts are: refused, not rounded.
    [
      'an amount with more than 6 decimal places',
      { id: 'k1', budget: { amount: 0.0000005, currency: 'USD', period: 'day' } },
      'budget.amount',
    ],
    ['an amount with 7 decimal places', { id: 'k1', budget: { amount: 12.3456789, currency: 'USD', period: 'day' } }, 'budget.amount'],
    ['an unknown model in the allowlist', { id: 'k1', models: ['NB', 'no-such-model'] }, 'models.1'],
    ['a duplicate key id (a bootstrap key)', { id: 'alice' }, 'id'],
    ['a malformed key id', { id: 'has space' }, 'id'],
    ['an unknown field', { id: 'k1', colour: 'red' }, 'colour'],
    ['a negative max_inflight', { id: 'k1', max_inflight: -2 }, 'max_inflight'],
  ])('%s', async (_what, body, param) => {
    const answer = await admin(a, 'POST', '/admin/v1/keys', body);
    expect([answer.status, answer.body.error.type, answer.body.error.param]).toEqual([400, 'invalid_request_error', param]);
    expect(await storedKeys(a)).toEqual([]);
  });

  test('PATCH with a bad field changes nothing', async () => {
    expect((await admin(a, 'POST', '/admin/v1/keys', { id: 'k2', max_inflight: 4 })).status).toBe(201);
    const answer = await admin(a, 'PATCH', '/admin/v1/keys/k2', { max_inflight: 1, budget: { amount: 1, currency: 'GBP', period: 'day' } });
    expect([answer.status, answer.body.error.param]).toEqual([400, 'budget.currency']);
    expect((await storedKeys(a)).map((k) => k.max_inflight)).toEqual([4]);
  });

  test('an amount with 6 decimal places is kept exactly; PATCH refuses a finer one naming budget.amount', async () => {
    const made = await admin(a, 'POST', '/admin/v1/keys', { id: 'k6', budget: { amount: 12.345678, currency: 'USD', period: 'day' } });
    expect([made.status, made.body.budget]).toEqual([201, { amount: 12.345678, currency: 'USD', period: 'day' }]);
    const finer = await admin(a, 'PATCH', '/admin/v1/keys/k6', { budget: { amount: 12.3456781, currency: 'USD', period: 'day' } });
    expect([finer.status, finer.body.error.param, finer.body.error.message]).toEqual([
      400,
      'budget.amount',
      expect.stringMatching(/6 decimal places/),
    ]);
    expect((await storedKeys(a)).filter((k) => k.id === 'k6').map((k) => Number(k.budget_micros))).toEqual([12_345_678]);
  });
});

describe('every API replica within 5 seconds, without a restart', () => {
  test('a key made on one replica works on another; revoked or narrowed there, it stops', async () => {
    const url = await postgres.pg.freshDatabase();
    // The production default: KEYS_REFRESH_MS = 2 s.
    const [a, b] = [await replica(url, 2_000), await replica(url, 2_000)];
    const secret = (await admin(a, 'POST', '/admin/v1/keys', { id: 'shared' })).body.secret as string;
    const t0 = Date.now();
    await waitFor(async () => (await withKey(b, secret)).status === 200, 5_000);

    await admin(a, 'PATCH', '/admin/v1/keys/shared', { models: ['NB'] });
    await waitFor(async () => (await withKey(b, secret)).body.data?.length === 1, 5_000);

    const revokedAt = Date.now();
    await admin(a, 'DELETE', '/admin/v1/keys/shared');
    await waitFor(async () => (await withKey(b, secret)).status === 401, 5_000);
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
    expect(Date.now() - t0).toBeGreaterThan(0);
  });
});
