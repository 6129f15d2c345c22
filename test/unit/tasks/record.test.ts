/**
 * A task record's `usage` and `cost` (tasks/record.ts), from what the memo keeps: the estimate while the task
 * runs, the final figure from the platform's report once it succeeded, zero once it failed or was cancelled
 * unless its job ran on upstream and is billed (memo `charge`); a platform's own usage fields (V's
 * completion_tokens) kept beside the gateway's.
 */
import { TypedSearchAttributes } from '@temporalio/common';
import { SA } from '../../../core/search-attributes';
import { liveProgressOf, recordCost, taskRecordOf, toTaskRecord, withCost, withTaskCost, type TaskInfo } from '../../../tasks/record';
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

describe('a task started with a route (memo `route`, `servedBy`)', () => {
  const routed = loadTaskPricing(buildCatalogue(), {
    PRICES_FILE: writeJsonFile({
      'VendorH-2.3': { currency: 'CNY', source: 'test', per_second: { '*': 0.5 } },
      H23: { currency: 'CNY', source: 'test', per_second: { '*': 0.3 } },
    }),
  });
  // Its estimate is its reservation's: the dearest member's (tasks/routing.ts).
  const memo = { model: 'hailuo-2.3', route: 'hailuo-2.3', kind: 'video', billing: { kind: 'video', model: 'VendorH-2.3', duration: 6 } };
  const info = (status: string, extra: Record<string, unknown> = {}) =>
    ({
      workflowId: 't',
      status: { name: status },
      typedSearchAttributes: new TypedSearchAttributes(),
      memo: { ...memo, ...extra },
    }) as unknown as TaskInfo;

  test('its record names the route as its model and says who served it: null until its submit answered', () => {
    expect(toTaskRecord(info('RUNNING', { status: 'pending' }))).toEqual({
      task_id: 't',
      status: 'pending',
      model: 'hailuo-2.3',
      served_by: null,
    });
    const served = { platform: 'B', model: 'H23' };
    expect(toTaskRecord(info('RUNNING', { status: 'running', progress: 10, servedBy: served }))).toMatchObject({ served_by: served });
  });

  test('it runs at its reservation’s estimate and ends at what the member that served it bills', () => {
    const running = toTaskRecord(info('RUNNING', { status: 'pending', servedBy: { platform: 'B', model: 'H23' } }));
    expect(withTaskCost(info('RUNNING', { servedBy: { platform: 'B', model: 'H23' } }), running, routed)).toMatchObject({
      cost: { amount: 3, currency: 'CNY', estimated: true },
    });
    const result = { created: 1, data: [{ url: 'https://x/v.mp4' }] };
    const done = info('COMPLETED', { status: 'success', result, servedBy: { platform: 'B', model: 'H23' } });
    expect(withTaskCost(done, toTaskRecord(done), routed)).toMatchObject({
      served_by: { platform: 'B', model: 'H23' },
      cost: { amount: 1.8, estimated: false },
    });
  });

  test('a task that named a catalogue model carries no served_by (its model served it)', () => {
    expect(toTaskRecord({ ...info('RUNNING'), memo: { model: 'H23', platform: 'B', status: 'pending' } } as unknown as TaskInfo)).toEqual({
      task_id: 't',
      status: 'pending',
      model: 'H23',
    });
  });
});

describe('a running task’s status and progress (GenerationStatus, the memo, the workflow)', () => {
  const info = (status: string, memo: Record<string, unknown>, generationStatus?: string) =>
    ({
      workflowId: 't',
      runId: 'r',
      status: { name: status },
      typedSearchAttributes: new TypedSearchAttributes(generationStatus ? [{ key: SA.status, value: generationStatus }] : []),
      memo: { model: 'm', ...memo },
    }) as unknown as TaskInfo;
  const asked: TaskInfo[] = [];
  const live = async (i: TaskInfo) => {
    asked.push(i);
    return 35;
  };
  beforeEach(() => (asked.length = 0));

  test('a new run writes `running` to GenerationStatus alone: it reads running, its progress asked of the workflow', async () => {
    const running = info('RUNNING', { status: 'pending' }, 'running');
    expect(toTaskRecord(running)).toMatchObject({ status: 'running', progress: '0%' });
    expect(await liveProgressOf(running, live)).toBe(35);
    expect(await taskRecordOf(running, async () => ({ data: [], extras: {} }), undefined, live)).toMatchObject({
      status: 'running',
      progress: '35%',
    });
    expect(asked).toHaveLength(2);
  });

  test('a 1.0 run keeps status and progress in its memo too: read there, the workflow not asked', async () => {
    const running = info('RUNNING', { status: 'running', progress: 60 }, 'running');
    expect(toTaskRecord(running)).toMatchObject({ status: 'running', progress: '60%' });
    expect(await liveProgressOf(running, live)).toBeUndefined();
    expect(asked).toEqual([]);
  });

  test('GenerationStatus decides over a memo carried from an earlier run: pending again after a re-submission', async () => {
    expect(toTaskRecord(info('RUNNING', { status: 'running', progress: 60 }, 'pending'))).toMatchObject({ status: 'pending' });
    // No GenerationStatus at all (a task started without one): the memo says.
    expect(toTaskRecord(info('RUNNING', { status: 'running', progress: 60 }))).toMatchObject({ status: 'running' });
  });

  test('nothing is asked for a pending or ended task, nor when no reader wants it live', async () => {
    expect(await liveProgressOf(info('RUNNING', { status: 'pending' }, 'pending'), live)).toBeUndefined();
    expect(await liveProgressOf(info('COMPLETED', { status: 'success', result }, 'running'), live)).toBeUndefined();
    expect(await liveProgressOf(info('RUNNING', { status: 'pending' }, 'running'), undefined)).toBeUndefined();
    expect(asked).toEqual([]);
  });

  test('a success recorded while its run still settles is shown with the reader’s links, as once it has closed', async () => {
    const settling = info('RUNNING', { status: 'success', result }, 'running');
    const rendered = { data: [{ url: 'https://gw.example/v1/results/t/0' }], extras: {} };
    expect(await taskRecordOf(settling, async () => rendered, undefined)).toMatchObject({ status: 'success', data: rendered.data });
  });
});
