/**
 * `npm run temporal:cli -- …` (issue 14, item 18): the docs' operator commands run the pinned Temporal CLI against
 * the gateway's configured server (TEMPORAL_ADDRESS), with no `temporal` on the PATH and no --address flag.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from '../support/stack';
import { sharedStack } from '../support/shared-stack';

const { api, temporalAddress } = sharedStack();

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
