/**
 * Prebuilds the workflow bundle (`npm run build`), so a production worker starts without webpack and runs
 * exactly the code that was built and reviewed: set WORKFLOW_BUNDLE_PATH to the file this writes
 * (default dist/workflow-bundle.js; the Docker image does so). The workflows and their interceptors come from
 * worker/workflow-modules.ts, the same list a worker bundling at start uses.
 *
 *   node --import tsx scripts/bundle-workflows.ts [output-file]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowInterceptorModules, workflowsPath } from '../worker/workflow-modules';

async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? resolve(__dirname, '..', 'dist', 'workflow-bundle.js'));
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules });
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, code);
  console.log(`Workflow bundle written to ${out} (${Math.round(code.length / 1024)} KiB)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
