/**
 * Records the histories of representative generation workflow runs as JSON fixtures for the replay test
 * (test/unit/replay.test.ts), which replays them against the current workflow code so that a change breaking
 * determinism fails CI. Re-run it after a deliberate, versioned workflow change (docs/operations.md):
 *
 *   node --import tsx scripts/record-histories.ts [outDir=test/fixtures/histories]
 *
 * It boots the same real stack the system tests use (Temporal dev server, simulator, worker, API), drives each
 * scenario through the HTTP API with simulator directives, and saves each task's history. Keep the old
 * fixtures too when a change is versioned with patched(): they prove that runs started before it still replay.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import { SA } from '../core/search-attributes';
import { ApiClient, SimClient } from '../test/support/client';
import { Stack } from '../test/support/stack';
import { temporalClient, until, V_MODEL } from '../test/system/faults-support';
import { replayFailed } from './replay-failed';
import { findTemporalCli } from './temporal-cli';

const SHORT_DEADLINE_MS = 5_000;

interface Ctx {
  api: ApiClient;
  shortApi: ApiClient;
  sim: SimClient;
  client: Client;
}

async function start(api: ApiClient, prompt: string): Promise<string> {
  const r = await api.post('/v1/async/videos/generations', { model: V_MODEL, prompt, duration: 5 });
  if (r.status !== 200) throw new Error(`start failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.task_id as string;
}

async function submitted(client: Client, id: string): Promise<void> {
  await until(`${id} has submitted`, async () => Boolean((await client.workflow.getHandle(id).describe()).typedSearchAttributes.get(SA.upstreamTaskId)), 30_000);
}

/** Each scenario returns the task id whose (latest run's) history becomes the fixture, and its expected end. */
const SCENARIOS: Record<string, (c: Ctx) => Promise<{ id: string; expect: string }>> = {
  success: async ({ api }) => ({ id: await start(api, 'fixture: success [sim:duration=2000]'), expect: 'success' }),
  'failure-content-policy': async ({ api }) => ({ id: await start(api, 'fixture: refused [sim:fail=content_policy]'), expect: 'failed' }),
  'retries-submit-and-poll': async ({ api }) => ({ id: await start(api, 'fixture: flaky [sim:submit=503x2] [sim:poll=500x2]'), expect: 'success' }),
  cancel: async ({ api, client }) => {
    const id = await start(api, 'fixture: cancelled [sim:duration=20000]');
    await submitted(client, id);
    const r = await api.post(`/v1/generations/${id}/cancel`, {});
    if (r.status !== 200) throw new Error(`cancel answered ${r.status}`);
    return { id, expect: 'failed' };
  },
  'deadline-job-never-finishes': async ({ shortApi }) => ({ id: await start(shortApi, 'fixture: stuck [sim:never]'), expect: 'failed' }),
  'replayed-after-outage': async ({ shortApi, sim, client }) => {
    await sim.fault({ platform: 'V', op: '*', status: 503, durationMs: 60_000 });
    const id = await start(shortApi, 'fixture: outage then replay');
    await shortApi.waitForTask(id, 60_000);
    await sim.clearFaults();
    await replayFailed(client, 'default', { taskId: id, log: () => undefined });
    return { id, expect: 'success' };
  },
};

async function main(): Promise<void> {
  const outDir = resolve(process.argv[2] ?? join(__dirname, '..', 'test', 'fixtures', 'histories'));
  mkdirSync(outDir, { recursive: true });
  const cli = findTemporalCli();
  if (!cli) throw new Error('The Temporal CLI is needed to export histories (npm run temporal:install)');
  const stack = await Stack.start({ name: 'record-histories' });
  const { client, close } = await temporalClient(stack.temporalAddress);
  try {
    const short = await stack.startLane({ TASK_DEADLINE_VIDEO_MS: String(SHORT_DEADLINE_MS) });
    const ctx: Ctx = {
      api: new ApiClient(stack.apiUrl, 'alice'),
      shortApi: new ApiClient(short.apiUrl, 'alice'),
      sim: new SimClient(stack.simUrl),
      client,
    };
    for (const [name, run] of Object.entries(SCENARIOS)) {
      const { id, expect } = await run(ctx);
      const record = await ctx.api.waitForTask(id, 60_000);
      if (record.status !== expect) throw new Error(`${name}: expected ${expect}, got ${JSON.stringify(record)}`);
      // The CLI's JSON is the canonical history format (the same as a Web UI download), which replay accepts.
      const json = execFileSync(cli, ['workflow', 'show', '--address', stack.temporalAddress, '--workflow-id', id, '--output', 'json'], { encoding: 'utf8' });
      writeFileSync(join(outDir, `${name}.json`), json.endsWith('\n') ? json : `${json}\n`);
      const events = (JSON.parse(json) as { events: unknown[] }).events.length;
      console.log(`${name}: ${events} events (${record.status}${record.error ? `: ${record.error.code}` : ''})`);
    }
  } finally {
    await close();
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
