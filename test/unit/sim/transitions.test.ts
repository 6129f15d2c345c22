/**
 * The simulator's start-up split into named steps: what it holds (sim/state.ts) and how it
 * notices its jobs' state changes (sim/transitions.ts), each pinned on its own. The whole simulator's behaviour
 * stays covered by the platform simulator tests, which start it over HTTP.
 */
import { JobStore, type SimState } from '../../../sim/jobs';
import { SimulatorState } from '../../../sim/state';
import { TransitionWatcher } from '../../../sim/transitions';

describe('SimulatorState: outages', () => {
  const state = new SimulatorState({});
  afterAll(() => state.close());

  test('a counted outage applies to its platform and operation only, and is dropped once spent', () => {
    state.outages.push({ platform: 'V', op: 'submit', status: 503, remaining: 1 });
    expect(state.activeOutage('B', 'submit', Date.now())).toBeUndefined();
    expect(state.activeOutage('V', 'poll', Date.now())).toBeUndefined();
    const outage = state.activeOutage('V', 'submit', Date.now());
    expect(outage).toMatchObject({ status: 503 });
    outage!.remaining! -= 1;
    expect(state.activeOutage('V', 'submit', Date.now())).toBeUndefined();
    expect(state.outages).toEqual([]);
  });

  test('a timed outage for every platform ends at its time', () => {
    const now = Date.now();
    state.outages.push({ platform: '*', op: '*', status: 'reset', until: now + 1_000 });
    expect(state.activeOutage('T', 'list', now)).toMatchObject({ status: 'reset' });
    expect(state.activeOutage('T', 'list', now + 1_000)).toBeUndefined();
  });

  test('recorded requests are capped at the newest 5,000, and a reset empties them and the counters', () => {
    for (let i = 0; i < 5_010; i++)
      state.record({ platform: 'V', op: 'poll', method: 'GET', path: `/${i}`, query: '', headers: {}, body: undefined, at: i });
    expect(state.requests).toHaveLength(5_000);
    expect(state.requests[0]!.path).toBe('/10');
    state.stats.V.polls = 3;
    const reset = jest.fn();
    state.resetListeners.push(reset);
    state.reset();
    expect(state.requests).toHaveLength(0);
    expect(state.stats.V.polls).toBe(0);
    expect(reset).toHaveBeenCalledTimes(1);
  });
});

describe('TransitionWatcher', () => {
  test('fires once per change of a job created since it started, and never again after a terminal state', () => {
    let clock = Date.now() + 1_000;
    const jobs = new JobStore({ defaultDurationMs: () => 400, now: () => clock });
    const watcher = new TransitionWatcher(jobs, 60_000);
    const seen: [SimState, SimState][] = [];
    watcher.on('V', (_job, from, to) => seen.push([from, to]));
    jobs.create({ platform: 'V', kind: 'video', model: 'm', directives: {}, outputs: 1, meta: {} }, 'cgt-');
    watcher.check();
    expect(seen).toEqual([]);
    clock += 150;
    watcher.check();
    watcher.check();
    clock += 500;
    watcher.check();
    clock += 500;
    watcher.check();
    watcher.stop();
    expect(seen).toEqual([
      ['queued', 'running'],
      ['running', 'succeeded'],
    ]);
  });

  test('a job already there when it starts replays nothing', () => {
    let clock = Date.now() - 10_000;
    const jobs = new JobStore({ defaultDurationMs: () => 400, now: () => clock });
    jobs.create({ platform: 'B', kind: 'image', model: 'm', directives: {}, outputs: 1, meta: {} }, 'b-');
    clock = Date.now();
    const watcher = new TransitionWatcher(jobs, 60_000);
    const seen: unknown[] = [];
    watcher.on('B', (...args) => seen.push(args));
    watcher.check();
    watcher.stop();
    expect(seen).toEqual([]);
  });
});
