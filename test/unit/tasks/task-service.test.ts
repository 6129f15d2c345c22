/**
 * tasks/task-service.ts against a recording Temporal client (test/support/recording-temporal.ts): what a start sends
 * (the workflow id, the task queue, the reuse policy, the search attributes, the memo every read is made from, the
 * key's share of the queues), that a second start under an id is refused as Temporal refuses it, and what the reads
 * make of what Temporal describes: a key sees only its own tasks, a closed run reads as its outcome, and a key's
 * list and count ask visibility for that key's generation tasks only.
 */
import { WorkflowIdReusePolicy } from '@temporalio/client';
import type { ModelRecord } from '../../../core/catalogue';
import { SA } from '../../../core/search-attributes';
import { WORKFLOW_TYPE, type GenerationInput, type GenerationRequest, type TaskMemo } from '../../../core/task';
import { buildCatalogue } from '../../../platforms';
import { isAlreadyStarted, TaskService, TEMPORAL_CALL_DEADLINE_MS } from '../../../tasks/task-service';
import { recordingTemporal, type RecordingTemporalOptions } from '../../support/recording-temporal';

const catalogue = buildCatalogue();
const T_MODEL = catalogue.find('video', 'VendorK-2.1')!;
const B_MODEL = catalogue.find('video', 'K21')!;
const REQUEST: GenerationRequest = { kind: 'video', model: T_MODEL.id, prompt: 'a fox', duration: 5 };

function serviceOver(opts: RecordingTemporalOptions = {}, callDeadlineMs?: number) {
  const temporal = recordingTemporal(opts);
  const service = new TaskService(temporal.client, { taskQueue: 'generation-q', ...(callDeadlineMs ? { callDeadlineMs } : {}) });
  return { temporal, service };
}

const searchAttributes = (pairs: { key: { name: string }; value: unknown }[] | undefined) =>
  Object.fromEntries((pairs ?? []).map((p) => [p.key.name, p.value]));

describe('start', () => {
  test('starts one generation workflow under the task id, on the task queue, never reusing the id, bounded in time', async () => {
    const { temporal, service } = serviceOver();
    const started = await service.start('key_alice', T_MODEL, REQUEST, { taskId: 'task_1', requestHash: 'fp-1', weight: 2 });
    expect(started).toEqual({ taskId: 'task_1', model: T_MODEL.id });
    expect(temporal.starts).toHaveLength(1);
    const { workflowType, options } = temporal.starts[0]!;
    expect(workflowType).toBe(WORKFLOW_TYPE);
    expect(options).toMatchObject({
      workflowId: 'task_1',
      taskQueue: 'generation-q',
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      priority: { fairnessKey: 'key_alice', fairnessWeight: 2 },
    });
    expect(options.args).toEqual([
      { kind: 'video', platform: T_MODEL.platform, model: T_MODEL.id, request: REQUEST, ownerId: 'key_alice', weight: 2 },
    ] satisfies GenerationInput[]);
    expect(searchAttributes(options.typedSearchAttributes)).toEqual({
      [SA.owner.name]: 'key_alice',
      [SA.status.name]: 'pending',
      [SA.model.name]: T_MODEL.id,
      [SA.platform.name]: T_MODEL.platform,
      [SA.kind.name]: 'video',
    });
    expect(options.memo).toMatchObject({
      model: T_MODEL.id,
      kind: 'video',
      platform: T_MODEL.platform,
      status: 'pending',
      requestHash: 'fp-1',
      billing: { kind: 'video', model: T_MODEL.id, duration: 5 },
      asked: { prompt: 'a fox', seconds: 5 },
    });
    expect(temporal.deadlines).toHaveLength(1);
    expect(temporal.deadlines[0]).toBeGreaterThan(TEMPORAL_CALL_DEADLINE_MS - 1_000);
    expect(temporal.deadlines[0]).toBeLessThanOrEqual(TEMPORAL_CALL_DEADLINE_MS);
  });

  test('a routed task starts as its first member and is searched by its route name; weight 1 is not written', async () => {
    const { temporal, service } = serviceOver();
    const bRequest = { ...REQUEST, model: B_MODEL.id };
    const route = {
      name: 'fox-route',
      members: [
        { platform: B_MODEL.platform, model: B_MODEL.id, request: bRequest },
        { platform: T_MODEL.platform, model: T_MODEL.id, request: REQUEST },
      ],
    };
    const started = await service.start('key_alice', T_MODEL, REQUEST, { taskId: 'task_r', route, weight: 1 });
    expect(started).toEqual({ taskId: 'task_r', model: 'fox-route' });
    const { options } = temporal.starts[0]!;
    expect(options.args).toEqual([
      { kind: 'video', platform: B_MODEL.platform, model: B_MODEL.id, request: bRequest, ownerId: 'key_alice', route },
    ]);
    const attributes = searchAttributes(options.typedSearchAttributes);
    expect(attributes[SA.route.name]).toBe('fox-route');
    expect(attributes).not.toHaveProperty(SA.model.name);
    expect(attributes).not.toHaveProperty(SA.platform.name);
    expect(options.memo).toMatchObject({ model: 'fox-route', route: 'fox-route' });
    expect(options.memo).not.toHaveProperty('platform');
  });

  test('a second start under the same task id is refused as already started (the caller then replays it)', async () => {
    const { service } = serviceOver();
    await service.start('key_alice', T_MODEL, REQUEST, { taskId: 'task_1' });
    const again = await service.start('key_alice', T_MODEL, REQUEST, { taskId: 'task_1' }).catch((err: unknown) => err);
    expect(isAlreadyStarted(again)).toBe(true);
    expect(isAlreadyStarted(new Error('other'))).toBe(false);
  });

  test('a configured bound replaces the default one', async () => {
    const { temporal, service } = serviceOver({}, 2_500);
    await service.start('key_alice', T_MODEL, REQUEST, { taskId: 'task_1' });
    expect(temporal.deadlines[0]).toBeLessThanOrEqual(2_500);
    expect(temporal.deadlines[0]).toBeGreaterThan(1_500);
  });
});

describe('reads', () => {
  async function withStartedTask(entry: ModelRecord = T_MODEL) {
    const over = serviceOver();
    await over.service.start('key_alice', entry, REQUEST, { taskId: 'task_1', requestHash: 'fp-1' });
    return over;
  }

  test("the owner reads the task's record; another key, like a missing task, reads nothing", async () => {
    const { service } = await withStartedTask();
    expect(await service.read('task_1', 'key_alice', undefined)).toEqual({ task_id: 'task_1', status: 'pending', model: T_MODEL.id });
    expect(await service.read('task_1', 'key_bob', undefined)).toBeUndefined();
    expect(await service.read('task_missing', 'key_alice', undefined)).toBeUndefined();
    expect(await service.exists('task_1')).toBe(true);
    expect(await service.exists('task_missing')).toBe(false);
  });

  test('the fingerprint of the request that started the task comes with its record', async () => {
    const { service } = await withStartedTask();
    expect(await service.readWithFingerprint('task_1', 'key_alice', undefined)).toEqual({
      record: { task_id: 'task_1', status: 'pending', model: T_MODEL.id },
      requestHash: 'fp-1',
    });
    expect(await service.readWithFingerprint('task_1', 'key_bob', undefined)).toBeUndefined();
  });

  test('a closed run reads as its outcome: a failure with its error; a success with its result', async () => {
    const { temporal, service } = await withStartedTask();
    const error = { message: 'The platform is down', code: 'upstream_unavailable' as const };
    temporal.close('task_1', 'FAILED', { status: 'failed', error } satisfies Partial<TaskMemo>);
    expect(await service.read('task_1', 'key_alice', undefined)).toMatchObject({ status: 'failed', error });
    expect(await service.readResult('task_1', 'key_alice')).toEqual({ status: 'failed' });

    const result = { created: 1_700_000_000, data: [{ url: 'https://cdn.example/v.mp4' }] };
    temporal.close('task_1', 'COMPLETED', { status: 'success', result } satisfies Partial<TaskMemo>);
    expect(await service.read('task_1', 'key_alice', undefined)).toMatchObject({ status: 'success', created: result.created });
    expect(await service.readResult('task_1', 'key_alice')).toEqual({ status: 'success', result });
    expect(await service.readResult('task_1', undefined)).toEqual({ status: 'success', result });
    expect(await service.readResult('task_1', 'key_bob')).toBeUndefined();
  });

  test("a workflow of another type under the id is no task (a reconciliation run's id read as a task's)", async () => {
    const { temporal, service } = await withStartedTask();
    temporal.workflows.set('task_1', { ...temporal.workflows.get('task_1')!, type: 'reconciliationWorkflow' });
    expect(await service.read('task_1', 'key_alice', undefined)).toBeUndefined();
    expect(await service.exists('task_1')).toBe(false);
  });
});

describe("a key's list and count ask visibility for that key's generation tasks", () => {
  test('count: the running ones of the key', async () => {
    const { temporal, service } = serviceOver({ count: () => 3 });
    expect(await service.countRunning('key_alice')).toBe(3);
    expect(temporal.queries).toEqual([
      `${SA.owner.name} = 'key_alice' AND WorkflowType = '${WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`,
    ]);
  });

  test('list: each filter as its clause; a replayed task (two runs of one id) is one record, the newer run', async () => {
    const { temporal: source, service: starter } = serviceOver();
    await starter.start('key_alice', T_MODEL, REQUEST, { taskId: 'task_1' });
    await starter.start('key_alice', T_MODEL, REQUEST, { taskId: 'task_2' });
    source.close('task_2', 'FAILED', { status: 'failed', error: { message: 'down', code: 'upstream_unavailable' } });
    const newerRun = source.workflows.get('task_1')!;
    const olderRun = { ...source.workflows.get('task_2')!, workflowId: 'task_1' };
    const { temporal, service } = serviceOver({ count: () => 3, list: () => [newerRun, olderRun, source.workflows.get('task_2')!] });

    const page = await service.list('key_alice', 1, 10, { status: 'failed', model: 'fox-route' }, undefined);
    expect(page.total).toBe(3);
    expect(page.records.map((r) => [r.task_id, r.status])).toEqual([
      ['task_1', 'pending'],
      ['task_2', 'failed'],
    ]);
    const owner = `${SA.owner.name} = 'key_alice' AND WorkflowType = '${WORKFLOW_TYPE}'`;
    const model = `(${SA.model.name} = 'fox-route' OR ${SA.route.name} = 'fox-route')`;
    const failed = `ExecutionStatus IN ('Failed', 'Canceled', 'Terminated', 'TimedOut')`;
    expect(new Set(temporal.queries)).toEqual(new Set([`${owner} AND ${model} AND ${failed}`]));

    const second = await service.list('key_alice', 2, 1, {}, undefined);
    expect(second.records.map((r) => r.task_id)).toEqual(['task_2']);
  });

  test('list: a running status is the execution status and GenerationStatus both', async () => {
    const { temporal, service } = serviceOver();
    await service.list('key_alice', 1, 10, { status: 'running' }, undefined);
    expect(temporal.queries[0]).toContain(`ExecutionStatus = 'Running' AND ${SA.status.name} = 'running'`);
    await service.list('key_alice', 1, 10, { status: 'success' }, undefined);
    expect(temporal.queries.at(-1)).toContain(`ExecutionStatus = 'Completed'`);
  });
});
