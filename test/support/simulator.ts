/**
 * One simulator per test file, for the simulator's own unit tests (test/unit/sim/<x>/): `simulatorFixture` gives a
 * `sim` that stands for the running simulator (a stand-in object, usable in helpers defined at module level) and a
 * `use()` that a test file calls once at its top to start it before its tests, reset it before each, and close it
 * after.
 */
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
