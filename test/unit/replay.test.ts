/**
 * The replay gate (docs/explanations/versioning.md): the recorded histories of representative runs must
 * replay against the current workflow code. test/fixtures/histories/1.0/ is the 1.0 set (made by
 * test/fixtures/record-histories.ts: push off and on, polls through an outage, a re-submission, a failover to a
 * second account, continue-as-new, cancel, the deadline, a run replayed after an outage, webhooks and a delivery);
 * it stays as recorded, and a later versioned change adds a folder of its own runs beside it (named after its patch). A change that would
 * break running tasks in production (non-determinism) fails here; from 1.0 on, every change is versioned with
 * patched().
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installQuietRuntime } from '../support/quiet-runtime';
import { workflowsPath } from '../../worker/workflow-modules';
import { bundleWorkflows, FIXTURES_DIR, fixtureHistories, replayHistories } from '../../scripts/replay-gate';

jest.setTimeout(120_000);

installQuietRuntime();

const FIXTURES = FIXTURES_DIR;
/** Next builds of the workflows: a change versioned with patched(), and the same change without (the controls). */
const BUILDS = join(__dirname, '..', 'fixtures', 'builds');
/** The 1.0 set: the runs every later build must replay. */
const V1 = '1.0';

/** Histories of the webhook delivery workflow (workflows/webhook-delivery.ts), not of the generation workflow. */
const isDelivery = (f: string) => f.endsWith('webhook-delivery.json');

/** Every fixture: the 1.0 set and the folders later versioned changes add beside it (named after their patch). */
const histories = (generationOnly = false) => fixtureHistories(FIXTURES, (f) => !(generationOnly && isDelivery(f)));

/** Replays every fixture against the workflows at `path`; returns `name: error` for each that failed. */
const replayAll = async (path: string, generationOnly = false) =>
  (await replayHistories(await bundleWorkflows(path), histories(generationOnly))).failures;

interface RecordedEvent {
  eventId: string;
  eventType: string;
  markerRecordedEventAttributes?: {
    markerName: string;
    details?: { data?: { payloads: { data: string }[] }; 'patch-data'?: { payloads: { data: string }[] } };
  };
  activityTaskScheduledEventAttributes?: { activityType: { name: string }; taskQueue: { name: string } };
  activityTaskStartedEventAttributes?: { attempt: number };
  activityTaskCompletedEventAttributes?: { scheduledEventId: string; result: { payloads: { data: string }[] } };
  upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes: { indexedFields: Record<string, { data: string }> } };
}
/** A recorded payload's JSON (base64 in the fixtures). */
const decodePayload = <T = Record<string, unknown>>(d: string) => JSON.parse(Buffer.from(d, 'base64').toString('utf8')) as T;

/** The events of a recorded run: one of a set's histories (the 1.0 set unless named). */
const eventsOf = (name: string, set: string = V1) =>
  (JSON.parse(readFileSync(join(FIXTURES, set, `${name}.json`), 'utf8')) as { events: RecordedEvent[] }).events;

/** The search attributes each upsert of a recorded run wrote, decoded. */
function searchAttributeUpsertsOf(name: string): Record<string, unknown>[] {
  const events = eventsOf(name);
  return events
    .map((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes.indexedFields)
    .filter((fields) => fields !== undefined)
    .map((fields) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, decodePayload<unknown>(v.data)])));
}

test('the 1.0 set covers the representative runs, each the shape its name says', () => {
  expect(histories().map((h) => h.workflowId)).toEqual(
    expect.arrayContaining(
      [
        'success',
        'running-then-success',
        'woken-by-callback',
        'outage-poll-backoff',
        'retries-submit-and-poll',
        'resubmission',
        'failover-to-second-account',
        'failure-content-policy',
        'cancel',
        'deadline-job-never-finishes',
        'replayed-after-outage',
        'continue-as-new-first-run',
        'continue-as-new',
        'webhook-running-and-succeeded',
        'webhook-delivery',
      ].map((n) => `${V1}/${n}`),
    ),
  );
  const types = (name: string) => eventsOf(name).map((e) => e.eventType.replace('EVENT_TYPE_', ''));
  const count = (name: string, type: string) => types(name).filter((t) => t === type).length;
  /** The local activities a run recorded (each a marker naming its activity type). */
  const localActivities = (name: string) =>
    eventsOf(name)
      .map((e) => e.markerRecordedEventAttributes?.details?.data?.payloads[0]?.data)
      .filter((d): d is string => d !== undefined)
      .map((d) => decodePayload<{ activity_type: string }>(d).activity_type);
  const submits = (name: string) =>
    eventsOf(name).filter((e) => e.activityTaskScheduledEventAttributes?.activityType.name === 'submitGeneration').length;
  // No run of the 1.0 shape takes a patch: it has none.
  for (const { workflowId } of histories()) {
    if (!workflowId.startsWith(`${V1}/`)) continue;
    expect([
      workflowId,
      eventsOf(workflowId.slice(V1.length + 1)).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch'),
    ]).toEqual([workflowId, []]);
  }
  // A short task woken by its job's callback: 20 events (the budget docs/explanations/sizing.md plans with), its fallback timer never cancelled.
  expect(types('woken-by-callback')).toContain('WORKFLOW_EXECUTION_SIGNALED');
  expect(types('woken-by-callback')).toHaveLength(20);
  expect(count('woken-by-callback', 'TIMER_CANCELED')).toBe(0);
  // Polls through an outage back off on durable timers (2 s, 4 s) between bounded local polls.
  expect(count('outage-poll-backoff', 'TIMER_STARTED')).toBeGreaterThanOrEqual(3);
  expect(submits('resubmission')).toBe(2);
  expect(searchAttributeUpsertsOf('failover-to-second-account')[0]).toMatchObject({ UpstreamAccount: 'two' });
  expect(types('continue-as-new-first-run').at(-1)).toBe('WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
  // A client's cancel is `cancelled` in Temporal's views (core/search-attributes.ts).
  expect(searchAttributeUpsertsOf('cancel').at(-1)).toEqual({ GenerationStatus: 'cancelled', GenerationFailureReason: 'cancelled' });
  // A task with a webhook announces its two events with one local-activity marker each, and no more: the
  // delivery's attempts (the first answered 500, so at least one retry) are in the delivery workflow's own
  // history, each a local activity: a marker, no activity task.
  expect(localActivities('webhook-running-and-succeeded').filter((t) => t === 'announceWebhookEvent')).toHaveLength(2);
  expect(new Set(localActivities('running-then-success'))).toEqual(new Set(['pollGeneration']));
  expect(count('webhook-delivery', 'MARKER_RECORDED')).toBeGreaterThanOrEqual(2);
  expect(types('webhook-delivery')).not.toContain('ACTIVITY_TASK_SCHEDULED');
});

test('webhook-close-after-attempt: a delivery run records its last attempt in a workflow task that does not end it', () => {
  const events = eventsOf('webhook-delivery', 'webhook-close-after-attempt');
  const types = events.map((e) => e.eventType.replace('EVENT_TYPE_', ''));
  const lastAttempt = events.map((e) => e.markerRecordedEventAttributes?.markerName).lastIndexOf('core_local_activity');
  expect(events.some((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).toBe(true);
  // After the last attempt: its workflow task ends with a timer, and the run ends in the next one.
  const after = types.slice(lastAttempt);
  expect(after).toContain('TIMER_STARTED');
  expect(after.slice(after.indexOf('TIMER_STARTED'))).toEqual([
    'TIMER_STARTED',
    'TIMER_FIRED',
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_COMPLETED',
    'WORKFLOW_EXECUTION_COMPLETED',
  ]);
  expect(types).not.toContain('WORKFLOW_TASK_FAILED');
});

/** The patch of the final webhook event's first attempt at the task's end (workflows/generation/announcement.ts). */
const FIRST_ATTEMPT = 'webhook-first-attempt';
/** The patch that schedules that attempt on the task's own task queue (the same file). */
const ATTEMPT_EAGER = 'webhook-attempt-eager';

/**
 * A recorded run of a set as steps: each marker as `<local activity type>` or `patch:<id>`, an activity's scheduling as
 * `scheduled:<type>@<queue>` (`webhooks` for the webhooks' task queue, `tasks` for the task's own), with every other
 * event's type.
 */
function webhookSteps(set: string, name: string): string[] {
  return eventsOf(name, set).map((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled)
      return `scheduled:${scheduled.activityType.name}@${scheduled.taskQueue.name.endsWith('-webhooks') ? 'webhooks' : 'tasks'}`;
    const details = e.markerRecordedEventAttributes?.details;
    const data = details?.data?.payloads[0]?.data ?? details?.['patch-data']?.payloads[0]?.data;
    if (!data) return e.eventType.replace('EVENT_TYPE_', '');
    const marker = decodePayload(data);
    return typeof marker.activity_type === 'string' ? marker.activity_type : `patch:${String(marker.id)}`;
  });
}

test("the webhook-first-attempt set: a webhook without running is attempted by an activity the task's final workflow task schedules, handed over only when not delivered", () => {
  const events = (name: string) => eventsOf(name, FIRST_ATTEMPT);
  const steps = (name: string) => webhookSteps(FIRST_ATTEMPT, name);
  /** The state the first attempt's record (its activity's result) gave its event. */
  const firstAttemptState = (name: string) => {
    const scheduled = events(name).find((e) => e.activityTaskScheduledEventAttributes?.activityType.name === 'firstWebhookAttempt');
    const completed = events(name).find((e) => e.activityTaskCompletedEventAttributes?.scheduledEventId === scheduled!.eventId);
    const result = completed!.activityTaskCompletedEventAttributes!.result;
    return decodePayload<{ delivery: { events: { state: string }[] } }>(result.payloads[0]!.data).delivery.events[0]!.state;
  };
  /** From the final record's last write to the run's end: that workflow task schedules the attempt on the webhooks' queue. */
  const end = (name: string, lastWrite: string) => steps(name).slice(steps(name).lastIndexOf(lastWrite));
  const attemptAtEnd = [
    'patch:webhook-first-attempt',
    'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
    'scheduled:firstWebhookAttempt@webhooks',
    'ACTIVITY_TASK_STARTED',
    'ACTIVITY_TASK_COMPLETED',
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_COMPLETED',
  ];
  expect(end('webhook-first-attempt', 'WORKFLOW_PROPERTIES_MODIFIED')).toEqual([
    'WORKFLOW_PROPERTIES_MODIFIED',
    ...attemptAtEnd,
    'WORKFLOW_EXECUTION_COMPLETED',
  ]);
  expect(firstAttemptState('webhook-first-attempt')).toBe('delivered');
  // A failed task: its settlement, then the attempt.
  expect(end('webhook-first-attempt-failed', 'settleTask')).toEqual(['settleTask', ...attemptAtEnd, 'WORKFLOW_EXECUTION_FAILED']);
  // Answered 500: handed over; the delivery run starts with the attempt carried and waits a back-off before the next.
  expect(firstAttemptState('webhook-handed-over')).toBe('pending');
  const delivery = steps('handed-over-webhook-delivery');
  expect(delivery.indexOf('patch:webhook-first-attempt')).toBeGreaterThan(-1);
  expect(delivery.indexOf('TIMER_STARTED')).toBeLessThan(delivery.indexOf('deliverWebhook'));
  expect(delivery.filter((s) => s === 'deliverWebhook')).toHaveLength(1);
  // No announcement for any of them; a webhook that asked for running keeps both announcements and takes not this patch.
  for (const name of ['webhook-first-attempt', 'webhook-first-attempt-failed', 'webhook-handed-over'])
    expect([name, steps(name).filter((s) => s === 'announceWebhookEvent')]).toEqual([name, []]);
  expect(steps('webhook-running-and-succeeded').filter((s) => s === 'announceWebhookEvent')).toHaveLength(2);
  expect(steps('webhook-running-and-succeeded')).not.toContain('patch:webhook-first-attempt');
});

test("the webhook-attempt-eager set: the final event's first attempt is scheduled on the task's own task queue, in the workflow task that wrote the final record", () => {
  const end = (name: string) => {
    const steps = webhookSteps(ATTEMPT_EAGER, name);
    return steps.slice(steps.lastIndexOf('WORKFLOW_PROPERTIES_MODIFIED'));
  };
  const attemptAtEnd = [
    'WORKFLOW_PROPERTIES_MODIFIED',
    `patch:${FIRST_ATTEMPT}`,
    'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
    `patch:${ATTEMPT_EAGER}`,
    'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
    'scheduled:firstWebhookAttempt@tasks',
    'ACTIVITY_TASK_STARTED',
    'ACTIVITY_TASK_COMPLETED',
  ];
  for (const name of ['webhook-first-attempt', 'webhook-handed-over'])
    expect([name, end(name).slice(0, attemptAtEnd.length)]).toEqual([name, attemptAtEnd]);
  // Not delivered: handed to the delivery workflow as before, which makes its retries on the webhooks' side.
  expect(webhookSteps(ATTEMPT_EAGER, 'handed-over-webhook-delivery').filter((s) => s === 'deliverWebhook')).toHaveLength(1);
  // The earlier set, recorded before the patch, keeps the webhooks' queue: replaying it takes the same path.
  expect(webhookSteps(FIRST_ATTEMPT, 'webhook-first-attempt')).toContain('scheduled:firstWebhookAttempt@webhooks');
});

/** The patch of the settlement step (workflows/generation.ts SETTLEMENT_STEP) and the runs recorded with it. */
const SETTLEMENT = 'settlement-step';

test('the settlement-step set: a success settled by its last poll (no event), every other end by a step of its own', () => {
  const events = (name: string) => eventsOf(name, SETTLEMENT);
  const patches = (name: string) => events(name).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length;
  const localActivities = (name: string) =>
    events(name)
      .map((e) => e.markerRecordedEventAttributes?.details?.data?.payloads[0]?.data)
      .filter((d): d is string => d !== undefined)
      .map((d) => decodePayload<{ activity_type?: string }>(d).activity_type)
      .filter((t): t is string => t !== undefined);
  const durable = (name: string) =>
    events(name).filter((e) => e.activityTaskScheduledEventAttributes?.activityType.name === 'settleTask').length;
  // Successes: no patch, no settlement of their own; the short task woken by its callback keeps its 20 events.
  for (const name of ['success', 'running-then-success', 'woken-by-callback', 'retries-submit-and-poll']) {
    expect([name, patches(name), localActivities(name).filter((t) => t === 'settleTask').length, durable(name)]).toEqual([name, 0, 0, 0]);
  }
  expect(events('woken-by-callback')).toHaveLength(20);
  // Failures and cancels: the patch, and one settlement in the workflow task that ended the task.
  for (const name of ['failure-content-policy', 'cancel', 'deadline-job-never-finishes']) {
    expect([name, patches(name), localActivities(name).filter((t) => t === 'settleTask').length, durable(name)]).toEqual([name, 1, 1, 0]);
  }
  // The ledger away at the end: the poll could not settle, the step's local tries failed, its durable activity did.
  expect(patches('success-ledger-away')).toBe(1);
  expect(durable('success-ledger-away')).toBe(1);
});

test('every recorded history replays against the current workflow code', async () => {
  expect(await replayAll(workflowsPath)).toEqual([]);
});

test('control: a new step added without patched() is caught as non-determinism', async () => {
  const failures = await replayAll(join(BUILDS, 'unversioned-build.ts'), true);
  expect(failures).toHaveLength(histories(true).length);
  for (const f of failures) expect(f).toMatch(/DeterminismViolationError|[Nn]ondetermin/);
});

test('control: the same step behind patched() replays cleanly', async () => {
  expect(await replayAll(join(BUILDS, 'next-build.ts'), true)).toEqual([]);
});

/** The patch of route support (workflows/generation.ts ROUTES) and the runs recorded with it. */
const ROUTES = 'routes';

test('the routes set: a routed task records its serving member once its submit answers (one patch); a direct task takes no such patch', () => {
  const events = (name: string) => eventsOf(name, ROUTES);
  const patchIds = (name: string) =>
    events(name)
      .map((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads[0]?.data)
      .filter((d): d is string => d !== undefined)
      .map((d) => decodePayload<{ id: string }>(d).id);
  const served = (name: string) =>
    events(name)
      .map((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes.indexedFields)
      .filter((f) => f?.GenerationModel !== undefined)
      .map((f) => ['GenerationModel', 'GenerationPlatform'].map((k) => decodePayload<string>(f![k]!.data)));
  const submitAttempt = (name: string) =>
    events(name).find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes?.attempt;
  expect([patchIds('route-served-by-first-member'), served('route-served-by-first-member')]).toEqual([[ROUTES], [['VendorH-2.3', 'T']]]);
  // Every T account overdue: the first attempt handed the task to B.
  expect([patchIds('route-failover-to-second-member'), served('route-failover-to-second-member')]).toEqual([[ROUTES], [['H23', 'B']]]);
  expect(submitAttempt('route-failover-to-second-member')).toBe(1);
  // A lost answer on T: a later attempt recovered the job on T.
  expect(served('route-lost-answer-recovered')).toEqual([['VendorH-2.3', 'T']]);
  expect(submitAttempt('route-lost-answer-recovered')).toBeGreaterThan(1);
  for (const name of ['success', 'woken-by-callback', 'failure-content-policy', 'cancel'])
    expect([name, patchIds(name).includes(ROUTES)]).toEqual([name, false]);
  expect(events('woken-by-callback')).toHaveLength(20);
});
