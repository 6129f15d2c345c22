/**
 * One simulator per test file, for the simulator's own unit tests (test/unit/sim/<x>/): `simulatorFixture` gives a
 * `sim` that stands for the running simulator (a stand-in object, usable in helpers defined at module level) and a
 * `use()` that a test file calls once at its top to start it before its tests, reset it before each, and close it
 * after. Also the simulator's control surfaces and its accounts as an accounts file's entries, for any test.
 */
import { simBAccount, simTAccount } from '../../sim/accounts';
import { startSimulator, type SimOptions, type Simulator } from '../../sim/server';

export interface SimulatorFixture {
  /** The running simulator; reading it outside a test of a file that called `use()` throws. */
  sim: Simulator;
  use(): void;
}

export function simulatorFixture(options: SimOptions, reset: (sim: Simulator) => Promise<void>): SimulatorFixture {
  let current: Simulator | undefined;
  const sim = new Proxy({} as Simulator, {
    get(_target, prop) {
      if (!current) throw new Error('no simulator running: call use() at the top of the test file, and read sim inside its tests');
      const value: unknown = Reflect.get(current, prop);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
  const use = () => {
    beforeAll(async () => {
      current = await startSimulator({ port: 0, ...options });
    });
    afterAll(async () => {
      await current?.close();
      current = undefined;
    });
    beforeEach(() => reset(current!));
  };
  return { sim, use };
}

/** One platform's counters from the simulator's /_sim/stats, as a function of the running simulator. */
export function statsOf(sim: Simulator, platform: 'T' | 'V' | 'B'): () => Promise<Record<string, number>> {
  return async () => ((await (await fetch(`${sim.url}/_sim/stats`)).json()) as Record<string, Record<string, number>>)[platform]!;
}

/**
 * Moves a simulated job on now (POST /_sim/jobs/:id/advance): a `[sim:hold]` job out of `queued` into a held
 * `running`, or any job to its end. Each phase is then read on purpose, whatever the machine's speed.
 */
export async function advanceJob(sim: Simulator, id: string, to: 'running' | 'done'): Promise<void> {
  const r = await fetch(`${sim.url}/_sim/jobs/${encodeURIComponent(id)}/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to }),
  });
  if (!r.ok) throw new Error(`advancing ${id} to ${to}: ${r.status} ${await r.text()}`);
}

/** How long a helper waits for a simulated job to end by itself: a bound against a hang, far above any job's duration. */
export const SIM_JOB_END_BOUND_MS = 60_000;

/** One account's capacity as GET /_sim/<x>/capacity shows it. */
export interface AccountCapacity {
  account: string;
  max_concurrent: number | null;
  running: number;
  peak_running: number;
  created_jobs: number;
  refused_creates: number;
  over_limit_jobs: number;
}

/**
 * The simulator's capacity control surface for one platform (sim/capacity.ts): read the accounts' counters, set a
 * limit (one account's, or the default), read an account's job intervals, forget the counters.
 */
export function capacityControl(sim: Pick<Simulator, 'url'>, platform: 'T' | 'V' | 'B') {
  const base = () => `${sim.url}/_sim/${platform.toLowerCase()}/capacity`;
  const json = async (r: Response) => ({ status: r.status, body: (await r.json()) as any });
  return {
    view: async (): Promise<{ default_max_concurrent: number | null; accounts: AccountCapacity[] }> => (await fetch(base())).json() as any,
    account: async (account: string): Promise<AccountCapacity | undefined> =>
      ((await (await fetch(base())).json()) as { accounts: AccountCapacity[] }).accounts.find((a) => a.account === account),
    set: async (body: Record<string, unknown>) =>
      json(await fetch(base(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })),
    intervals: async (account: string) => json(await fetch(`${base()}/intervals?account=${encodeURIComponent(account)}`)),
    resetStats: async () => json(await fetch(`${base()}/stats`, { method: 'DELETE' })),
  };
}

/** An entry of PLATFORM_T_ACCOUNTS_FILE for the simulator's T account `name` (sim/accounts.ts), served at `endpoint`. */
export function simTAccountEntry(name: string, endpoint: string): Record<string, unknown> {
  const { secretId, secretKey, subAppId } = simTAccount(name);
  return { id: name, secret_id: secretId, secret_key: secretKey, subapp_id: subAppId, endpoint };
}

/** An entry of PLATFORM_B_ACCOUNTS_FILE for the simulator's B account `name` (sim/accounts.ts), served at `endpoint`. */
export function simBAccountEntry(name: string, endpoint: string): Record<string, unknown> {
  const { accessKeyId, secretAccessKey } = simBAccount(name);
  return { id: name, access_key_id: accessKeyId, secret_access_key: secretAccessKey, endpoint };
}
