/**
 * Workflow replay: the recorded histories of representative runs (test/fixtures/histories/*.json, made by
 * test/fixtures/record-histories.ts: success, content-policy failure, retried submit and polls, cancel, deadline,
 * a run replayed after an outage, a run woken by a platform callback, and both runs of a task that continued as
 * new) must replay against the current workflow code. A change that would break
 * running tasks in production (non-determinism) fails here; version it with patched() (docs/operations.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { InjectedSinks } from '@temporalio/worker';
import { workflowInterceptorModules, workflowsPath } from '../../worker/workflow-modules';
import type { TaskMetricsSinks } from '../../workflows/metrics-interceptor';
import type { LedgerSinks } from '../../workflows/settlement-interceptor';
import type { PushMonitorSinks, WebhookMetricsSinks } from '../../workflows/sinks';

jest.setTimeout(120_000);

// Replay workers log every state change at INFO; keep the test output to warnings. The Runtime is per process:
// if another test file in this Jest worker installed one first, keep that one.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // already installed
}

const FIXTURES = join(__dirname, '..', 'fixtures', 'histories');

/**
 * History JSON → proto, with the protobufjs copy that @temporalio/proto's types belong to. The SDK's own
 * historyFromJSON (which runReplayHistories calls for JSON input) fails in this install with "type must be a
 * Type": @temporalio/common and @temporalio/proto each get a nested protobufjs 8 (the root has protobufjs 7 for
 * another dependency), and its `instanceof Type` check fails across the two copies.
 */
const protojson = createRequire(require.resolve('@temporalio/proto'))('protobufjs/ext/protojson') as {
  fromJson(type: unknown, json: unknown, opts: { ignoreUnknownFields: boolean }): proto.temporal.api.history.v1.History;
};
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');

/** Histories of the webhook delivery workflow (workflows/webhook-delivery.ts), not of the generation workflow. */
const DELIVERY_FIXTURES = ['webhook-delivery.json'];

/**
 * Every fixture, including those in subfolders, which hold runs recorded before a versioned change and prove that
 * tasks started before it still replay: `pre-local-poll/` (before patch `poll-as-local-activity`) and
 * `pre-timing-from-worker/` (before `timing-from-worker`, `bounded-local-poll`, `wake-on-callback`,
 * `resubmit-transient-failures` and `store-results`), `pre-first-poll-on-push/` (a run woken by a callback before
 * patch `first-poll-on-push`).
 */
function histories(generationOnly = false) {
  return readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json') && !(generationOnly && DELIVERY_FIXTURES.includes(f)))
    .sort()
    .map((f) => ({
      workflowId: f.replace(/\.json$/, ''),
      history: protojson.fromJson(historyType, JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')), { ignoreUnknownFields: true }),
    }));
}

/** The worker's sinks, as the workflow interceptor expects them; they are not called during replay anyway. */
const noMetrics: InjectedSinks<TaskMetricsSinks & PushMonitorSinks & LedgerSinks & WebhookMetricsSinks> = {
  taskMetrics: { completed: { fn: () => undefined } },
  webhookMetrics: { settled: { fn: () => undefined } },
  pushMonitor: { seen: { fn: () => undefined } },
  ledger: { taskEnded: { fn: () => undefined } },
};

/** Replays every fixture against a bundle; returns `name: error` for each that failed. */
async function replayAll(bundle: WorkflowBundleWithSourceMap, generationOnly = false): Promise<string[]> {
  const failures: string[] = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle, sinks: noMetrics }, histories(generationOnly))) {
    if (r.error) failures.push(`${r.workflowId}: ${r.error.name}: ${r.error.message.split('\n')[0]}`);
  }
  return failures;
}

const bundle = (path: string) => bundleWorkflowCode({ workflowsPath: path, workflowInterceptorModules, logger: quietLogger });

const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} };

/** The patch ids a recorded run took (its `core_patch` markers). */
function patchesOf(name: string): string[] {
  const { events } = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as { events: { markerRecordedEventAttributes?: { markerName: string; details?: Record<string, { payloads: { data: string }[] }> } }[] };
  return events
    .map((e) => e.markerRecordedEventAttributes)
    .filter((m) => m?.markerName === 'core_patch')
    .map((m) => (JSON.parse(Buffer.from(m!.details!['patch-data']!.payloads[0]!.data, 'base64').toString('utf8')) as { id: string }).id);
}

/** The search attributes each upsert of a recorded run wrote, decoded. */
function searchAttributeUpsertsOf(name: string): Record<string, unknown>[] {
  const { events } = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as { events: { upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes: { indexedFields: Record<string, { data: string }> } } }[] };
  return events
    .map((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes.indexedFields)
    .filter((fields) => fields !== undefined)
    .map((fields) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, JSON.parse(Buffer.from(v.data, 'base64').toString('utf8')) as unknown])));
}

test('the fixtures cover the representative runs', () => {
  expect(histories().map((h) => h.workflowId)).toEqual(
    expect.arrayContaining([
      'success',
      'failure-content-policy',
      'retries-submit-and-poll',
      'cancel',
      'deadline-job-never-finishes',
      'replayed-after-outage',
      'woken-by-callback',
      'continue-as-new-first-run',
      'continue-as-new',
      'webhook-running-and-succeeded',
      'webhook-delivery',
    ]),
  );
  expect(histories().map((h) => h.workflowId)).toEqual(expect.arrayContaining(['pre-local-poll/success', 'pre-local-poll/deadline-job-never-finishes']));
  expect(histories().map((h) => h.workflowId)).toEqual(expect.arrayContaining(['pre-timing-from-worker/success', 'pre-timing-from-worker/cancel']));
  // The recorded shapes are what their names say: a callback signal, a continue-as-new.
  const eventTypes = (name: string) => (JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as { events: { eventType: string }[] }).events.map((e) => e.eventType);
  expect(eventTypes('woken-by-callback')).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED');
  expect(patchesOf('woken-by-callback')).toContain('first-poll-on-push');
  expect(patchesOf('pre-first-poll-on-push/woken-by-callback')).not.toContain('first-poll-on-push');
  expect(eventTypes('continue-as-new-first-run').at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
  // Recorded by the current code: a client's cancel is `cancelled` in Temporal's views (core/search-attributes.ts).
  expect(searchAttributeUpsertsOf('cancel').at(-1)).toEqual({ GenerationStatus: 'cancelled', GenerationFailureReason: 'cancelled' });
  // A task with a webhook announces its two events with one local-activity marker each, and no more: the
  // delivery's attempts (the first answered 500, so at least one retry or a superseded running event) are in the
  // delivery workflow's own history, each a local activity: a marker, no activity task.
  const markers = (name: string) => eventTypes(name).filter((t) => t === 'EVENT_TYPE_MARKER_RECORDED').length;
  expect(markers('webhook-running-and-succeeded') - markers('success')).toBe(2);
  expect(markers('webhook-delivery')).toBeGreaterThanOrEqual(2);
  expect(eventTypes('webhook-delivery')).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
});

test('every recorded history replays against the current workflow code', async () => {
  expect(await replayAll(await bundle(workflowsPath))).toEqual([]);
});

test('control: a new step added without patched() is caught as non-determinism', async () => {
  const failures = await replayAll(await bundle(join(FIXTURES, 'changed-workflow.ts')), true);
  expect(failures).toHaveLength(histories(true).length);
  for (const f of failures) expect(f).toMatch(/DeterminismViolationError|[Nn]ondetermin/);
});

test('control: the same step behind patched() replays cleanly', async () => {
  expect(await replayAll(await bundle(join(FIXTURES, 'patched-workflow.ts')), true)).toEqual([]);
});
