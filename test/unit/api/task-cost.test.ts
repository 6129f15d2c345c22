/**
 * A task record's `usage` and `cost` (api/task-cost.ts), from what the memo keeps: the estimate while the task
 * runs, the final figure from the platform's report once it succeeded, zero once it failed or was cancelled; a
 * platform's own usage fields (V's completion_tokens) kept beside the gateway's.
 */
import { recordCost, withCost } from '../../../api/task-cost';
import { buildCatalogue } from '../../../platforms';
import { TaskPricing } from '../../../pricing/price-table';
import { writeJsonFile } from '../../support/json-file';

const pricing = TaskPricing.load(buildCatalogue(), {
  PRICES_FILE: writeJsonFile({ 'vendor-video-1-0-pro-250528': { currency: 'CNY', source: 'test', per_token: { per_million: 15, tokens_per_second: { '720p': 20592 } } } }),
});
const billing = { kind: 'video', model: 'vendor-video-1-0-pro-250528', duration: 5, resolution: '720p' };
const result = { created: 1, data: [{ url: 'https://x/v.mp4' }], usage: { tokens: 244_800 } };

test('a running task carries the estimate', () => {
  expect(recordCost(pricing, billing, {})).toEqual({ usage: { seconds: 5, tokens: 102_960 }, cost: { amount: 1.5444, currency: 'CNY', estimated: true } });
});

test('a task that succeeded carries the final figure from the tokens the platform reported', () => {
  expect(recordCost(pricing, billing, { outcome: 'success', result })).toEqual({
    usage: { seconds: 5, tokens: 244_800 },
    cost: { amount: 3.672, currency: 'CNY', estimated: false },
  });
});

test.each(['failed', 'cancelled'] as const)('a %s task costs zero', (outcome) => {
  expect(recordCost(pricing, billing, { outcome })!.cost).toEqual({ amount: 0, currency: 'CNY', estimated: false });
});

test('a task without billing (started before tasks kept it) or of a withdrawn model carries neither field', () => {
  expect(recordCost(pricing, undefined, {})).toBeUndefined();
  expect(recordCost(pricing, { kind: 'video', model: 'gone' }, {})).toBeUndefined();
  expect(withCost({ task_id: 't' }, undefined)).toEqual({ task_id: 't' });
});

test("the platform's own usage fields stay beside the gateway's", () => {
  const priced = recordCost(pricing, billing, { outcome: 'success', result });
  expect(withCost({ task_id: 't', usage: { completion_tokens: 244_800, total_tokens: 244_800 } }, priced)).toEqual({
    task_id: 't',
    usage: { completion_tokens: 244_800, total_tokens: 244_800, seconds: 5, tokens: 244_800 },
    cost: { amount: 3.672, currency: 'CNY', estimated: false },
  });
});
