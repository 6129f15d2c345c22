/**
 * The cost rule (tasks/cost.ts): a task's estimate while it runs, its final figure once it ended, and a routed
 * task's final figure at what the member that served it bills — whichever reader asks (record, sync answer,
 * settlement).
 */
import { buildCatalogue } from '../../../platforms';
import { loadTaskPricing } from '../../../tasks/billing';
import { taskCost } from '../../../tasks/cost';
import { writeJsonFile } from '../../support/json-file';

const pricing = loadTaskPricing(buildCatalogue(), {
  PRICES_FILE: writeJsonFile({
    'VendorH-2.3': { currency: 'CNY', source: 'test', per_second: { '*': 0.5 } },
    H23: { currency: 'CNY', source: 'test', per_second: { '*': 0.3 } },
  }),
});
// A routed task's reservation is its dearest member's request.
const request = { kind: 'video' as const, model: 'VendorH-2.3', duration: 6 };
const servedBy = { platform: 'B', model: 'H23' };

test('a running task costs its estimate, at the request it was reserved at, whoever serves it', () => {
  expect(taskCost(pricing, { request, servedBy })).toEqual({
    usage: { seconds: 6 },
    cost: { amount: 3_000_000, currency: 'CNY', estimated: true },
  });
});

test('an ended routed task costs what the member that served it bills', () => {
  expect(taskCost(pricing, { request, servedBy, outcome: 'success', usage: {} })).toEqual({
    usage: { seconds: 6 },
    cost: { amount: 1_800_000, currency: 'CNY', estimated: false },
  });
});

test('an ended task that named its model costs what its model bills, by what the platform reported', () => {
  expect(taskCost(pricing, { request, outcome: 'success', usage: { seconds: 4 } }).cost).toEqual({
    amount: 2_000_000,
    currency: 'CNY',
    estimated: false,
  });
});

test.each([
  [undefined, 0],
  [true, 1_800_000],
])('a failed routed task billed %s by its platform costs %d', (billed, amount) => {
  expect(taskCost(pricing, { request, servedBy, outcome: 'failed', usage: {}, billed }).cost?.amount).toBe(amount);
});

test('a model the catalogue does not list is not priced: the rule throws, for its caller to say so', () => {
  expect(() => taskCost(pricing, { request: { ...request, model: 'no-such-model' }, outcome: 'success' })).toThrow();
});
