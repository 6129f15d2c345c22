/**
 * The replay gate of a workflow deploy (docs/explanations/versioning.md#the-rolling-deploy): replays
 * recorded histories against a workflow bundle and fails on any non-determinism, before a worker of that build
 * takes a single task. Two sources, both by default:
 *
 * - the fixtures (test/fixtures/histories: the 1.0 set and a folder per versioned change since), as CI does
 *   (test/unit/replay.test.ts);
 * - with --cluster, the histories of recent tasks on the running cluster (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE):
 *   open ones first (they are what the new build must resume), then recently closed ones, up to --limit.
 *
 *   npm run replay-gate -- [--bundle dist/workflow-bundle.js] [--cluster] [--limit 200]
 *
 * Without --bundle it bundles the workflows of this checkout (worker/workflow-modules.ts), as a worker starting
 * without WORKFLOW_BUNDLE_PATH would.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { HistoryAndWorkflowId } from '@temporalio/common';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';
import {
  bundleWorkflowCode,
  Worker,
  type InjectedSinks,
  type ReplayWorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { commonSchema, parseEnv, temporalSchema } from '../core/config';
import { temporalConnectionOptions } from '../core/temporal-connection';
import { WORKFLOW_TYPE } from '../core/task';
import { workflowInterceptorModules, workflowsPath } from '../worker/workflow-modules';
import type { TaskMetricsSinks } from '../workflows/metrics-interceptor';
import type { PushMonitorSinks, WebhookMetricsSinks } from '../workflows/sinks';

type History = proto.temporal.api.history.v1.IHistory;
/** A history and the workflow it belongs to, as the replayer takes them (the SDK's HistoryAndWorkflowId). */
export type NamedHistory = HistoryAndWorkflowId;

export const FIXTURES_DIR = resolve(__dirname, '..', 'test', 'fixtures', 'histories');

/**
 * History JSON → proto, with the protobufjs copy that @temporalio/proto's types belong to. The SDK's own
 * historyFromJSON (which runReplayHistories calls for JSON input) fails in this install with "type must be a
 * Type": @temporalio/common and @temporalio/proto each get a nested protobufjs 8 (the root has protobufjs 7 for
 * another dependency), and its `instanceof Type` check fails across the two copies.
 */
const protojson = createRequire(require.resolve('@temporalio/proto'))('protobufjs/ext/protojson') as {
  fromJson(type: unknown, json: unknown, opts: { ignoreUnknownFields: boolean }): History;
};
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);

/** A history as the Temporal CLI or Web UI exports it (JSON), as the replayer takes it. */
export const historyFromJson = (json: unknown): History => protojson.fromJson(historyType, json, { ignoreUnknownFields: true });

/** Every fixture under `dir` (subfolders included), named by its path without `.json`. */
export function fixtureHistories(dir = FIXTURES_DIR, keep: (file: string) => boolean = () => true): NamedHistory[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json') && keep(f))
    .sort()
    .map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: historyFromJson(JSON.parse(readFileSync(join(dir, f), 'utf8'))) }));
}

/** The gateway's workflow types: what a worker of this project registers (workflows/index.ts). */
const GATEWAY_WORKFLOWS = [WORKFLOW_TYPE, 'webhookDeliveryWorkflow', 'platformEventsWorkflow', 'resultsCleanupWorkflow'];

/** The histories of the cluster's recent tasks: open ones first (the new build must resume them), then closed ones. */
export async function* clusterHistories(client: Client, limit: number): AsyncGenerator<NamedHistory> {
  const types = `WorkflowType IN (${GATEWAY_WORKFLOWS.map((t) => `'${t}'`).join(', ')})`;
  let left = limit;
  for (const query of [`${types} AND ExecutionStatus = 'Running'`, `${types} AND ExecutionStatus != 'Running'`]) {
    for await (const h of client.workflow.list({ query, pageSize: Math.min(100, limit) }).intoHistories()) {
      if (left-- <= 0) return;
      yield h;
    }
  }
}

/** The worker's sinks, as the workflow interceptors expect them; they are not called during replay anyway. */
const noSinks: InjectedSinks<TaskMetricsSinks & PushMonitorSinks & WebhookMetricsSinks> = {
  taskMetrics: { completed: { fn: () => undefined } },
  webhookMetrics: { settled: { fn: () => undefined } },
  pushMonitor: { seen: { fn: () => undefined } },
};

/** Replays each history against the bundle; returns `id: error` for each that failed (empty: the gate passes). */
export async function replayHistories(
  bundle: ReplayWorkerOptions['workflowBundle'],
  histories: Iterable<NamedHistory> | AsyncIterable<NamedHistory>,
): Promise<{ replayed: number; failures: string[] }> {
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle, sinks: noSinks }, histories)) {
    replayed += 1;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.name}: ${r.error.message.split('\n')[0]}`);
  }
  return { replayed, failures };
}

const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} };

/** The workflows at `path` (default: this checkout's) bundled with the gateway's interceptors. */
export const bundleWorkflows = (path = workflowsPath): Promise<WorkflowBundleWithSourceMap> =>
  bundleWorkflowCode({ workflowsPath: path, workflowInterceptorModules, logger: quietLogger });

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      bundle: { type: 'string' },
      cluster: { type: 'boolean', default: false },
      limit: { type: 'string', default: '200' },
      fixtures: { type: 'string', default: FIXTURES_DIR },
    },
  });
  const bundle = values.bundle ? { codePath: resolve(values.bundle) } : await bundleWorkflows();
  const what = values.bundle ? `bundle ${values.bundle}` : 'the workflows of this checkout';
  const fixtures = await replayHistories(bundle, fixtureHistories(values.fixtures));
  console.log(`Fixtures: ${fixtures.replayed} replayed against ${what}, ${fixtures.failures.length} failed`);
  const failures = [...fixtures.failures];
  if (values.cluster) {
    const config = parseEnv(commonSchema.extend(temporalSchema.shape), process.env);
    const connection = await Connection.connect(temporalConnectionOptions(config));
    try {
      const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
      const live = await replayHistories(bundle, clusterHistories(client, Number(values.limit)));
      console.log(`Cluster ${config.TEMPORAL_ADDRESS}: ${live.replayed} recent histories replayed, ${live.failures.length} failed`);
      failures.push(...live.failures);
    } finally {
      await connection.close();
    }
  }
  for (const f of failures) console.error(`  ${f}`);
  console.log(
    failures.length === 0
      ? 'Replay gate passed: this build can take over running tasks.'
      : 'Replay gate FAILED: this build would break running tasks. Version the change with patched() (docs/explanations/versioning.md).',
  );
  return failures.length === 0 ? 0 : 1;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(2);
    },
  );
}
