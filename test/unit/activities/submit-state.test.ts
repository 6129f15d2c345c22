/**
 * The submit's state and its one transition (activities/submit-state.ts): what an attempt takes from the last
 * heartbeat of the one before, what each event changes, and what the heartbeats say — in the shape every recorded
 * attempt left, since a retry after an upgrade reads the heartbeat of an attempt run by the build before.
 */
import {
  initialState,
  next,
  recordedAtOnce,
  unrecordedAttempt,
  type SubmitEvent,
  type SubmitProgress,
  type SubmitState,
} from '../../../activities/submit-state';

const run = (state: SubmitState, ...events: SubmitEvent[]) => events.reduce(next, state);

describe('initialState: what an attempt takes from the last heartbeat of the one before', () => {
  test('the first attempt knows nothing, and says it is reconciling', () => {
    expect(initialState(undefined)).toEqual({ memory: {}, recorded: { phase: 'reconciling' } });
  });

  test.each<[string, SubmitProgress, object]>([
    ['cut off mid-request: a job may exist', { phase: 'sending', sentAt: 1, account: 'one', member: 1 }, { mayHaveCreated: true }],
    // Runs recorded before routes name no member; before accounts, no account.
    ['cut off mid-request, recorded before routes and accounts', { phase: 'sending', sentAt: 1 }, { mayHaveCreated: true }],
    ['answered: nothing in flight', { phase: 'answered', account: 'one' }, {}],
    [
      'searching after a dedup refusal, stayed on its member',
      { phase: 'searching', account: 'one', member: 0, mayHaveCreated: true, searchingSince: 5, stayOn: 0, lastError: 'e' },
      { mayHaveCreated: true, searchingSince: 5, stayOn: 0, lastError: 'e' },
    ],
    ['failed while reconciling', { phase: 'reconciling', lastError: 'throttled' }, { lastError: 'throttled' }],
  ])('%s', (_name, earlier, memory) => {
    expect(initialState(earlier)).toEqual({ memory, recorded: { phase: 'reconciling', ...memory } });
  });
});

describe('next: the submit’s only transition', () => {
  const start = initialState(undefined);

  test('a phase recorded carries the memory as it stands', () => {
    const state = run(start, { type: 'answerLost' }, { type: 'sending', sentAt: 7, account: 'two', member: 1 });
    expect(state.recorded).toEqual({ mayHaveCreated: true, phase: 'sending', sentAt: 7, account: 'two', member: 1 });
  });

  test('a fact learnt goes into the memory at once and into the heartbeat with the next phase (the same record until then)', () => {
    const sending = run(start, { type: 'sending', sentAt: 7, account: 'one', member: 0 });
    const learnt = run(sending, { type: 'answered', account: 'one', member: 0 }, { type: 'mayHaveJobOn', member: 0 });
    expect(learnt.memory).toEqual({ stayOn: 0 });
    const answered = run(sending, { type: 'answered', account: 'one', member: 0 });
    expect(next(answered, { type: 'mayHaveJobOn', member: 0 }).recorded).toBe(answered.recorded);
    expect(run(learnt, { type: 'searchBegan', at: 9 }, { type: 'searching', account: 'one', member: 0 }).recorded).toEqual({
      stayOn: 0,
      searchingSince: 9,
      phase: 'searching',
      account: 'one',
      member: 0,
    });
  });

  test('a failure keeps the phase it failed in, with what was learnt since and why', () => {
    const state = run(
      start,
      { type: 'sending', sentAt: 7, account: 'one', member: 0 },
      { type: 'answerLost' },
      { type: 'mayHaveJobOn', member: 0 },
    );
    expect(next(state, { type: 'failed', error: 'reset' }).recorded).toEqual({
      mayHaveCreated: true,
      stayOn: 0,
      phase: 'sending',
      sentAt: 7,
      account: 'one',
      member: 0,
      lastError: 'reset',
    });
  });

  test('the memory only grows: no event forgets a fact (a control: the events do change the memory)', () => {
    const events: SubmitEvent[] = [
      { type: 'answerLost' },
      { type: 'sending', sentAt: 1, account: 'one', member: 0 },
      { type: 'mayHaveJobOn', member: 0 },
      { type: 'answered', account: 'one', member: 0 },
      { type: 'searchBegan', at: 2 },
      { type: 'searching', account: 'one', member: 0 },
      { type: 'reconciling' },
      { type: 'failed', error: 'e' },
    ];
    let state = start;
    for (const event of events) {
      const after = next(state, event);
      for (const [key, value] of Object.entries(state.memory)) expect(after.memory).toHaveProperty(key, value);
      state = after;
    }
    expect(state.memory).toEqual({ mayHaveCreated: true, stayOn: 0, searchingSince: 2 });
  });

  test('the state given is never changed', () => {
    const state = run(start, { type: 'sending', sentAt: 1, account: 'one', member: 0 });
    const frozen = JSON.stringify(state);
    run(state, { type: 'answerLost' }, { type: 'mayHaveJobOn', member: 0 }, { type: 'failed', error: 'e' });
    expect(JSON.stringify(state)).toBe(frozen);
  });

  test('what one attempt records, the next reads back', () => {
    const first = run(
      start,
      { type: 'sending', sentAt: 1, account: 'two', member: 1 },
      { type: 'answerLost' },
      { type: 'mayHaveJobOn', member: 1 },
    );
    const recorded = next(first, { type: 'failed', error: 'reset' }).recorded;
    expect(initialState(recorded).memory).toEqual({ mayHaveCreated: true, stayOn: 1, lastError: 'reset' });
  });
});

describe('what goes out at once, and what a retry assumes when nothing did', () => {
  test.each<[SubmitEvent, boolean]>([
    // The attempt's ticker records these within a second: a create answered sooner costs no heartbeat.
    [{ type: 'sending', sentAt: 1, account: 'one', member: 0 }, false],
    [{ type: 'answered', account: 'one', member: 0 }, false],
    // The next attempt needs these even if this one ends (or dies) before its next tick.
    [{ type: 'reconciling' }, true],
    [{ type: 'searching', account: 'one', member: 0 }, true],
    [{ type: 'failed', error: 'throttled' }, true],
  ])('%o at once: %s', (event, atOnce) => {
    expect(recordedAtOnce(event)).toBe(atOnce);
  });

  test('an earlier attempt that recorded nothing is taken to have sent a create, at the latest when this attempt was scheduled', () => {
    expect(unrecordedAttempt(42)).toEqual({ phase: 'sending', sentAt: 42 });
    expect(initialState(unrecordedAttempt(42))).toEqual({
      memory: { mayHaveCreated: true },
      recorded: { phase: 'reconciling', mayHaveCreated: true },
    });
  });
});
