/**
 * Property-based API fuzzing: schemathesis, pinned (scripts/schemathesis.ts), reads the
 * server's own GET /openapi.json and sends generated requests, valid and invalid, to every operation of a real
 * stack (Temporal dev server, simulator, worker, API, the ledger's PostgreSQL). The run fails on any 5xx and on
 * any answer the document does not describe: an undocumented status code, content type or header, a body that does
 * not match its schema, or an invalid request the server accepts. Each operation is called with the credential its
 * security scheme names: the API key for /v1, the admin token for the admin API (/admin/v1), so the admin API's
 * bodies and answers are fuzzed past its authentication too.
 *
 * Bounded and repeatable: deterministic generation, no example database or failure cache carried between runs,
 * and a fixed number of examples per operation, so CI sends the same requests every time and sees no flakes.
 * Generation requests that pass validation start real tasks on the simulator; every request carries
 * `X-Async: true`, so the synchronous submit paths (which wait up to 10 minutes for a result) answer at once
 * with the task record their document also allows.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findSchemathesis, SCHEMATHESIS_MODULE, SCHEMATHESIS_VERSION } from '../../scripts/schemathesis';
import { ApiClient } from '../support/client';
import { startTestPostgres, type TestPostgres } from '../support/postgres';
import { freePort, REPO, Stack, TEST_KEYS } from '../support/stack';

jest.setTimeout(480_000);

/** The fuzz stack's admin token (ADMIN_TOKEN): test-only. */
const ADMIN_TOKEN = 'fuzz-admin-token-0123456789abcdefghijklmn';

/**
 * Every check schemathesis has (`not_a_server_error` is the 5xx one; the conformance checks compare status, media
 * type, headers and body with the document; negative_data_rejection fails when the server accepts a request the
 * document calls invalid), but one: positive_data_acceptance expects every schema-valid request to succeed, and
 * the document cannot say a model's own rules (platform B's H20 takes no generate_audio, which=last_frame takes
 * no index): those are 400s naming the field, as documented.
 */
const EXCLUDED_CHECKS = ['positive_data_acceptance'];
/**
 * Generated cases per operation in the fuzzing phase. No `--max-time`: with one, schemathesis repeats fuzzing
 * until the time is spent, so what a run covers would depend on the machine's speed; a fixed count keeps every
 * run the same set of requests (150 per operation: two to three minutes on a 2-vCPU machine, inside CI's 30).
 */
const MAX_EXAMPLES = '150';
/** A hard stop for a run that hangs (a request that never answers is already bounded by --request-timeout). */
const KILL_AFTER_MS = 360_000;

const REPORT_DIR = join(REPO, 'test-results', 'schemathesis');

let stack: Stack;
/** The ledger's database: /v1/usage answers from it, and every submit reserves in it. */
let postgres: TestPostgres;
let python: string;
/** Finished tasks of alice's, so the task-id operations reach a real record, result file and last frame too. */
let taskIds: string[] = [];

beforeAll(async () => {
  // Self-installing, as the Temporal CLI is: `npm test` works on a fresh machine; CI installs it in a step first.
  const found = findSchemathesis();
  if (!found) throw new Error(`schemathesis ${SCHEMATHESIS_VERSION} could not be installed from PyPI (scripts/schemathesis.ts)`);
  python = found;
  // Every platform's callbacks on, so fuzzed announcements reach the receivers' token, signature and body checks.
  const apiPort = await freePort();
  postgres = await startTestPostgres();
  stack = await Stack.start({
    name: 'api-fuzz',
    apiPort,
    simJobDurationMs: 300,
    env: {
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      CALLBACK_SECRET: 'callback-secret-for-the-fuzz-run-0123456789',
      PLATFORM_T_EVENTS: 'push',
      PLATFORM_T_EVENTS_SIGN_KEY: 'fuzzSignKey1',
      PLATFORM_B_CALLBACKS: 'manage',
      PLATFORM_B_CALLBACK_SIGN_KEY: 'b-sign-key-for-the-fuzz-run',
      DATABASE_URL: postgres.url,
      ADMIN_TOKEN,
      // The fuzzer's thousands of wrong sign-ins come from one address: with the limit on, its later admin calls
      // would all be 429 (documented, so allowed) and the admin API's bodies would go unfuzzed.
      ADMIN_AUTH_FAILURES_PER_MINUTE: '0',
    },
  });
  const alice = new ApiClient(stack.apiUrl, 'alice');
  const submissions = [
    {
      path: '/v1/async/videos/generations',
      body: { model: 'vendor-video-2-0-260128', prompt: 'a lighthouse at dusk', duration: 5, return_last_frame: true },
    },
    { path: '/v1/async/images/generations', body: { model: 'NB', prompt: 'a lighthouse at dusk' } },
  ];
  taskIds = await Promise.all(
    submissions.map(async ({ path, body }) => {
      const r = await alice.post(path, body);
      if (r.status !== 200) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      const record = await alice.waitForTask(r.body.task_id);
      if (record.status !== 'success') throw new Error(`task ${r.body.task_id} did not succeed: ${JSON.stringify(record)}`);
      return r.body.task_id as string;
    }),
  );
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await postgres?.stop();
});

function run(cmd: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // Run in the report directory, emptied before each run: schemathesis keeps a cache of earlier failures
    // (.schemathesis/) and hypothesis its own (.hypothesis/) in the working directory, and a run that replays
    // an earlier one's findings would not be the same run every time.
    const child = spawn(cmd, args, {
      cwd: REPORT_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', PYTHONUNBUFFERED: '1' },
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    });
  });
}

test(`schemathesis ${SCHEMATHESIS_VERSION}: no 5xx, and every answer is the one GET /openapi.json documents`, async () => {
  rmSync(REPORT_DIR, { recursive: true, force: true });
  mkdirSync(REPORT_DIR, { recursive: true });
  // Half of the generated task_id and platform values are real ones (the rest are generated, mostly unknown: 404).
  const config = join(REPORT_DIR, 'schemathesis.toml');
  writeFileSync(
    config,
    [
      '[dictionaries.tasks]',
      `values = ${JSON.stringify(taskIds)}`,
      '[dictionaries.platforms]',
      'values = ["T", "V", "B", "t", "v", "b"]',
      '[parameters]',
      '"path.task_id" = { dictionary = "tasks", probability = 0.5 }',
      '"path.platform" = { dictionary = "platforms", probability = 0.5 }',
      // Each security scheme of the document with its credential (api/openapi.ts, api/openapi-admin.ts).
      '[auth.openapi.bearerAuth]',
      `bearer = "${TEST_KEYS.alice.secret}"`,
      '[auth.openapi.adminAuth]',
      `bearer = "${ADMIN_TOKEN}"`,
      '',
    ].join('\n'),
  );
  const started = Date.now();
  const { code, output } = await run(python, [
    ...SCHEMATHESIS_MODULE,
    '--config-file',
    config,
    'run',
    `${stack.apiUrl}/openapi.json`,
    '--checks',
    'all',
    '--exclude-checks',
    EXCLUDED_CHECKS.join(','),
    '--header',
    'X-Async: true',
    // The stateful phase follows OpenAPI links, which the document has none of.
    '--phases',
    'examples,coverage,fuzzing',
    // Derandomised hypothesis (a fixed seed per operation; schemathesis ignores --seed in this mode), with no
    // example database carried over from an earlier run: the same requests on every run.
    '--generation-deterministic',
    '--max-examples',
    MAX_EXAMPLES,
    '--workers',
    '1',
    '--request-timeout',
    '30',
    '--suppress-health-check',
    'all',
    '--no-color',
    '--output-truncate',
    'false',
    '--report',
    'junit',
    '--report-dir',
    REPORT_DIR,
  ]);
  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(join(REPORT_DIR, 'output.txt'), `${output}\n(run time ${seconds} s)\n`);
  // The whole report on failure: every failing operation with the curl command that reproduces it.
  if (code !== 0) throw new Error(`schemathesis exited ${code} after ${seconds} s:\n${output}`);
  // Every operation of the document was tested (but GET /openapi.json: schemathesis leaves out the document it
  // loaded), and every case passed.
  const documented = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as { paths: Record<string, object> };
  const operations = Object.entries(documented.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
  );
  const junit = readdirSync(REPORT_DIR).find((f) => /^junit.*\.xml$/.test(f));
  const tested = [...readFileSync(join(REPORT_DIR, junit!), 'utf8').matchAll(/<testcase name="([^"]+)"/g)].map((m) => m[1]);
  expect(tested.sort()).toEqual(operations.filter((o) => o !== 'GET /openapi.json').sort());
  // The admin API was reached past its authentication: the API's own metrics count keys made (201) and changed (200)
  // from generated bodies.
  const metrics = await (await fetch(`${stack.apiUrl}/metrics`)).text();
  const answered = (method: string, route: string, status: number) =>
    [...metrics.matchAll(/^mediagate_http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)]
      .filter(
        ([, labels]) =>
          labels!.includes(`method="${method}"`) && labels!.includes(`route="${route}"`) && labels!.includes(`status="${status}"`),
      )
      .reduce((sum, m) => sum + Number(m[2]), 0);
  expect(answered('POST', '/admin/v1/keys', 201)).toBeGreaterThan(0);
  expect(answered('PATCH', '/admin/v1/keys/:id', 200) + answered('PATCH', '/admin/v1/keys/:id', 404)).toBeGreaterThan(0);
  const [, generated, passed] = /(\d+) generated, (\d+) passed/.exec(output) ?? [];
  expect(Number(generated)).toBeGreaterThan(1000);
  expect(passed).toBe(generated);
});
