/**
 * The conformance run (issue 19 C): settles, against the configured real account of one platform, the facts no
 * public source confirms (docs/api.md "Unconfirmed with a real account"), through the platform's own adapter and
 * signing (platforms/<x>/) configured from the worker's variables. Read-only checks first; paid jobs only with
 * `--spend`, the cheapest that settles each fact, within `--spend-limit` / `--max-jobs`. Prints a table (or JSON)
 * and, for each fact that did not hold, the setting or models-file entry to change.
 *
 *   npm run conformance -- --platform T|V|B [--spend --max-jobs N | --spend-limit <amount> <currency>]
 *                          [--json] [--wait <seconds>] [--poll <seconds>] [--simulator <url>]
 *                          [--image-url <url>] [--video-url <url>] [--audio-url <url>]   (V 2.0 checks: media it can fetch)
 *
 * Exit code: 0 every assumption held; 1 one did not hold; 2 some could not be checked (none failed); 3 the run
 * was refused (bad arguments, no credentials). Never run by CI against a real platform: its tests run it against
 * the simulator (test/unit/conformance.test.ts). `--simulator <url>` runs against a simulator explicitly (tests,
 * demos): the platform's worker variables (credentials, endpoint) are then ignored, so no real account is touched.
 */
import { PLATFORM_IDS, platformById } from '../platforms';
import { createHttpClient } from '../platforms/http';
import { B_ASSUMPTIONS } from './conformance/b';
import { exitCode, factsOf, newRunId, recordingHttp, renderReport, runChecks, SpendBudget, type Assumption, type Report, type SpendLimit } from './conformance/framework';
import { T_ASSUMPTIONS } from './conformance/t';
import { V_ASSUMPTIONS } from './conformance/v';

/** The checks per platform; a platform without an entry has nothing to check yet. */
export const ASSUMPTIONS: Readonly<Record<string, readonly Assumption[]>> = { T: T_ASSUMPTIONS, V: V_ASSUMPTIONS, B: B_ASSUMPTIONS };

export interface ConformanceOptions {
  platform: string;
  spend: boolean;
  limit?: SpendLimit;
  maxJobs: number;
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

export function parseArgs(argv: readonly string[]): ConformanceOptions {
  const opts: Partial<ConformanceOptions> & { spend: boolean; json: boolean; maxJobs: number; waitSeconds: number; pollSeconds: number } = { spend: false, json: false, maxJobs: 0, waitSeconds: 900, pollSeconds: 10 };
  const value = (i: number, flag: string) => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--platform') opts.platform = value(i++, a).toUpperCase();
    else if (a === '--spend') opts.spend = true;
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
      const amount = Number(value(i++, a));
      const currency = value(i++, a).toUpperCase();
      if (!Number.isFinite(amount) || amount < 0) throw new UsageError('--spend-limit <amount> <currency>, e.g. --spend-limit 5 CNY');
      if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError('--spend-limit <amount> <currency>: the currency is a 3-letter code, e.g. CNY');
      opts.limit = { amount, currency };
    } else throw new UsageError(`unknown argument ${a}`);
  }
  if (!opts.platform || !PLATFORM_IDS.includes(opts.platform)) throw new UsageError(`--platform ${PLATFORM_IDS.join('|')} is required`);
  if (opts.spend && !opts.limit && opts.maxJobs === 0) throw new UsageError('--spend needs a cap: --max-jobs <n> (jobs with no known price) and/or --spend-limit <amount> <currency>');
  if (!opts.spend && (opts.limit || opts.maxJobs > 0)) throw new UsageError('--spend-limit and --max-jobs only apply with --spend');
  return opts as ConformanceOptions;
}

/** Runs the platform's checks; the report. Throws a ConfigError when the platform has no credentials (and no --simulator). */
export async function runConformance(opts: ConformanceOptions, env: NodeJS.ProcessEnv): Promise<Report> {
  const platform = platformById(opts.platform);
  // Against a simulator, the platform's own worker variables (credentials, endpoint) are dropped: never a real account.
  // Its jobs announce nothing to the gateway either (no callback URL on V's creates): the run polls what it waits for.
  const runEnv = Object.fromEntries(
    Object.entries(env).filter(([k]) => k !== 'PUBLIC_BASE_URL' && k !== 'CALLBACK_SECRET' && !(opts.simulator && k in platform.workerEnv.shape)),
  );
  const worker = platform.worker(runEnv, { simulate: opts.simulator !== undefined, simBaseUrl: opts.simulator ?? '' });
  const inner = createHttpClient({ connectTimeoutMs: 5_000, responseTimeoutMs: 60_000 });
  const http = recordingHttp(inner);
  try {
    const adapter = worker.createAdapter({ http });
    const records = platform.models(runEnv);
    const budget = new SpendBudget({ spend: opts.spend, ...(opts.limit ? { limit: opts.limit } : {}), maxJobs: opts.maxJobs });
    const assumptions = ASSUMPTIONS[platform.id] ?? [];
    const ctx = { platform, records, adapter, http, budget, env: runEnv, runId: newRunId(), shared: new Map<string, unknown>(), waitMs: opts.waitSeconds * 1000, pollMs: opts.pollSeconds * 1000, media: { image: opts.imageUrl, video: opts.videoUrl, audio: opts.audioUrl } };
    const rows = await runChecks(ctx, assumptions);
    const checked = new Set(assumptions.map((a) => a.id));
    const unchecked = [...factsOf(platform, records).values()].filter((f) => !checked.has(f.id)).map((f) => ({ id: f.id, fact: f.fact, override: f.override }));
    const priced = budget.jobs.find((j) => j.estimate)?.estimate?.currency;
    return {
      platform: platform.id,
      ...(adapter.account ? { account: adapter.account } : {}),
      simulated: worker.simulated,
      rows,
      unchecked,
      spent: {
        jobs: budget.jobs.map((j) => ({ label: j.label, ...(j.upstreamTaskId ? { upstreamTaskId: j.upstreamTaskId } : {}), ...(j.estimate ? { estimate: j.estimate } : {}) })),
        estimated: budget.spent,
        ...(priced ? { currency: priced } : {}),
      },
    };
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
    // No credentials (a ConfigError naming the variable), or a models file the worker would refuse too.
    console.error(`conformance: refused to run: ${(err as Error).message}${opts.simulator ? '' : ' (a simulator only with --simulator <url>)'}`);
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
