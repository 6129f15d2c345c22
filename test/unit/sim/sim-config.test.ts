/**
 * sim/sim-config.ts: the simulator's configuration, its account concurrency variables in particular (T one task at
 * a time by default, V and B unlimited; empty or "unlimited" lifts a limit; anything else fails naming the variable).
 */
import { loadSimConfig } from '../../../sim/sim-config';

test("each platform's default concurrency per account follows its documentation", () => {
  const c = loadSimConfig({});
  // Unset V and B: no limit (the simulator's start leaves them unlimited, sim/state.ts DEFAULT_MAX_CONCURRENT).
  expect([c.SIM_T_MAX_CONCURRENT, c.SIM_V_MAX_CONCURRENT, c.SIM_B_MAX_CONCURRENT]).toEqual([1, undefined, undefined]);
});

test('a whole number sets a limit; empty or "unlimited" lifts one', () => {
  const c = loadSimConfig({ SIM_T_MAX_CONCURRENT: 'unlimited', SIM_V_MAX_CONCURRENT: ' 10 ', SIM_B_MAX_CONCURRENT: '' });
  expect([c.SIM_T_MAX_CONCURRENT, c.SIM_V_MAX_CONCURRENT, c.SIM_B_MAX_CONCURRENT]).toEqual([null, 10, null]);
  expect(loadSimConfig({ SIM_T_MAX_CONCURRENT: '0' }).SIM_T_MAX_CONCURRENT).toBe(0);
});

test('anything else stops the start, naming the variable', () => {
  for (const bad of ['-1', '2.5', 'many']) {
    expect(() => loadSimConfig({ SIM_V_MAX_CONCURRENT: bad })).toThrow(/SIM_V_MAX_CONCURRENT: must be a whole number/);
  }
});
