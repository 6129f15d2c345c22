/**
 * The console's sessions and the admin API's paged keys, against a real PostgreSQL: two API replicas sharing one
 * database, over real HTTP. Signing in gives an HttpOnly, SameSite=Strict cookie with an expiry; a wrong token is
 * told so, nothing more; a request that changes something needs the CSRF token; a sign-out on one replica ends the
 * session on the other; an expired session signs nobody in.
 */
import { ConsoleSessions } from '../../../api/console-sessions';
import { TaskLedger } from '../../../tasks/task-ledger';
import { usePostgres } from '../../support/postgres';
import { startAdminReplica, stopAdminReplica, type AdminReplica } from '../../support/admin-replica';
import { rawRequest } from '../../support/test-api';

const ADMIN_TOKEN = 'admin-token-for-console-tests-0123456789';
const postgres = usePostgres();

type Replica = AdminReplica;
const replicas: Replica[] = [];

/** A replica whose console sessions last `ttlMs`, run with `adminToken`. */
async function consoleReplica(url: string, ttlMs = 60_000, adminToken = ADMIN_TOKEN): Promise<Replica> {
  const r = await startAdminReplica(url, {
    adminToken,
    refreshMs: 60_000,
    deps: (ledger) => ({
      consoleSessions: new ConsoleSessions(ledger, ttlMs, adminToken),
      taskLedger: new TaskLedger(ledger, undefined as never),
    }),
  });
  replicas.push(r);
  return r;
}

afterAll(async () => {
  for (const r of replicas) await stopAdminReplica(r);
});

const signIn = (r: Replica, token: string, headers: Record<string, string> = {}) =>
  rawRequest(r.api.base, 'POST', '/admin/v1/sessions', { 'Content-Type': 'application/json', ...headers }, JSON.stringify({ token }));
const cookieOf = (setCookie: string | string[] | undefined) => /mediagate_console=([^;]+)/.exec(String(setCookie))![1]!;
const asSession = (r: Replica, cookie: string, method: string, path: string, extra: Record<string, string> = {}, body?: unknown) =>
  rawRequest(
    r.api.base,
    method,
    path,
    { Cookie: `mediagate_console=${cookie}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...extra },
    body === undefined ? undefined : JSON.stringify(body),
  );

describe('console sessions', () => {
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    const url = await postgres.pg.freshDatabase();
    a = await consoleReplica(url);
    b = await consoleReplica(url);
  });

  test('a wrong token is told so without a hint; the right one sets an HttpOnly, SameSite=Strict cookie with an expiry', async () => {
    for (const wrong of [`${ADMIN_TOKEN.slice(0, -1)}x`, 'x', `${ADMIN_TOKEN}${ADMIN_TOKEN}`]) {
      const r = await signIn(a, wrong);
      expect([r.status, r.body.error.message, r.headers['set-cookie']]).toEqual([401, 'The admin token is not correct.', undefined]);
    }
    const ok = await signIn(a, ADMIN_TOKEN);
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ object: 'console_session', csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const cookie = String(ok.headers['set-cookie']);
    expect(cookie).toMatch(/mediagate_console=[A-Za-z0-9_-]{43}; path=\/admin\/v1; expires=[^;]+; samesite=strict; httponly/);
    expect(cookie).not.toMatch(/secure/i);
    expect(cookie).not.toContain(ADMIN_TOKEN);
    // Only a digest of the cookie's value is kept.
    const rows = await a.ledger.db.selectFrom('admin_sessions').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(cookieOf(ok.headers['set-cookie']));
  });

  test("a sign-in from another origin is refused; from the API's own origin it is taken", async () => {
    expect((await signIn(a, ADMIN_TOKEN, { Origin: 'https://evil.example' })).status).toBe(403);
    expect((await signIn(a, ADMIN_TOKEN, { Origin: a.api.base })).status).toBe(201);
  });

  test('the session works on every replica; a change needs the CSRF token; sign-out on one replica ends it on all', async () => {
    const ok = await signIn(a, ADMIN_TOKEN);
    const cookie = cookieOf(ok.headers['set-cookie']);
    const csrf = ok.body.csrf_token as string;
    expect((await asSession(b, cookie, 'GET', '/admin/v1/keys')).status).toBe(200);
    expect((await asSession(b, cookie, 'GET', '/admin/v1/sessions/current')).body).toMatchObject({ signed_in: true, csrf_token: csrf });

    const noCsrf = await asSession(b, cookie, 'POST', '/admin/v1/keys', {}, { id: 'made-without-csrf' });
    expect([noCsrf.status, noCsrf.body.error.code]).toEqual([403, 'csrf_token_invalid']);
    const wrongCsrf = await asSession(b, cookie, 'POST', '/admin/v1/keys', { 'X-CSRF-Token': `${csrf}x` }, { id: 'made-with-wrong-csrf' });
    expect(wrongCsrf.status).toBe(403);
    const made = await asSession(b, cookie, 'POST', '/admin/v1/keys', { 'X-CSRF-Token': csrf }, { id: 'made-in-console' });
    expect(made.status).toBe(201);
    expect((await b.ledger.db.selectFrom('api_keys').select('id').execute()).map((k) => k.id)).toEqual(['made-in-console']);

    expect((await asSession(a, cookie, 'DELETE', '/admin/v1/sessions/current', { 'X-CSRF-Token': csrf })).status).toBe(200);
    for (const r of [a, b]) {
      const after = await asSession(r, cookie, 'GET', '/admin/v1/keys');
      expect([after.status, after.body.error.code]).toEqual([401, 'session_expired']);
      expect((await asSession(r, cookie, 'GET', '/admin/v1/sessions/current')).body).toEqual({
        object: 'console_session',
        signed_in: false,
      });
    }
  });

  test('a new ADMIN_TOKEN ends the sessions made with the old one: the old cookie lists and makes nothing', async () => {
    const url = await postgres.pg.freshDatabase();
    const before = await consoleReplica(url);
    const ok = await signIn(before, ADMIN_TOKEN);
    const cookie = cookieOf(ok.headers['set-cookie']);
    const csrf = ok.body.csrf_token as string;
    expect((await asSession(before, cookie, 'GET', '/admin/v1/keys')).status).toBe(200);
    // The same database after a restart with a rotated token.
    const NEW_TOKEN = 'rotated-admin-token-for-console-tests-9876543210';
    const after = await consoleReplica(url, 60_000, NEW_TOKEN);
    const listed = await asSession(after, cookie, 'GET', '/admin/v1/keys');
    expect([listed.status, listed.body.error.code]).toEqual([401, 'session_expired']);
    const made = await asSession(after, cookie, 'POST', '/admin/v1/keys', { 'X-CSRF-Token': csrf }, { id: 'made-with-old-session' });
    expect([made.status, made.body.error.code]).toEqual([401, 'session_expired']);
    expect((await asSession(after, cookie, 'GET', '/admin/v1/sessions/current')).body.signed_in).toBe(false);
    expect(await after.ledger.db.selectFrom('api_keys').select('id').where('id', '=', 'made-with-old-session').execute()).toEqual([]);
    // The old token no longer signs in; the new one does, and its session works.
    expect((await signIn(after, ADMIN_TOKEN)).status).toBe(401);
    const fresh = cookieOf((await signIn(after, NEW_TOKEN)).headers['set-cookie']);
    expect((await asSession(after, fresh, 'GET', '/admin/v1/keys')).status).toBe(200);
    // Nothing stored holds the token.
    const rows = await after.ledger.db.selectFrom('admin_sessions').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(NEW_TOKEN);
  });

  test('an expired session signs nobody in', async () => {
    const short = await consoleReplica(await postgres.pg.freshDatabase(), 200);
    const cookie = cookieOf((await signIn(short, ADMIN_TOKEN)).headers['set-cookie']);
    expect((await asSession(short, cookie, 'GET', '/admin/v1/keys')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect((await asSession(short, cookie, 'GET', '/admin/v1/keys')).status).toBe(401);
  });
});

describe('GET /admin/v1/keys: paged, searchable, with each budget’s state', () => {
  let a: Replica;
  const admin = (path: string, method = 'GET', body?: unknown) =>
    rawRequest(
      a.api.base,
      method,
      path,
      { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body === undefined ? undefined : JSON.stringify(body),
    );
  beforeAll(async () => {
    a = await consoleReplica(await postgres.pg.freshDatabase());
    for (let i = 0; i < 12; i++) {
      const budget = i % 4 === 0 ? { budget: { amount: 10, currency: 'USD', period: 'month' } } : {};
      expect((await admin('/admin/v1/keys', 'POST', { id: `k-${String(i).padStart(2, '0')}`, ...budget })).status).toBe(201);
    }
  });

  test('a page at a time, with the total and whether more follow', async () => {
    const first = await admin('/admin/v1/keys?page=1&page_size=5');
    expect(first.body).toMatchObject({ total: 13, page: 1, page_size: 5, has_more: true });
    expect(first.body.data.map((k: { id: string }) => k.id)).toEqual(['alice', 'k-00', 'k-01', 'k-02', 'k-03']);
    const last = await admin('/admin/v1/keys?page=3&page_size=5');
    expect([last.body.data.length, last.body.has_more]).toEqual([3, false]);
    expect((await admin('/admin/v1/keys?page_size=501')).body.error.param).toBe('page_size');
    expect((await admin('/admin/v1/keys?page=0')).body.error.param).toBe('page');
  });

  test('search and budgeted narrow the list; a budget shows what is left', async () => {
    expect((await admin('/admin/v1/keys?search=k-1')).body.data.map((k: { id: string }) => k.id)).toEqual(['k-10', 'k-11']);
    const budgeted = await admin('/admin/v1/keys?budgeted=true');
    expect(budgeted.body.data.map((k: { id: string }) => k.id)).toEqual(['k-00', 'k-04', 'k-08']);
    expect(budgeted.body.data[0].budget_state).toEqual({ period_start: new Date().toISOString().slice(0, 7), spent: 0, remaining: 10 });
    expect((await admin('/admin/v1/keys/k-01')).body.budget_state).toBeNull();
  });
});
