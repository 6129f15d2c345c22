/**
 * A rolling worker deploy with a workflow change between the two builds (docs/explanations/versioning.md,
 * "Deploying workers"), the procedure the docs give: the replay gate (scripts/replay-gate.ts) against the running
 * cluster's histories first — it refuses the unversioned change and passes the versioned one — then workers of the
 * new build start beside the old, then the old ones stop (SIGTERM: they finish what they hold). Tasks started by
 * the old build and resumed by the new one, and tasks started after, all succeed, one upstream job each, and no
 * workflow task fails anywhere (a non-deterministic resume would fail its workflow task and stall the task).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { SA } from '../../core/search-attributes';
import { bundleWorkflows, clusterHistories, replayHistories } from '../../scripts/replay-gate';
import { NEXT_BUILD_STEP_BEFORE } from '../fixtures/builds/next-build';
import { useStack } from '../support/use-stack';
import { expectOneJobPerTask, startTasks, until, waitAll } from './faults-support';

jest.setTimeout(300_000);

const BUILDS = join(__dirname, '..', 'fixtures', 'builds');
const gw = useStack({ name: 'rolling-deploy' });

/** A build's workflow bundle written where WORKFLOW_BUNDLE_PATH can name it, as `npm run build` writes one. */
async function buildFile(entry: string): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'mediagate-build-')), 'workflow-bundle.js');
  writeFileSync(file, (await bundleWorkflows(join(BUILDS, entry))).code);
  return file;
}

const eventTypes = async (id: string) =>
  ((await gw.client.workflow.getHandle(id).fetchHistory()).events ?? []).map((e) => temporal.api.enums.v1.EventType[e.eventType!]!);

/** The patch ids a task's history took (its core_patch markers). */
async function patchesOf(id: string): Promise<string[]> {
  const events = (await gw.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  return events
    .map((e) => e.markerRecordedEventAttributes)
    .filter((m) => m?.markerName === 'core_patch')
    .map((m) => (JSON.parse(Buffer.from(m!.details!['patch-data']!.payloads![0]!.data!).toString('utf8')) as { id: string }).id);
}

test('old-build tasks resume on the new build, new tasks take the change, none fails or stalls; the gate refuses an unversioned change', async () => {
  const [next, unversioned] = [await buildFile('next-build.ts'), await buildFile('unversioned-build.ts')];
  const jobsBefore = (await gw.sim.stats()).V.jobsCreated;
  // Old build: tasks whose jobs run well past the deploy, polled meanwhile.
  const before = await startTasks(gw.alice, 12, 'rolling: started by the old build [sim:duration=15000]');
  await until(
    'every old-build task has its job',
    async () =>
      // Running is GenerationStatus (new runs write no memo for it: patch quieter-task).
      (
        await Promise.all(
          before.map(async (id) => (await gw.client.workflow.getHandle(id).describe()).typedSearchAttributes.get(SA.status)),
        )
      ).every((s) => s === 'running'),
    60_000,
  );

  // The gate, against the running cluster's histories: the unversioned change breaks them, the versioned one does not.
  const refused = await replayHistories({ codePath: unversioned }, clusterHistories(gw.client, 100));
  expect(refused.failures.filter((f) => /[Nn]ondetermin|DeterminismViolation/.test(f)).length).toBeGreaterThanOrEqual(before.length);
  const passed = await replayHistories({ codePath: next }, clusterHistories(gw.client, 100));
  expect(passed.replayed).toBeGreaterThanOrEqual(before.length);
  expect(passed.failures).toEqual([]);

  // The roll: a new-build worker beside the old, then the old one stops gracefully.
  const [oldWorker] = gw.stack.workers;
  await gw.stack.startWorker({ WORKFLOW_BUNDLE_PATH: next });
  await oldWorker!.stop(30_000);
  const after = await startTasks(gw.alice, 6, 'rolling: started by the new build [sim:duration=3000]');

  const ids = [...before, ...after];
  const records = await waitAll(gw.alice, ids, 120_000);
  await expectOneJobPerTask({ sim: gw.sim, client: gw.client, ids, records, jobsBefore, expected: 'success' });
  // A task reads as ended (its record) a little before its workflow returns — its settlement step and final webhook
  // event run after the status is written — and the next build's memo field is written as it returns: the checks
  // below read the closed workflows.
  await Promise.all(ids.map((id) => gw.client.workflow.getHandle(id).result()));
  for (const id of ids) expect([id, (await eventTypes(id)).filter((t) => t === 'EVENT_TYPE_WORKFLOW_TASK_FAILED')]).toEqual([id, []]);
  // Every task finished on the new build; only those it started took the step before.
  for (const id of ids) expect([id, (await gw.client.workflow.getHandle(id).describe()).memo?.finishedBy]).toEqual([id, 'next-build']);
  for (const id of before) expect(await patchesOf(id)).not.toContain(NEXT_BUILD_STEP_BEFORE);
  for (const id of after) expect(await patchesOf(id)).toContain(NEXT_BUILD_STEP_BEFORE);
  process.stdout.write(
    `[rolling-deploy] resumed on the new build=${before.length} started on it=${after.length} succeeded=${records.filter((r) => r.status === 'success').length} workflowTaskFailures=0 gate: refused ${refused.failures.length}/${refused.replayed} unversioned, passed ${passed.replayed} versioned\n`,
  );
});
