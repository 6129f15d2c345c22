/**
 * Prebuilds the workflow bundle (`npm run build`), so a production worker starts without webpack and runs
 * exactly the code that was built and reviewed: set WORKFLOW_BUNDLE_PATH to the file this writes
 * (default dist/workflow-bundle.js; the Docker image does so). The workflows and their interceptors come from
 * worker/workflow-modules.ts, the same list a worker bundling at start uses (worker/workflow-bundle.ts), and the
 * build is as quiet: webpack's warnings and errors, then one line.
 *
 *   node --import tsx scripts/bundle-workflows.ts [output-file]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { createLogger } from '../core/logger';
import { buildWorkflowBundle, bundleLine } from '../worker/workflow-bundle';

async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? resolve(__dirname, '..', 'dist', 'workflow-bundle.js'));
  // A build script reads its own environment: LOG_LEVEL, as the processes do (core/logger.ts takes it as an argument).
  const bundle = await buildWorkflowBundle(createLogger('bundle-workflows', process.env.LOG_LEVEL ?? 'info'));
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, bundle.code);
  console.log(`${bundleLine(bundle)}, written to ${out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
