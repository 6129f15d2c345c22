/**
 * The conformance run: settles, against the configured real account(s) of one platform, the facts no
 * public source confirms (docs/api.md "Unconfirmed with a real account"), through the platform's own adapter and
 * signing (platforms/<x>/) configured from the worker's variables. Every account of PLATFORM_<X>_ACCOUNTS_FILE is
 * checked in turn (or the one `--account <id>` names; the one-account variables are account `default`): the
 * accounts may differ (their SubAppId's event configuration, B's callback switches and API key, V's endpoints).
 * Read-only checks first; paid jobs only with `--spend`, the cheapest that settles each fact, each estimated from
 * the gateway's own prices (PRICES_FILE included) and made only within `--spend-limit` / `--max-jobs`, which cap
 * the whole run over every account. Under `--spend-limit` a job with no known price is not made unless
 * `--allow-unpriced` (with `--max-jobs`, its only bound) says so. Prints a table per account (or JSON), what was
 * spent, and, for each fact that did not hold, the setting or models-file entry to change.
 *
 *   npm run conformance -- --platform T|V|B [--account <id>]
 *                          [--spend (--spend-limit <amount> <currency> [--allow-unpriced --max-jobs N] | --max-jobs N)]
 *                          [--json] [--wait <seconds>] [--poll <seconds>] [--simulator <url>]
 *                          [--image-url <url>] [--video-url <url>] [--audio-url <url>]   (V 2.0 checks: media it can fetch)
 *
 * Exit code: 0 every assumption held; 1 one did not hold; 2 some could not be checked (none failed); 3 the run
 * was refused (bad arguments, no credentials). Never run by CI against a real platform: its tests run it against
 * the simulator (test/unit/scripts/conformance.test.ts). `--simulator <url>` runs against a simulator explicitly (tests,
 * demos): the platform's worker variables (credentials, endpoint) are then ignored, so no real account is touched.
 */
import type { ModelRecord } from '../core/catalogue';
import { buildCatalogue, PLATFORM_IDS, platformById } from '../platforms';
import { createHttpClient } from '../platforms/http';
import type { PlatformDefinition, WorkerAccount, WorkerPlatform } from '../platforms/platform';
import { micros } from '../pricing/price';
import { TaskPricing } from '../pricing/price-table';
import { B_ASSUMPTIONS } from '../platforms/b/conformance';
import {
  exitCode,
  factsOf,
  newRunId,
  recordingHttp,
  renderReport,
  runChecks,
  SpendBudget,
  spentOf,
  type Assumption,
  type Report,
  type ReportRow,
  type SpendLimit,
} from '../platforms/conformance';
import { T_ASSUMPTIONS } from '../platforms/t/conformance';
import { V_ASSUMPTIONS } from '../platforms/v/conformance';
import { loadTaskPricing } from '../tasks/billing';

/** The checks per platform, each from its folder's conformance.ts; a platform without an entry has nothing to check yet. */
export const ASSUMPTIONS: Readonly<Record<string, readonly Assumption[]>> = { T: T_ASSUMPTIONS, V: V_ASSUMPTIONS, B: B_ASSUMPTIONS };

export interface ConformanceOptions {
  platform: string;
  /** `--account <id>`: only this account; absent, every configured account in turn. */
  account?: string;
  spend: boolean;
  limit?: SpendLimit;
  /** `--max-jobs`: at most this many jobs over the whole run; absent, no count cap (then `--spend-limit` is required). */
  maxJobs?: number;
  /** `--allow-unpriced`: under `--spend-limit`, make a job with no known price too (counted by `--max-jobs`). */
  allowUnpriced: boolean;
  json: boolean;
  simulator?: string;
  /** Inputs the platform can fetch, for checks that send media (V 2.0's frames and references). */
  imageUrl?: string;
  videoUrl?: string;
  audioUrl?: string;
  /** Seconds a check waits for a job to finish, and between its polls. */
  waitSeconds: number;
  pollSeconds: number;
}

class UsageError extends Error {}

/** `--spend-limit <amount> <currency>`: a non-negative amount in whole micro-units, in a 3-letter currency. */
function spendLimit(amountArg: string, currencyArg: string): { amount: number; currency: string } {
  const amount = Number(amountArg);
  const currency = currencyArg.toUpperCase();
  if (!Number.isFinite(amount) || amount < 0 || !hasMicros(amount))
    throw new UsageError('--spend-limit <amount> <currency>, e.g. --spend-limit 5 CNY (at most 6 decimal places)');
  if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError('--spend-limit <amount> <currency>: the currency is a 3-letter code, e.g. CNY');
  return { amount, currency };
}

/** The flags that only make sense together: a platform always; spending only under a cap, and the caps only with spending. */
function checkCombination(opts: Partial<ConformanceOptions> & { spend: boolean; allowUnpriced: boolean }): void {
  if (!opts.platform || !PLATFORM_IDS.includes(opts.platform)) throw new UsageError(`--platform ${PLATFORM_IDS.join('|')} is required`);
  if (opts.spend && !opts.limit && opts.maxJobs === undefined)
    throw new UsageError(
      '--spend needs a cap: --spend-limit <amount> <currency> (estimated from the prices, PRICES_FILE included) and/or --max-jobs <n>',
    );
  if (!opts.spend && (opts.limit || opts.maxJobs !== undefined || opts.allowUnpriced))
    throw new UsageError('--spend-limit, --max-jobs and --allow-unpriced only apply with --spend');
  if (opts.allowUnpriced && !opts.limit)
    throw new UsageError('--allow-unpriced only applies with --spend-limit (without it, --max-jobs alone counts every job)');
  if (opts.allowUnpriced && opts.maxJobs === undefined)
    throw new UsageError('--allow-unpriced needs --max-jobs <n>: the only bound on jobs whose cost is not known');
}

export function parseArgs(argv: readonly string[]): ConformanceOptions {
  const opts: Partial<ConformanceOptions> & {
    spend: boolean;
    allowUnpriced: boolean;
    json: boolean;
    waitSeconds: number;
    pollSeconds: number;
  } = {
    spend: false,
    allowUnpriced: false,
    json: false,
    waitSeconds: 900,
    pollSeconds: 10,
  };
  const value = (i: number, flag: string) => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--platform') opts.platform = value(i++, a).toUpperCase();
    else if (a === '--account') opts.account = value(i++, a);
    else if (a === '--spend') opts.spend = true;
    else if (a === '--allow-unpriced') opts.allowUnpriced = true;
    else if (a === '--json') opts.json = true;
    else if (a === '--simulator') opts.simulator = value(i++, a);
    else if (a === '--image-url') opts.imageUrl = value(i++, a);
    else if (a === '--video-url') opts.videoUrl = value(i++, a);
    else if (a === '--audio-url') opts.audioUrl = value(i++, a);
    else if (a === '--wait') {
      const n = Number(value(i++, a));
      if (!Number.isFinite(n) || n <= 0) throw new UsageError('--wait takes seconds');
      opts.waitSeconds = n;
    } else if (a === '--poll') {
      const n = Number(value(i++, a));
      if (!Number.isFinite(n) || n <= 0) throw new UsageError('--poll takes seconds');
      opts.pollSeconds = n;
    } else if (a === '--max-jobs') {
      const n = Number(value(i++, a));
      if (!Number.isInteger(n) || n < 0) throw new UsageError('--max-jobs must be a whole number');
      opts.maxJobs = n;
    } else if (a === '--spend-limit') {
      opts.limit = spendLimit(value(i++, a), value(i++, a));
    } else throw new UsageError(`unknown argument ${a}`);
  }
  checkCombination(opts);
  return opts as ConformanceOptions;
}

function hasMicros(amount: number): boolean {
  try {
    micros(amount);
    return true;
  } catch {
    return false;
  }
}

/** The accounts to check: every configured one (the one-account variables are `default`), or the one `--account` names. */
function accountsToCheck(
  platform: PlatformDefinition,
  worker: WorkerPlatform,
  only: string | undefined,
): readonly Pick<WorkerAccount, 'id' | 'createAdapter'>[] {
  const all = worker.accounts ?? [{ id: 'default', createAdapter: worker.createAdapter }];
  if (only === undefined) return all;
  const one = all.filter((a) => a.id === only);
  if (one.length === 0)
    throw new Error(`--account ${only}: platform ${platform.id} has no such account (configured: ${all.map((a) => a.id).join(', ')})`);
  return one;
}

/** What the checks of every account share: the platform, its records and prices, the budget, the recorded HTTP. */
interface RunShared {
  platform: PlatformDefinition;
  records: readonly ModelRecord[];
  pricing: TaskPricing;
  budget: SpendBudget;
  http: ReturnType<typeof recordingHttp>;
  env: NodeJS.ProcessEnv;
}

/** One account's checks; its rows and how the platform's console names it. */
async function checkAccount(
  run: RunShared,
  opts: ConformanceOptions,
  account: Pick<WorkerAccount, 'id' | 'createAdapter'>,
): Promise<{ rows: ReportRow[]; reaches?: string }> {
  const adapter = account.createAdapter({ http: run.http });
  const ctx = {
    ...run,
    account: account.id,
    adapter,
    // Each account its own run id: the dedup keys (T's SessionId) of one account's jobs are never another's.
    runId: newRunId(),
    shared: new Map<string, unknown>(),
    waitMs: opts.waitSeconds * 1000,
    pollMs: opts.pollSeconds * 1000,
    media: { image: opts.imageUrl, video: opts.videoUrl, audio: opts.audioUrl },
  };
  const rows = await runChecks(ctx, ASSUMPTIONS[run.platform.id] ?? []);
  return { rows, ...(adapter.account ? { reaches: adapter.account } : {}) };
}

/**
 * Runs the platform's checks on each account in turn; the report. Throws a ConfigError when the platform has no
 * credentials (and no --simulator), or an Error when `--account` names no configured account.
 */
export async function runConformance(opts: ConformanceOptions, env: NodeJS.ProcessEnv): Promise<Report> {
  const platform = platformById(opts.platform);
  // Against a simulator, the platform's own worker variables (credentials, endpoint) are dropped: never a real account.
  // Its jobs announce nothing to the gateway either (no callback URL on V's creates): the run polls what it waits for.
  const runEnv = Object.fromEntries(
    Object.entries(env).filter(
      ([k]) => k !== 'PUBLIC_BASE_URL' && k !== 'CALLBACK_SECRET' && !(opts.simulator && k in platform.workerEnv.shape),
    ),
  );
  const worker = platform.worker(runEnv, { simulate: opts.simulator !== undefined, simBaseUrl: opts.simulator ?? '' });
  const accounts = accountsToCheck(platform, worker, opts.account);
  // The prices the API and the ledger use: the platforms' published ones with PRICES_FILE over them.
  const pricing = loadTaskPricing(buildCatalogue(runEnv), runEnv);
  const inner = createHttpClient({ connectTimeoutMs: 5_000, responseTimeoutMs: 60_000 });
  try {
    const records = platform.models(runEnv);
    const budget = new SpendBudget({
      spend: opts.spend,
      ...(opts.limit ? { limit: opts.limit } : {}),
      ...(opts.maxJobs !== undefined ? { maxJobs: opts.maxJobs } : {}),
      allowUnpriced: opts.allowUnpriced,
    });
    const run: RunShared = { platform, records, pricing, budget, http: recordingHttp(inner), env: runEnv };
    const rows: ReportRow[] = [];
    const checked: Report['accounts'] = [];
    for (const account of accounts) {
      const result = await checkAccount(run, opts, account);
      rows.push(...result.rows);
      checked.push({ id: account.id, ...(result.reaches ? { reaches: result.reaches } : {}) });
    }
    const ids = new Set((ASSUMPTIONS[platform.id] ?? []).map((a) => a.id));
    const unchecked = [...factsOf(platform, records).values()]
      .filter((f) => !ids.has(f.id))
      .map((f) => ({ id: f.id, fact: f.fact, override: f.override }));
    return { platform: platform.id, simulated: worker.simulated, accounts: checked, rows, unchecked, spent: spentOf(budget) };
  } finally {
    await inner.close();
  }
}

async function main(): Promise<number> {
  let opts: ConformanceOptions;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`conformance: ${err.message}`);
    return 3;
  }
  let report: Report;
  try {
    report = await runConformance(opts, process.env);
  } catch (err) {
    // No credentials (a ConfigError naming the variable), an --account not configured, or a models or prices file
    // the worker would refuse too.
    console.error(
      `conformance: refused to run: ${(err as Error).message}${opts.simulator ? '' : ' (a simulator only with --simulator <url>)'}`,
    );
    return 3;
  }
  console.log(opts.json ? JSON.stringify({ ...report, exitCode: exitCode(report.rows) }, null, 2) : renderReport(report));
  return exitCode(report.rows);
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(3);
    },
  );
}
