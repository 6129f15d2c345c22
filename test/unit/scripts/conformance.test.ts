/**
 * `npm run conformance` (scripts/conformance.ts), run as a child process the way an operator runs it,
 * against a started simulator: as it is, every assumption holds; set to break each assumption in turn (the A.2
 * switches, and /_sim/t/behaviour silentKlingVersions, /_sim/v/behaviour modelFacts (2.0's first/last frame and
 * reference counts), /_sim/b/behaviour videoEventSwitch, v3TasksOnV2 and fieldNames), that
 * one is reported as not holding, with the override its fact names; without --spend nothing is created; and with
 * no credentials and no --simulator it refuses to run. `--spend-limit` caps the run by the jobs' estimates from the
 * gateway's prices (PRICES_FILE over the published ones): a job it cannot afford, or whose price is unknown, is not
 * sent. With PLATFORM_T_ACCOUNTS_FILE naming two of the simulator's T accounts, each is checked in turn, its jobs
 * made and read through it (or only the one `--account` names).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { unconfirmedFacts } from '../../../scripts/model-docs';
import { SIM_ACCOUNTS, simTAccount } from '../../../sim/accounts';
import { startSimulator, type Simulator } from '../../../sim/server';
import { simTAccountEntry } from '../../support/simulator';

const REPO = resolve(__dirname, '..', '..', '..');
const ENDPOINT = 'ep-20251125-conformance';

interface Row {
  account: string;
  id: string;
  outcome: 'held' | 'did not hold' | 'could not check';
  how: string;
  override: string;
}
interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json?: {
    accounts: { id: string; reaches?: string }[];
    rows: Row[];
    spent: {
      jobs: { label: string; account: string; upstreamTaskId?: string; estimate?: { amount: number; currency: string } }[];
      estimated: { amount: number; currency: string }[];
      unpriced: number;
    };
  };
}

let sim: Simulator;
let vModelsFile: string;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), 'conformance-'));
  vModelsFile = join(dir, 'v-models.json');
  writeFileSync(vModelsFile, JSON.stringify({ models: { 'vendor-video-1-0-lite-t2v-250428': { upstream: { model: ENDPOINT } } } }));
});
afterAll(() => sim.close());

async function control(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.ok).toBe(true);
}

beforeEach(async () => {
  await control('/_sim/reset', {});
  // B's field checks wait for their jobs to finish.
  await control('/_sim/config', { jobDurationMs: 300 });
  await control('/_sim/t/behaviour', {});
  await fetch(`${sim.url}/_sim/t/account-faults`, { method: 'DELETE' });
  await control('/_sim/b/behaviour', {});
  await control('/_sim/b/echo', { echo: 'exact' });
  await control('/_sim/v/endpoints', { endpoints: { [ENDPOINT]: 'doubao-seedance-1-0-lite-t2v-250428' }, listedModel: 'endpoint' });
});

/** The environment without anything of the developer's platforms (never a real account from a test). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PLATFORM'))), ...extra };
}

function conformance(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(REPO, 'scripts', 'conformance.ts'), ...args],
      { cwd: REPO, env, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        let json: Run['json'];
        if (args.includes('--json')) {
          try {
            json = JSON.parse(stdout) as Run['json'];
          } catch {
            json = undefined;
          }
        }
        done({ code, stdout, stderr, ...(json ? { json } : {}) });
      },
    );
  });
}

/** B through its configured-account variables (not --simulator), pointed at the simulator, with the API key: v3 is then checked too. */
const bAccountEnv = () =>
  cleanEnv({
    PLATFORM_B_ENDPOINT: sim.url,
    PLATFORM_B_ACCESS_KEY_ID: SIM_ACCOUNTS.B.accessKeyId,
    PLATFORM_B_SECRET_ACCESS_KEY: SIM_ACCOUNTS.B.secretAccessKey,
    PLATFORM_B_API_KEY: SIM_ACCOUNTS.B.apiKey,
  });

const spending = ['--spend', '--max-jobs', '5', '--wait', '30', '--poll', '0.2', '--json'];

/** Media V's 2.0 checks send (the simulator checks their form, as Ark's create does before fetching). */
const V_MEDIA = [
  '--image-url',
  'https://media.example.com/frame.png',
  '--video-url',
  'https://media.example.com/clip.mp4',
  '--audio-url',
  'https://media.example.com/voice.mp3',
];

function runFor(platform: 'T' | 'V' | 'B', args: string[] = spending): Promise<Run> {
  if (platform === 'B') return conformance(['--platform', 'B', ...args], bAccountEnv());
  const media = platform === 'V' ? V_MEDIA : [];
  return conformance(
    ['--platform', platform, '--simulator', sim.url, ...media, ...args],
    cleanEnv(platform === 'V' ? { PLATFORM_V_MODELS_FILE: vModelsFile } : {}),
  );
}

const overrideOf = (id: string) => unconfirmedFacts().find((f) => f.id === id)!.override;

test.each(['T', 'V', 'B'] as const)('platform %s against the simulator as it is: every assumption held, exit 0', async (platform) => {
  const run = await runFor(platform);
  expect(run.stderr).toBe('');
  expect(run.json!.rows.map((r) => [r.id, r.outcome])).toEqual(run.json!.rows.map((r) => [r.id, 'held']));
  expect(run.json!.rows.length).toBeGreaterThan(0);
  expect(run.code).toBe(0);
});

const BREAKS: { id: string; platform: 'T' | 'V' | 'B'; path: string; body: unknown }[] = [
  { id: 't.describe-tasks-lists-aigc', platform: 'T', path: '/_sim/t/behaviour', body: { listsAigcTasks: false } },
  { id: 't.session-id-repeat-code', platform: 'T', path: '/_sim/t/behaviour', body: { sessionIdRepeatCode: 'FailedOperation' } },
  { id: 't.kling-2.1-sound', platform: 'T', path: '/_sim/t/behaviour', body: { silentKlingVersions: ['2.1'] } },
  { id: 't.kling-2.5-sound', platform: 'T', path: '/_sim/t/behaviour', body: { silentKlingVersions: ['2.5'] } },
  {
    id: 'v.endpoint-listed-model',
    platform: 'V',
    path: '/_sim/v/endpoints',
    body: { endpoints: { [ENDPOINT]: 'doubao-seedance-1-0-lite-t2v-250428' }, listedModel: 'model' },
  },
  {
    id: 'v.2-0-first-last-frame',
    platform: 'V',
    path: '/_sim/v/behaviour',
    body: { modelFacts: { 'doubao-seedance-2-0-260128': { modes: ['text', 'first_frame', 'first_last_frame', 'reference_media'] } } },
  },
  {
    id: 'v.2-0-fast-first-last-frame',
    platform: 'V',
    path: '/_sim/v/behaviour',
    body: { modelFacts: { 'doubao-seedance-2-0-fast-260128': { modes: ['text', 'first_frame', 'first_last_frame', 'reference_media'] } } },
  },
  // Fewer than assumed: all at once is refused. More than assumed: one past the maximum is taken.
  {
    id: 'v.2-0-references',
    platform: 'V',
    path: '/_sim/v/behaviour',
    body: { modelFacts: { 'doubao-seedance-2-0-260128': { maxReferenceImages: 4 } } },
  },
  {
    id: 'v.2-0-references',
    platform: 'V',
    path: '/_sim/v/behaviour',
    body: { modelFacts: { 'doubao-seedance-2-0-260128': { maxReferenceVideos: 5 } } },
  },
  { id: 'b.echo-exact', platform: 'B', path: '/_sim/b/echo', body: { echo: 'defaults' } },
  { id: 'b.callback-switch', platform: 'B', path: '/_sim/b/behaviour', body: { videoEventSwitch: 'enableAigcTaskCompleteEvent' } },
  { id: 'b.v3-reads-through-v2', platform: 'B', path: '/_sim/b/behaviour', body: { v3TasksOnV2: false } },
  { id: 'b.kling-fields', platform: 'B', path: '/_sim/b/behaviour', body: { fieldNames: { kling: { duration: 'durationSeconds' } } } },
  { id: 'b.kling-fields', platform: 'B', path: '/_sim/b/behaviour', body: { fieldNames: { kling: { aspectRatio: 'aspect_ratio' } } } },
  { id: 'b.pixverse-fields', platform: 'B', path: '/_sim/b/behaviour', body: { fieldNames: { pixverse: { aspectRatio: 'ratio' } } } },
  { id: 'b.pixverse-fields', platform: 'B', path: '/_sim/b/behaviour', body: { fieldNames: { pixverse: { duration: 'length' } } } },
  { id: 'b.hailuo-fields', platform: 'B', path: '/_sim/b/behaviour', body: { fieldNames: { hailuo: { duration: 'durationSeconds' } } } },
];

test.each(BREAKS)(
  'the simulator set to break $id: it is reported as not holding, with its override, exit 1',
  async ({ id, platform, path, body }) => {
    await control(path, body);
    const run = await runFor(platform);
    const row = run.json!.rows.find((r) => r.id === id)!;
    expect(row).toMatchObject({ outcome: 'did not hold', override: overrideOf(id) });
    expect(run.code).toBe(1);
    // The table says what to change.
    const table = await runFor(platform, ['--spend', '--max-jobs', '5', '--wait', '30', '--poll', '0.2']);
    expect(table.stdout).toContain('Did not hold — what to change:');
    expect(table.stdout).toContain(`- ${id}: ${overrideOf(id)}`);
  },
);

test('without --spend no create reaches the simulator; what needs a job could not be checked (exit 2)', async () => {
  for (const platform of ['T', 'V', 'B'] as const) {
    const run = await runFor(platform, ['--json']);
    expect(run.code).toBe(2);
    expect(run.json!.rows.filter((r) => r.outcome === 'could not check').length).toBeGreaterThan(0);
    expect(run.json!.spent.jobs).toEqual([]);
  }
  const requests = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as { op: string; platform: string }[];
  expect(requests.filter((r) => r.op === 'submit')).toEqual([]);
  // The read-only checks did reach it.
  expect(requests.filter((r) => r.op !== 'submit').length).toBeGreaterThan(0);
});

test('--max-jobs caps the jobs: with 1, one create, and the checks that need more could not be checked', async () => {
  const run = await runFor('T', ['--spend', '--max-jobs', '1', '--json']);
  expect(run.json!.spent.jobs).toHaveLength(1);
  const requests = (await (await fetch(`${sim.url}/_sim/requests?platform=T&op=submit`)).json()) as unknown[];
  // The cheapest job, and the repeated SessionId T refuses (a refused create is no job).
  expect(requests.length).toBeLessThanOrEqual(2);
  expect(run.json!.rows.filter((r) => r.id.startsWith('t.kling')).map((r) => r.outcome)).toEqual(['could not check', 'could not check']);
});

test('no credentials and no --simulator: refused, exit 3, naming the variable; --spend without a cap: refused', async () => {
  const run = await conformance(['--platform', 'T'], cleanEnv());
  expect(run.code).toBe(3);
  expect(run.stderr).toContain('PLATFORM_T_SECRET_ID');
  const uncapped = await conformance(['--platform', 'T', '--simulator', sim.url, '--spend'], cleanEnv());
  expect(uncapped.code).toBe(3);
  expect(uncapped.stderr).toContain('--max-jobs');
});

/** The creates the simulator received for `platform`, with the T SecretId that signed each. */
async function creates(platform: string): Promise<{ signer: string | undefined; body: unknown; status?: number }[]> {
  const requests = (await (await fetch(`${sim.url}/_sim/requests?platform=${platform}&op=submit`)).json()) as {
    headers: Record<string, string>;
    body?: unknown;
    status?: number;
  }[];
  return requests.map((r) => ({
    signer: /Credential=([^/]+)/.exec(r.headers.authorization ?? '')?.[1],
    body: r.body,
    ...(r.status === undefined ? {} : { status: r.status }),
  }));
}

describe("--spend-limit: each job estimated from the gateway's prices before it is sent", () => {
  /** T's prices as an operator sets them (T publishes none): Hunyuan 3.0 at 0.2 CNY an image, Kling at 1 CNY a second with sound. */
  const tPrices = () => {
    const path = join(dir, 't-prices.json');
    const kling = { currency: 'CNY', source: 'test contract', per_second: { '720p': { silent: 0.5, sound: 1 } } };
    writeFileSync(
      path,
      JSON.stringify({
        'VendorY-3.0': { currency: 'CNY', source: 'test contract', per_image: { '*': 0.2 } },
        'VendorK-2.1': kling,
        'VendorK-2.5': kling,
      }),
    );
    return path;
  };
  const runT = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    conformance(['--platform', 'T', '--simulator', sim.url, '--json', ...args], cleanEnv(env));
  const spendingRows = (run: Run) => run.json!.rows.filter((r) => r.id !== 't.describe-tasks-lists-aigc' || r.outcome !== 'held');

  test("a limit below the cheapest job's PRICES_FILE price: no create is sent, every paid check could not check, saying why", async () => {
    const run = await runT(['--spend', '--spend-limit', '0.1', 'CNY'], { PRICES_FILE: tPrices() });
    expect(await creates('T')).toEqual([]);
    expect(run.json!.spent).toMatchObject({ jobs: [], estimated: [], unpriced: 0 });
    const rows = spendingRows(run);
    expect(rows.map((r) => r.outcome)).toEqual(rows.map(() => 'could not check'));
    expect(rows.find((r) => r.id === 't.session-id-repeat-code')!.how).toMatch(
      /VendorY-3\.0 is estimated at 0\.2 CNY; with 0 CNY already spent it would exceed --spend-limit 0\.1 CNY/,
    );
    expect(rows.find((r) => r.id === 't.kling-2.1-sound')!.how).toMatch(/VendorK-2\.1 is estimated at 5 CNY; .* --spend-limit 0\.1 CNY/);
    expect(run.code).toBe(2);
    const table = await conformance(
      ['--platform', 'T', '--simulator', sim.url, '--spend', '--spend-limit', '0.1', 'CNY'],
      cleanEnv({ PRICES_FILE: tPrices() }),
    );
    expect(table.stdout).toContain('Spent: nothing (no job was created); caps: --spend-limit 0.1 CNY.');
  });

  test('a limit that affords the image but not the Kling videos: one job, its estimate reported as spent, the videos refused', async () => {
    const run = await runT(['--spend', '--spend-limit', '1', 'CNY'], { PRICES_FILE: tPrices() });
    expect(Object.fromEntries(run.json!.rows.map((r) => [r.id, r.outcome]))).toEqual({
      't.describe-tasks-lists-aigc': 'held',
      't.session-id-repeat-code': 'held',
      't.kling-2.1-sound': 'could not check',
      't.kling-2.5-sound': 'could not check',
    });
    expect(run.json!.rows.find((r) => r.id === 't.kling-2.5-sound')!.how).toMatch(
      /estimated at 5 CNY; with 0\.2 CNY already spent it would exceed --spend-limit 1 CNY/,
    );
    expect(run.json!.spent).toMatchObject({ estimated: [{ amount: 0.2, currency: 'CNY' }], unpriced: 0 });
    expect(run.json!.spent.jobs).toEqual([
      expect.objectContaining({ label: 'cheapest T job: VendorY-3.0', account: 'default', estimate: { amount: 0.2, currency: 'CNY' } }),
    ]);
    // The image, and its repeat (refused by T: no job, nothing spent); no Kling create.
    const sent = await creates('T');
    expect(sent).toHaveLength(2);
    expect(JSON.stringify(sent)).not.toContain('Kling');
    const jobs = (await (await fetch(`${sim.url}/_sim/jobs?platform=T`)).json()) as unknown[];
    expect(jobs).toHaveLength(1);
  });

  test('no price known (T publishes none): nothing is sent under --spend-limit unless --allow-unpriced, which --max-jobs bounds', async () => {
    const refused = await runT(['--spend', '--spend-limit', '5', 'CNY']);
    expect(await creates('T')).toEqual([]);
    expect(refused.json!.rows.find((r) => r.id === 't.session-id-repeat-code')!.how).toMatch(
      /no price is known for VendorY-3\.0 \(set it in PRICES_FILE\)/,
    );
    expect(refused.json!.spent.jobs).toEqual([]);

    const allowed = await runT(['--spend', '--spend-limit', '5', 'CNY', '--allow-unpriced', '--max-jobs', '1']);
    expect(allowed.json!.spent).toMatchObject({
      jobs: [expect.objectContaining({ label: 'cheapest T job: VendorY-3.0' })],
      estimated: [],
      unpriced: 1,
    });
    expect(allowed.json!.spent.jobs[0]).not.toHaveProperty('estimate');
    expect(allowed.json!.rows.find((r) => r.id === 't.kling-2.1-sound')!.how).toMatch(/--max-jobs 1 reached/);

    const unbounded = await conformance(
      ['--platform', 'T', '--simulator', sim.url, '--spend', '--spend-limit', '5', 'CNY', '--allow-unpriced'],
      cleanEnv(),
    );
    expect(unbounded.code).toBe(3);
    expect(unbounded.stderr).toContain('--allow-unpriced needs --max-jobs');
  });
});

describe('several accounts (PLATFORM_T_ACCOUNTS_FILE): each checked in turn, through its own credentials', () => {
  const names = ['one', 'two'] as const;
  const tAccountsEnv = () => {
    const path = join(dir, 't-accounts.json');
    writeFileSync(path, JSON.stringify(names.map((id) => simTAccountEntry(id, sim.url))));
    return cleanEnv({ PLATFORM_T_ACCOUNTS_FILE: path });
  };
  const outcomes = (run: Run, account: string) =>
    Object.fromEntries(run.json!.rows.filter((r) => r.account === account).map((r) => [r.id, r.outcome]));
  const allHeld = {
    't.describe-tasks-lists-aigc': 'held',
    't.session-id-repeat-code': 'held',
    't.kling-2.1-sound': 'held',
    't.kling-2.5-sound': 'held',
  };

  test('without --account: both accounts, each its jobs on its own SubAppId; an account in arrears is reported on its own rows', async () => {
    await control('/_sim/t/account-faults', { code: 'ResourceUnavailable.InArrears', secret_id: simTAccount('one').secretId });
    const run = await conformance(['--platform', 'T', '--spend', '--max-jobs', '10', '--json'], tAccountsEnv());
    expect(run.stderr).toBe('');
    expect(run.json!.accounts).toEqual(names.map((id) => ({ id, reaches: expect.stringContaining(String(simTAccount(id).subAppId)) })));
    // Account one refused every create (arrears): nothing of it could be checked; account two held everything.
    expect(Object.values(outcomes(run, 'one'))).toEqual(['could not check', 'could not check', 'could not check', 'could not check']);
    expect(run.json!.rows.find((r) => r.account === 'one' && r.id === 't.session-id-repeat-code')!.how).toContain(
      'ResourceUnavailable.InArrears',
    );
    expect(outcomes(run, 'two')).toEqual(allHeld);
    expect(run.code).toBe(2);
    // Each account's creates signed with its own SecretId and naming its own SubAppId; the jobs are two's alone.
    const sent = await creates('T');
    expect(new Set(sent.map((c) => `${c.signer} ${(c.body as { SubAppId: number }).SubAppId}`))).toEqual(
      new Set(names.map((id) => `${simTAccount(id).secretId} ${simTAccount(id).subAppId}`)),
    );
    expect(run.json!.spent.jobs.map((j) => j.account)).toEqual(['two', 'two', 'two']);
    const jobs = (await (await fetch(`${sim.url}/_sim/jobs?platform=T`)).json()) as { meta: { subAppId: number } }[];
    expect(jobs.map((j) => j.meta.subAppId)).toEqual(jobs.map(() => simTAccount('two').subAppId));
  });

  test('--account two: only that account is checked and spent on; an account not configured is refused, naming those that are', async () => {
    const run = await conformance(['--platform', 'T', '--account', 'two', '--spend', '--max-jobs', '10', '--json'], tAccountsEnv());
    expect(run.json!.accounts.map((a) => a.id)).toEqual(['two']);
    expect(outcomes(run, 'two')).toEqual(allHeld);
    expect(run.code).toBe(0);
    expect(new Set((await creates('T')).map((c) => c.signer))).toEqual(new Set([simTAccount('two').secretId]));

    const unknown = await conformance(['--platform', 'T', '--account', 'three'], tAccountsEnv());
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('--account three: platform T has no such account (configured: one, two)');
  });

  test("--max-jobs caps the whole run over the accounts: the second account's checks could not check once it is reached", async () => {
    const run = await conformance(['--platform', 'T', '--spend', '--max-jobs', '3', '--json'], tAccountsEnv());
    expect(outcomes(run, 'one')).toEqual(allHeld);
    expect(Object.values(outcomes(run, 'two'))).toEqual(['could not check', 'could not check', 'could not check', 'could not check']);
    expect(run.json!.rows.find((r) => r.account === 'two' && r.id === 't.kling-2.1-sound')!.how).toMatch(/--max-jobs 3 reached/);
    expect(run.json!.spent.jobs).toHaveLength(3);
  });
});
