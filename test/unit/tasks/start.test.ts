/**
 * tasks/start.ts, the one start path, with its real parts (the catalogue, validation, the in-flight cap, the task
 * service) over a recording Temporal client (test/support/recording-temporal.ts) and a recording ledger: a bad
 * request, a model the key may not use or a key at its cap is refused before anything is reserved or started; an
 * accepted one starts one workflow under its task id; a repeated Idempotency-Key gets the task its first request
 * started, or is refused when the body differs; a start that did not happen gives its reservation back.
 */
import { parseApiKeysEnv, type ApiKey } from '../../../keys/api-keys';
import { buildCatalogue } from '../../../platforms';
import { idempotentTaskId } from '../../../tasks/idempotency';
import { InflightLimits } from '../../../tasks/inflight';
import { TaskRefused } from '../../../tasks/refusal';
import { TaskStarter, type StartRequest, type TaskStarterDeps } from '../../../tasks/start';
import type { TaskLedger } from '../../../tasks/task-ledger';
import { TaskService } from '../../../tasks/task-service';
import { recordingTemporal, type RecordingTemporalOptions } from '../../support/recording-temporal';
import { webhookTargets } from '../../../webhooks/targets';

const catalogue = buildCatalogue();
const [ALICE] = parseApiKeysEnv('alice:sk-start-path-0123456789abcdef');
const VIDEO = { model: 'VendorK-2.1', prompt: 'a fox', duration: 5 };
const request = (body: unknown, more: Partial<StartRequest> = {}): StartRequest => ({
  kind: 'video',
  body,
  fingerprint: 'fp-1',
  origin: 'https://gateway.example',
  ...more,
});

/** A ledger that reserves every task (or answers `reserve` as scripted) and records what it was asked. */
function recordingLedger(reserve?: () => Awaited<ReturnType<TaskLedger['reserve']>>) {
  const reserved: string[] = [];
  const released: string[] = [];
  const ledger = {
    async reserve(_key: ApiKey, taskId: string) {
      reserved.push(taskId);
      return reserve?.() ?? { reserved: true };
    },
    async releaseUnstarted(taskId: string) {
      released.push(taskId);
    },
  };
  return { ledger: ledger as unknown as TaskLedger, reserved, released };
}

function starterOver(opts: { temporal?: RecordingTemporalOptions; deps?: Partial<TaskStarterDeps>; running?: number } = {}) {
  const temporal = recordingTemporal(opts.temporal);
  const tasks = new TaskService(temporal.client, { taskQueue: 'generation-q' });
  const counted: string[] = [];
  const startedModels: string[] = [];
  const starter = new TaskStarter({
    catalogue,
    enabledPlatforms: new Set(['T', 'B', 'V']),
    inputUrlAllowPrivateOrigins: new Set(),
    webhooks: webhookTargets({ secrets: { forKey: async () => undefined }, allowPrivateOrigins: new Set() }),
    tasks,
    inflight: new InflightLimits(2, async (owner) => {
      counted.push(owner);
      return opts.running ?? 0;
    }),
    onStarted: (_entry, model) => startedModels.push(model),
    replayWaitMs: 0,
    ...opts.deps,
  });
  return { temporal, starter, counted, startedModels };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err as TaskRefused,
  );

describe('refused before anything is reserved or started', () => {
  test.each([
    ['no prompt', { model: 'VendorK-2.1', duration: 5 }, 'prompt'],
    ['an unknown model', { ...VIDEO, model: 'no-such-model' }, 'model'],
    ['a duration the model does not take', { ...VIDEO, duration: 7 }, 'duration'],
    ['webhook_events without a webhook_url', { ...VIDEO, webhook_events: ['task.succeeded'] }, 'webhook_events'],
  ])('%s: invalid_request naming the field', async (_what, body, param) => {
    const { ledger, reserved } = recordingLedger();
    const { temporal, starter, counted } = starterOver({ deps: { ledger } });
    const err = await refusal(starter.start(ALICE!, request(body)));
    expect(err).toBeInstanceOf(TaskRefused);
    expect(err).toMatchObject({ kind: 'invalid_request', details: { param } });
    expect({ reserved, counted, starts: temporal.starts }).toEqual({ reserved: [], counted: [], starts: [] });
  });

  test('a model the key may not use: not_allowed, nothing reserved', async () => {
    const { ledger, reserved } = recordingLedger();
    const { temporal, starter } = starterOver({ deps: { ledger } });
    const key = { ...ALICE!, models: new Set(['GV-3.1']) };
    const err = await refusal(starter.start(key, request(VIDEO)));
    expect(err).toMatchObject({ kind: 'not_allowed', details: { param: 'model', code: 'model_not_allowed' } });
    expect(reserved).toEqual([]);
    expect(temporal.starts).toEqual([]);
  });
});

describe('an accepted request', () => {
  test("starts one workflow under a fresh task id, with the key's id, the request's fingerprint and the key's weight", async () => {
    const { temporal, starter, startedModels } = starterOver();
    const outcome = await starter.start({ ...ALICE!, weight: 3 }, request(VIDEO));
    expect(outcome).toMatchObject({ replayed: false, model: 'VendorK-2.1', entry: { id: 'VendorK-2.1', platform: 'T' } });
    expect(outcome.taskId).toMatch(/^task_/);
    expect(temporal.starts).toHaveLength(1);
    expect(temporal.starts[0]!.options).toMatchObject({
      workflowId: outcome.taskId,
      memo: { requestHash: 'fp-1', model: 'VendorK-2.1' },
      priority: { fairnessKey: 'alice', fairnessWeight: 3 },
    });
    expect(temporal.starts[0]!.options.args![0]).toMatchObject({ ownerId: 'alice', model: 'VendorK-2.1', weight: 3 });
    expect(startedModels).toEqual(['VendorK-2.1']);
    expect((await starter.start(ALICE!, request(VIDEO))).taskId).not.toBe(outcome.taskId);
  });

  test('a key at its cap of tasks in flight: too_many after the reservation, which goes back; nothing started', async () => {
    const { ledger, reserved, released } = recordingLedger();
    const { temporal, starter } = starterOver({ deps: { ledger }, running: 2 });
    const err = await refusal(starter.start(ALICE!, request(VIDEO)));
    expect(err).toMatchObject({ kind: 'too_many', details: { code: 'too_many_tasks_in_flight' } });
    expect(reserved).toHaveLength(1);
    expect(released).toEqual(reserved);
    expect(temporal.starts).toEqual([]);
  });

  test('a start that failed gives the reservation back; one whose workflow exists after all keeps it', async () => {
    const failing = recordingLedger();
    const down = starterOver({ deps: { ledger: failing.ledger }, temporal: { refuseStarts: new Error('unavailable') } });
    await expect(down.starter.start(ALICE!, request(VIDEO))).rejects.toThrow('unavailable');
    expect(failing.reserved).toHaveLength(1);
    expect(failing.released).toEqual(failing.reserved);

    const lost = recordingLedger();
    const answerLost = starterOver({ deps: { ledger: lost.ledger }, temporal: { loseStartAnswers: new Error('connection reset') } });
    await expect(answerLost.starter.start(ALICE!, request(VIDEO))).rejects.toThrow('connection reset');
    expect(lost.reserved).toHaveLength(1);
    expect(lost.released).toEqual([]);
  });
});

describe('a repeated Idempotency-Key', () => {
  test("names the same task id; the same body gets the first request's task, a different body is refused", async () => {
    const { temporal, starter } = starterOver();
    const first = await starter.start(ALICE!, request(VIDEO, { idempotencyKey: 'order-7' }));
    expect(first.taskId).toBe(idempotentTaskId(ALICE!, 'order-7'));
    const again = await starter.start(ALICE!, request(VIDEO, { idempotencyKey: 'order-7' }));
    expect(again).toMatchObject({ replayed: true, taskId: first.taskId, record: { task_id: first.taskId, status: 'pending' } });

    const other = await refusal(
      starter.start(ALICE!, request({ ...VIDEO, prompt: 'a cat' }, { idempotencyKey: 'order-7', fingerprint: 'fp-2' })),
    );
    expect(other).toMatchObject({ kind: 'conflict', details: { code: 'idempotency_key_reused', taskId: first.taskId } });
    expect(temporal.workflows.size).toBe(1);
  });

  test("with a ledger: an entry reserved by another request's body is refused at once, without a start", async () => {
    const { ledger } = recordingLedger(() => ({ reserved: false, existingRequestHash: 'fp-other' }));
    const { temporal, starter } = starterOver({ deps: { ledger } });
    const err = await refusal(starter.start(ALICE!, request(VIDEO, { idempotencyKey: 'order-8' })));
    expect(err).toMatchObject({ kind: 'conflict', details: { code: 'idempotency_key_reused' } });
    expect(temporal.starts).toEqual([]);
  });

  test('with a ledger: the same body whose task is still starting elsewhere is told to retry (idempotency_key_in_use)', async () => {
    const { ledger } = recordingLedger(() => ({ reserved: false, existingRequestHash: 'fp-1' }));
    const { starter } = starterOver({ deps: { ledger } });
    const err = await refusal(starter.start(ALICE!, request(VIDEO, { idempotencyKey: 'order-9' })));
    expect(err).toMatchObject({ kind: 'conflict', details: { code: 'idempotency_key_in_use', retryAfterSeconds: 1 } });
  });
});
