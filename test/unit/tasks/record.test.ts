/**
 * A task record's `usage` and `cost` (tasks/record.ts), from what the memo keeps: the estimate while the task
 * runs, the final figure from the platform's report once it succeeded, zero once it failed or was cancelled
 * unless its job ran on upstream and is billed (memo `charge`); a platform's own usage fields (V's
 * completion_tokens) kept beside the gateway's.
 */
import { recordCost, withCost, withTaskCost } from '../../../tasks/record';
import { buildCatalogue } from '../../../platforms';
import { writeJsonFile } from '../../support/json-file';
import { loadTaskPricing } from '../../../tasks/billing';

const pricing = loadTaskPricing(buildCatalogue(), {
  PRICES_FILE: writeJsonFile({
    'vendor-video-1-0-pro-250528': {
      currency: 'CNY',
      source: 'test',
      per_token: { per_million: 15, tokens_per_second: { '720p': 20592 } },
    },
  }),
});
const billing = { kind: 'video', model: 'vendor-video-1-0-pro-250528', duration: 5, resolution: '720p' };
const result = { created: 1, data: [{ url: 'https://x/v.mp4' }], usage: { tokens: 244_800 } };

test('a running task carries the estimate', () => {
  expect(recordCost(pricing, billing, {})).toEqual({
    usage: { seconds: 5, tokens: 102_960 },
    cost: { amount: 1.5444, currency: 'CNY', estimated: true },
  });
});

test('a task that succeeded carries the final figure from the tokens the platform reported', () => {
  expect(recordCost(pricing, billing, { outcome: 'success', result })).toEqual({
    usage: { seconds: 5, tokens: 244_800 },
    cost: { amount: 3.672, currency: 'CNY', estimated: false },
  });
});

test.each(['failed', 'cancelled'] as const)('a %s task whose job the platform does not bill costs zero', (outcome) => {
  expect(recordCost(pricing, billing, { outcome })!.cost).toEqual({ amount: 0, currency: 'CNY', estimated: false });
});

describe("a task that did not succeed, read from its workflow's description (memo `charge`)", () => {
  const described = (charge: unknown) => ({
    status: { name: 'CANCELLED' },
    memo: { billing, status: 'failed', ...(charge ? { charge } : {}) },
  });
  const record = { task_id: 't', status: 'failed', error: { code: 'cancelled' } };

  test('its job left running upstream (no cancel on the platform): the cost of the job, final', () => {
    expect(withTaskCost(described({ job: 'running', billed: true }), record, pricing)).toMatchObject({
      usage: { seconds: 5, tokens: 102_960 },
      cost: { amount: 1.5444, currency: 'CNY', estimated: false },
    });
    // What the platform reported before it ended, where it did.
    expect(withTaskCost(described({ job: 'running', billed: true, usage: { tokens: 100_000 } }), record, pricing)).toMatchObject({
      cost: { amount: 1.5, estimated: false },
    });
  });

  test('its job cancelled upstream, never created, or from before the memo said: zero', () => {
    for (const charge of [{ job: 'cancelled', billed: false }, { job: 'none', billed: false }, undefined]) {
      expect(withTaskCost(described(charge), record, pricing)).toMatchObject({
        usage: { seconds: 0, tokens: 0 },
        cost: { amount: 0, currency: 'CNY', estimated: false },
      });
    }
  });
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
