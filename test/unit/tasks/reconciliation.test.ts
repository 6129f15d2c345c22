/**
 * tasks/reconciliation.ts: the pace every request to a platform's records keeps (its billing API's documented rate),
 * on a clock of the test's own, so nothing depends on the machine's speed.
 */
import { pacer, RECORDS_RATE_PER_SECOND } from '../../../tasks/reconciliation';

/** A clock that moves only when the pacer sleeps, and the times each request was let through. */
function fakeTime() {
  let now = 1_000_000;
  const sent: number[] = [];
  return {
    sleep: async (ms: number) => {
      now += ms;
    },
    clock: () => now,
    advance: (ms: number) => (now += ms),
    sent,
    mark: () => sent.push(now),
  };
}

test.each(Object.entries(RECORDS_RATE_PER_SECOND))(
  'platform %s: %d requests a second at most, however fast they are asked for',
  async (_p, rate) => {
    const t = fakeTime();
    const pace = pacer(rate, t.sleep, t.clock);
    for (let i = 0; i < rate * 3; i++) {
      await pace();
      t.mark();
    }
    // Any second-long window holds at most `rate` requests.
    for (let i = rate; i < t.sent.length; i++) expect(t.sent[i]! - t.sent[i - rate]!).toBeGreaterThanOrEqual(1000);
    // And no request waits longer than its turn: three seconds' worth take three seconds, less one gap.
    expect(t.sent.at(-1)! - t.sent[0]!).toBe(3000 - 1000 / rate);
  },
);

test('a pause between requests is not made up for by a burst', async () => {
  const t = fakeTime();
  const pace = pacer(5, t.sleep, t.clock);
  await pace();
  t.mark();
  t.advance(10_000);
  for (let i = 0; i < 3; i++) {
    await pace();
    t.mark();
  }
  expect(t.sent.slice(1).map((at) => at - t.sent[1]!)).toEqual([0, 200, 400]);
});
