/**
 * The operator's commands against the shared stack's real Temporal server:
 * - `npm run temporal:cli -- …`: the docs' operator commands run the pinned Temporal CLI
 *   against the gateway's configured server (TEMPORAL_ADDRESS), with no `temporal` on the PATH and no --address flag;
 * - `npm run replay-failed`: a query Temporal refuses is reported with Temporal's reason;
 * - a cancelled task in Temporal's views: GenerationStatus `cancelled`, not `failed`, while
 *   the API still reads and lists it as `failed`, and replay-failed never replays it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SA } from '../../core/search-attributes';
import { REPO } from '../support/stack';
import { sharedStack } from '../support/shared-stack';
import { temporalClient, type TemporalTestClient } from '../support/temporal';

const { api, temporalAddress } = sharedStack();
const V_MODEL = 'vendor-video-1-0-pro-250528';

let temporal: TemporalTestClient;
beforeAll(async () => {
  temporal = await temporalClient(temporalAddress);
});
afterAll(async () => {
  await temporal?.close();
});

/** Runs the real `npm run replay-failed` script with the stack's configuration; never throws on its exit code. */
function replayFailed(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const stackEnv = JSON.parse(process.env.MEDIAGATE_TEST_STACK_ENV ?? '{}') as Record<string, string>;
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'scripts/replay-failed.ts'), ...args], {
    cwd: REPO,
    env: { ...process.env, ...stackEnv, TEMPORAL_ADDRESS: temporalAddress },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Visibility is eventually consistent: retries `read` (bounded) until `done` holds, and returns its last value. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    value = await read();
  }
  return value;
}

/** The workflow ids a visibility query lists. */
async function listed(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of temporal.client.workflow.list({ query })) ids.push(w.workflowId);
  return ids;
}

test('describe and list a task as docs/guides/repair.md writes them, through the configured address', async () => {
  const r = await api('alice').post('/v1/videos/generations', {
    model: 'vendor-video-1-0-pro-250528',
    prompt: 'operator cli [sim:duration=300]',
    duration: 5,
  });
  expect(r.status).toBe(200);
  const taskId = r.body.task_id as string;
  // Without PATH access to a `temporal` binary: the script finds the pinned one under .tools/.
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, ['--import', 'tsx', join(REPO, 'scripts/temporal-cli-run.ts'), ...args], {
      cwd: REPO,
      env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TEMPORAL_ADDRESS: temporalAddress },
      encoding: 'utf8',
    });
  const described = JSON.parse(cli('workflow', 'describe', '--workflow-id', taskId, '--output', 'json')) as {
    workflowExecutionInfo: { execution: { workflowId: string }; type: { name: string }; status: string };
  };
  expect(described.workflowExecutionInfo.execution.workflowId).toBe(taskId);
  expect(described.workflowExecutionInfo.type.name).toBe('generationWorkflow');
  expect(described.workflowExecutionInfo.status).toBe('WORKFLOW_EXECUTION_STATUS_COMPLETED');
  const listed = cli('workflow', 'list', '--query', `WorkflowId = '${taskId}'`, '--output', 'json');
  expect(listed).toContain(taskId);
});

describe('npm run replay-failed', () => {
  test('a query Temporal refuses: exit 1 naming Temporal\'s reason and the query sent, not only "Failed to list workflows"', () => {
    const r = replayFailed('--query', 'NoSuchAttribute = 1', '--dry-run');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('replay-failed: Failed to list workflows: ');
    // Temporal's own words (its INVALID_ARGUMENT details), naming what is wrong with the query.
    expect(r.stderr).toMatch(/invalid query.*NoSuchAttribute|NoSuchAttribute.*not (defined|found)/i);
    expect(r.stderr).toContain("The visibility query sent: WorkflowType = 'generationWorkflow' AND ExecutionStatus = 'Failed'");
    expect(r.stderr).toContain('(NoSuchAttribute = 1)');
  });
});

describe('a task the client cancelled', () => {
  test('is GenerationStatus cancelled in Temporal, failed (code cancelled) in the API and its failed filter, and never replayed', async () => {
    const alice = api('alice');
    const started = await alice.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'operator view of a cancel [sim:duration=20000]',
      duration: 5,
    });
    expect(started.status).toBe(200);
    const cancelledId = started.body.task_id as string;
    const refused = await alice.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'operator view of a failure [sim:fail=content_policy]',
      duration: 5,
    });
    const failedId = refused.body.task_id as string;

    expect([200, 202]).toContain((await alice.post(`/v1/generations/${cancelledId}/cancel`, {})).status);
    expect(await alice.waitForTask(cancelledId)).toMatchObject({ task_id: cancelledId, status: 'failed', error: { code: 'cancelled' } });
    expect(await alice.waitForTask(failedId)).toMatchObject({ task_id: failedId, status: 'failed', error: { code: 'content_policy' } });

    // Temporal's views tell the client's cancel from a failure.
    const described = await temporal.client.workflow.getHandle(cancelledId).describe();
    expect(described.status.name).toBe('CANCELLED');
    expect(described.typedSearchAttributes.get(SA.status)).toBe('cancelled');
    const both = `WorkflowId IN ('${cancelledId}', '${failedId}')`;
    expect(
      await eventually(
        () => listed(`GenerationStatus = 'failed' AND ${both}`),
        (ids) => ids.length > 0,
      ),
    ).toEqual([failedId]);
    expect(
      await eventually(
        () => listed(`GenerationStatus = 'cancelled' AND ${both}`),
        (ids) => ids.length > 0,
      ),
    ).toEqual([cancelledId]);

    // The API keeps the contract's four statuses: both are failed, and GET /v1/tasks?status=failed lists both.
    const failedList = await eventually(
      async () =>
        (
          (await alice.get('/v1/tasks?status=failed&page_size=100')).body as {
            data: { task_id: string; status: string; error?: { code: string } }[];
          }
        ).data,
      (data) => [cancelledId, failedId].every((id) => data.some((t) => t.task_id === id)),
    );
    expect(failedList.find((t) => t.task_id === cancelledId)).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    expect(failedList.find((t) => t.task_id === failedId)).toMatchObject({ status: 'failed', error: { code: 'content_policy' } });

    // replay-failed leaves it alone, named or matched by its reason, and says why.
    const named = replayFailed('--task-id', cancelledId);
    expect(named.code).toBe(0);
    expect(named.stdout).toContain(`skip    ${cancelledId}: it was cancelled at the client's request`);
    expect(named.stdout).toContain('Replayed 0 task(s)');
    const byReason = replayFailed('--query', `GenerationFailureReason = 'cancelled' AND WorkflowId = '${cancelledId}'`);
    expect(byReason.stdout).toContain('Replayed 0 task(s)');
    const after = await temporal.client.workflow.getHandle(cancelledId).describe();
    expect(after.runId).toBe(described.runId);
    expect(after.status.name).toBe('CANCELLED');
  });
});
