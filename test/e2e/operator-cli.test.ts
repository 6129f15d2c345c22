/**
 * The operator's commands against the shared stack's real Temporal server:
 * - `npm run temporal:cli -- …` (issue 14, item 18): the docs' operator commands run the pinned Temporal CLI
 *   against the gateway's configured server (TEMPORAL_ADDRESS), with no `temporal` on the PATH and no --address flag;
 * - `npm run replay-failed` (issue 18, item 14): a query Temporal refuses is reported with Temporal's reason.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from '../support/stack';
import { sharedStack } from '../support/shared-stack';

const { api, temporalAddress } = sharedStack();

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

test('describe and list a task as docs/operations.md writes them, through the configured address', async () => {
  const r = await api('alice').post('/v1/videos/generations', { model: 'vendor-video-1-0-pro-250528', prompt: 'operator cli [sim:duration=300]', duration: 5 });
  expect(r.status).toBe(200);
  const taskId = r.body.task_id as string;
  // Without PATH access to a `temporal` binary: the script finds the pinned one under .tools/.
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, ['--import', 'tsx', join(REPO, 'scripts/temporal-cli-run.ts'), ...args], {
      cwd: REPO,
      env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TEMPORAL_ADDRESS: temporalAddress },
      encoding: 'utf8',
    });
  const described = JSON.parse(cli('workflow', 'describe', '--workflow-id', taskId, '--output', 'json')) as { workflowExecutionInfo: { execution: { workflowId: string }; type: { name: string }; status: string } };
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
