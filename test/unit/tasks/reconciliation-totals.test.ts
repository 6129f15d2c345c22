/**
 * tasks/reconciliation-totals.ts: the ledger's billed entries summed, and compared with the platform's day totals
 * one quantity at a time; a `total` difference only beyond TOTAL_TOLERANCE, and money left uncompared (with why)
 * when a billed task had no price or another currency.
 */
import { beyondTolerance, compareTotals, ledgerTotals, TOTAL_TOLERANCE, type BilledEntry } from '../../../tasks/reconciliation-totals';

const DAY = '2026-11-28';
const video = (seconds: number, micros = 0): BilledEntry => ({
  seconds,
  images: null,
  finalMicros: micros,
  currency: 'CNY',
  unpriced: null,
});
const image = (images: number, micros = 0): BilledEntry => ({
  seconds: null,
  images,
  finalMicros: micros,
  currency: 'CNY',
  unpriced: null,
});

test('equal totals are no difference', () => {
  const ours = ledgerTotals([video(8), video(5), image(2)], undefined);
  expect(ours).toMatchObject({ tasks: 3, video_seconds: 13, images: 2 });
  const theirs = [
    { quantity: 'video_seconds' as const, value: 13, count: 2 },
    { quantity: 'images' as const, value: 2, count: 1 },
  ];
  expect(compareTotals(DAY, ['video_seconds', 'images'], theirs, ours)).toEqual({ differences: [], skipped: [] });
});

test('one difference per quantity beyond its tolerance, with both sides, the gap and the tolerance', () => {
  const ours = ledgerTotals([video(8)], undefined);
  const theirs = [
    { quantity: 'video_seconds' as const, value: 16, count: 2 },
    { quantity: 'images' as const, value: 0, count: 0 },
  ];
  const { differences } = compareTotals(DAY, ['video_seconds', 'images'], theirs, ours);
  expect(differences).toEqual([
    {
      kind: 'total',
      at: Date.parse(`${DAY}T00:00:00Z`),
      details: {
        quantity: 'video_seconds',
        ledger: 8,
        platform: 16,
        difference: 8,
        tolerance: TOTAL_TOLERANCE.video_seconds,
        ledger_tasks: 1,
        platform_count: 2,
      },
    },
  ]);
});

test('money: a few fen of rounding are within tolerance, a clip is not', () => {
  const ours = ledgerTotals([video(4, 1_250_000), video(4, 1_250_000)], 'CNY');
  expect(ours).toMatchObject({ moneyMicros: 2_500_000, currency: 'CNY' });
  const money = (value: number) => [{ quantity: 'money' as const, value, currency: 'CNY' }];
  expect(compareTotals(DAY, ['money'], money(2.52), ours).differences).toEqual([]);
  const { differences } = compareTotals(DAY, ['money'], money(3.75), ours);
  expect(differences.map((d) => d.details)).toEqual([
    expect.objectContaining({ quantity: 'money', ledger: 2.5, platform: 3.75, difference: 1.25, currency: 'CNY' }),
  ]);
  expect(beyondTolerance('money', 1000, 1000.9)).toBe(false); // 0.09 % of the day
  expect(beyondTolerance('money', 1000, 1001.25)).toBe(true);
  expect(beyondTolerance('video_seconds', 100, 101)).toBe(true);
});

test('money is not compared when a billed task had no price or another currency, and the report says why', () => {
  const unpriced = ledgerTotals([video(4, 1_250_000), { ...video(5), unpriced: 'no_price' }], 'CNY');
  const out = compareTotals(DAY, ['money'], [{ quantity: 'money', value: 9, currency: 'CNY' }], unpriced);
  expect(out.differences).toEqual([]);
  expect(out.skipped).toEqual([expect.stringMatching(/^money not compared: .*no price.*no_price/)]);
  const dollars = ledgerTotals([{ ...video(4, 1_000_000), currency: 'USD' }], 'CNY');
  expect(compareTotals(DAY, ['money'], [{ quantity: 'money', value: 1, currency: 'CNY' }], dollars).skipped).toEqual([
    expect.stringMatching(/priced in USD, the bill in CNY/),
  ]);
});
