/**
 * The budget view (ledger/entries.ts budgetView): the one computation of a budget's spent and remaining, which the
 * reservation's refusal, the admin API's and GET /v1/usage's budget states and the near-budget gauge all show.
 */
import { budgetView } from '../../../ledger/entries';

const budget = { micros: 5_000_000, currency: 'USD' as const, period: 'month' as const };
const at = new Date('2026-03-14T10:00:00Z');

test('what was committed in the period is spent; the rest of the budget remains', () => {
  expect(budgetView(budget, 1_250_000, at)).toEqual({
    period: 'month',
    periodKey: '2026-03',
    budgetMicros: 5_000_000,
    currency: 'USD',
    spentMicros: 1_250_000,
    remainingMicros: 3_750_000,
  });
});

test('a final figure above its estimate can take the spent past the budget: nothing remains, never less than nothing', () => {
  expect(budgetView(budget, 5_400_000, at)).toMatchObject({ spentMicros: 5_400_000, remainingMicros: 0 });
});

test.each([
  ['day', '2026-03-14'],
  ['total', 'total'],
] as const)('a %s budget counts the row %s', (period, periodKey) => {
  expect(budgetView({ ...budget, period }, 0, at)).toMatchObject({ periodKey, remainingMicros: 5_000_000 });
});
