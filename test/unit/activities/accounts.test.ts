/**
 * The account pool (activities/accounts.ts): the weighted pick among healthy accounts, the health transitions
 * (refused → out for the cool-down → probed back; throttled → slowed, not removed; every account out) and what it
 * tells the health gauge and the operator.
 */
import { AccountPool, THROTTLED_WEIGHT_FACTOR, type AccountHealthObserver } from '../../../activities/accounts';
import type { PlatformAdapter } from '../../../platforms/platform';

const adapter = {} as PlatformAdapter;
const COOLDOWN = 60_000;

function pool(accounts: { id: string; weight?: number; models?: string[] }[], draws: number[] = []) {
  let clock = 1_000_000;
  const health: string[] = [];
  const alerts: string[] = [];
  const observer: AccountHealthObserver = {
    health: (platform, account, healthy) => health.push(`${platform}/${account}=${healthy ? 1 : 0}`),
    alert: (_platform, message) => alerts.push(message),
  };
  const queue = [...draws];
  const p = new AccountPool(
    'V',
    accounts.map((a) => ({ id: a.id, weight: a.weight ?? 1, ...(a.models ? { models: a.models } : {}), adapter })),
    { cooldownMs: COOLDOWN, throttleMs: 10_000, observer, now: () => clock, random: () => queue.shift() ?? Math.random() },
  );
  return { p, health, alerts, advance: (ms: number) => (clock += ms) };
}

function shares(p: AccountPool, n = 4_000): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const id = p.pick('m')!.id;
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / n]));
}

describe('the weighted pick', () => {
  test('draws in proportion to the weights', () => {
    const { p } = pool([
      { id: 'a', weight: 3 },
      { id: 'b', weight: 1 },
    ]);
    const s = shares(p);
    expect(s.a).toBeGreaterThan(0.7);
    expect(s.a).toBeLessThan(0.8);
  });

  test('the draw maps onto the cumulative weights', () => {
    const { p } = pool(
      [
        { id: 'a', weight: 3 },
        { id: 'b', weight: 1 },
      ],
      [0.74, 0.76],
    );
    expect(p.pick('m')!.id).toBe('a');
    expect(p.pick('m')!.id).toBe('b');
  });

  test('skips excluded accounts and accounts that do not serve the model', () => {
    const { p } = pool([{ id: 'a' }, { id: 'b', models: ['other'] }, { id: 'c' }]);
    for (let i = 0; i < 50; i++) expect(p.pick('m', new Set(['a']))!.id).toBe('c');
    expect(p.pick('other', new Set(['a', 'c']))!.id).toBe('b');
    expect(p.pick('m', new Set(['a', 'c']))).toBeUndefined();
  });
});

describe('health', () => {
  test('every account starts healthy on the gauge', () => {
    const { health } = pool([{ id: 'a' }, { id: 'b' }]);
    expect(health).toEqual(['V/a=1', 'V/b=1']);
  });

  test('a refused account leaves the rotation for the cool-down, alerts, and is probed back after it', () => {
    const { p, health, alerts, advance } = pool([{ id: 'a' }, { id: 'b' }]);
    p.refused('a', 'AccountOverdueError');
    expect(health.at(-1)).toBe('V/a=0');
    expect(alerts.at(-1)).toMatch(/account a of platform V was refused \(AccountOverdueError\): out of the rotation for 60 s/);
    for (let i = 0; i < 50; i++) expect(p.pick('m')!.id).toBe('b');

    advance(COOLDOWN - 1);
    expect(p.available('a')).toBe(false);
    advance(1);
    // Probed back: picked again; its next answer decides.
    expect(p.available('a')).toBe(true);
    expect(shares(p).a).toBeGreaterThan(0.4);
    p.succeeded('a');
    expect(health.at(-1)).toBe('V/a=1');
    expect(alerts.at(-1)).toMatch(/account a .* back in the rotation/);
  });

  test('a probe refused again starts another cool-down', () => {
    const { p, advance } = pool([{ id: 'a' }, { id: 'b' }]);
    p.refused('a', 'AccountOverdueError');
    advance(COOLDOWN);
    p.refused('a', 'AccountOverdueError');
    expect(p.available('a')).toBe(false);
    advance(COOLDOWN);
    expect(p.available('a')).toBe(true);
  });

  test('a throttled account is slowed to a quarter of its weight, not removed, and recovers', () => {
    const { p, health, advance } = pool([{ id: 'a' }, { id: 'b' }]);
    p.throttled('a', 2_000);
    expect(health).toEqual(['V/a=1', 'V/b=1']);
    const slowed = shares(p).a!;
    const expected = THROTTLED_WEIGHT_FACTOR / (1 + THROTTLED_WEIGHT_FACTOR);
    expect(slowed).toBeGreaterThan(expected - 0.05);
    expect(slowed).toBeLessThan(expected + 0.05);
    // Retry-After shorter than ACCOUNT_THROTTLE_MS: the throttle window still lasts 10 s.
    advance(10_000);
    expect(shares(p).a).toBeGreaterThan(0.4);
  });

  test('every account out: no pick, one alert at once, and when the first is back', () => {
    const { p, alerts, advance } = pool([{ id: 'a' }, { id: 'b' }]);
    p.refused('a', 'AccountOverdueError');
    advance(20_000);
    p.refused('b', 'AuthenticationError');
    expect(p.pick('m')).toBeUndefined();
    const before = alerts.length;
    const first = p.noAccount('m');
    expect(first.message).toBe(
      'No account of platform V can take a job for model m now (a: AccountOverdueError; b: AuthenticationError); the task waits within its deadline',
    );
    expect(first.retryAfterMs).toBe(30_000);
    p.noAccount('m');
    expect(alerts.slice(before)).toEqual([first.message]);
    advance(35_000);
    expect(p.noAccount('m').retryAfterMs).toBe(5_000);
    advance(5_000);
    expect(p.pick('m')!.id).toBe('a');
  });

  test("the platform's readiness: every account out, or not", () => {
    const { p, advance } = pool([{ id: 'a' }, { id: 'b', models: ['other'] }]);
    p.refused('a', 'AccountOverdueError');
    // b still serves another model: the platform has an account.
    expect(p.noAccountAtAll()).toBeUndefined();
    advance(15_000);
    p.refused('b', 'AuthenticationError');
    expect(p.noAccountAtAll()).toBe('a: AccountOverdueError, probed again in 45 s; b: AuthenticationError, probed again in 60 s');
    advance(45_000);
    expect(p.noAccountAtAll()).toBeUndefined();
  });

  test('the one-account shorthand is a pool of one account, `default`, that a refusal takes out like any other', () => {
    let clock = 0;
    const alerts: string[] = [];
    const single = AccountPool.single('V', adapter, {
      cooldownMs: COOLDOWN,
      now: () => clock,
      observer: { health: () => {}, alert: (_p, m) => alerts.push(m) },
    });
    expect(single.pick('m')!.id).toBe('default');
    expect(single.get(undefined)!.id).toBe('default');
    expect(single.get('other')).toBeUndefined();
    single.refused('default', 'SetLimitExceeded');
    // Out: the submit waits within the task's deadline instead of failing it, and the platform reads as having no account.
    expect(single.pick('m')).toBeUndefined();
    expect(single.noAccount('m').message).toBe(
      'No account of platform V can take a job for model m now (default: SetLimitExceeded); the task waits within its deadline',
    );
    expect(single.noAccountAtAll()).toMatch(/^default: SetLimitExceeded, probed again in \d+ s$/);
    expect(alerts[0]).toMatch(/account default of platform V was refused \(SetLimitExceeded\)/);
    clock += COOLDOWN;
    expect(single.pick('m')!.id).toBe('default');
  });
});
