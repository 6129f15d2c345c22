/**
 * The workflow bundle a worker runs: the prebuilt file (WORKFLOW_BUNDLE_PATH, production) or one built here at
 * start. Built here rather than by Worker.create({ workflowsPath }) because the SDK's bundler logs webpack's
 * whole stats report at info, one line of several kilobytes on every start; ours keeps webpack's warnings and
 * errors and says the rest in one short line (size and time).
 */
import { bundleWorkflowCode, type Logger as TemporalLogger, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from '../core/logger';
import { temporalLogger } from './temporal-logger';
import { workflowInterceptorModules, workflowsPath } from './workflow-modules';

/**
 * The bundler's logger: its warnings and errors (webpack's report when the build fails, disallowed modules) go to
 * ours; its info and debug lines (the stats report on every successful build) are dropped.
 */
export function bundlerLogger(logger: Logger): TemporalLogger {
  const sdk = temporalLogger(logger);
  const drop = () => undefined;
  return {
    ...sdk,
    log: (level, message, meta) => (level === 'WARN' || level === 'ERROR' ? sdk.log(level, message, meta) : undefined),
    trace: drop,
    debug: drop,
    info: drop,
  };
}

export interface BuiltBundle {
  code: string;
  bytes: number;
  ms: number;
}

/** Bundles the workflows and their interceptors (worker/workflow-modules.ts), quietly. */
export async function buildWorkflowBundle(logger: Logger): Promise<BuiltBundle> {
  const started = Date.now();
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: bundlerLogger(logger) });
  return { code, bytes: Buffer.byteLength(code), ms: Date.now() - started };
}

/** The one line a build is worth, e.g. "Workflow bundle built: 1.4 MiB in 3.2 s". */
export function bundleLine(bundle: Pick<BuiltBundle, 'bytes' | 'ms'>): string {
  return `Workflow bundle built: ${(bundle.bytes / 1024 ** 2).toFixed(1)} MiB in ${(bundle.ms / 1000).toFixed(1)} s`;
}

/** The Worker's workflow code: the prebuilt bundle when configured, otherwise one built now (and said so, briefly). */
export async function workflowCode(bundlePath: string | undefined, logger: Logger): Promise<Pick<WorkerOptions, 'workflowBundle'>> {
  if (bundlePath) {
    logger.info({ bundlePath }, `Workflow bundle ${bundlePath} (prebuilt)`);
    return { workflowBundle: { codePath: bundlePath } };
  }
  const bundle = await buildWorkflowBundle(logger);
  logger.info({ bundleBytes: bundle.bytes, bundleMs: bundle.ms }, bundleLine(bundle));
  return { workflowBundle: { code: bundle.code } };
}
