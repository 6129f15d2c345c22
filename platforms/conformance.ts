/**
 * The conformance run's parts: an assumption is one fact no public source confirms (its id, what the
 * gateway assumes and what to change when it does not hold all come from the fact's mark, platforms/*\/unconfirmed.ts
 * or a model record's `unconfirmed`: one source of truth), with a check that settles it against the configured
 * account through the platform's own adapter — the code the worker runs. Read-only checks run first; a check
 * that needs a paid job asks the budget first, with the job's estimated cost from the gateway's own prices
 * (pricing/: the platforms' published prices with PRICES_FILE over them, as the API and the ledger price a task).
 * The budget refuses without `--spend`, beyond `--max-jobs`, beyond `--spend-limit`, and, under `--spend-limit`,
 * a job whose price is not known unless `--allow-unpriced` says to make it anyway (counted by `--max-jobs`).
 */
import { randomUUID } from 'node:crypto';
import { Catalogue, type DurationRule, type ModelRecord, type UnconfirmedFact } from '../core/catalogue';
import type { GenerationRequest, Kind } from '../core/task';
import { decimalOf, micros, type Currency, type Micros } from '../pricing/price';
import type { TaskPricing } from '../pricing/price-table';
import type { HttpClient, HttpResponse } from './http';
import type { PlatformAdapter, PlatformDefinition, ReconcileContext } from './platform';
import { UpstreamError } from './upstream-error';
import { validateGeneration } from './validation';

export type Outcome = 'held' | 'did not hold' | 'could not check';

export interface CheckResult {
  outcome: Outcome;
  /** How it was checked and what was seen. */
  how: string;
}

export interface Assumption {
  /** The id of the fact it checks (UnconfirmedFact.id). */
  readonly id: string;
  /** True when the check creates a paid job (it then runs after the read-only ones, under the budget). */
  readonly spends: boolean;
  check(ctx: ConformanceContext): Promise<CheckResult>;
}

/** One call the adapter made, as sent and as answered (the checks read what the platform said). */
export interface Exchange {
  method: string;
  url: string;
  /** The request's headers without credentials (authorization, tokens): e.g. T's `x-tc-action`. */
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  response: HttpResponse;
}

/** An HttpClient that keeps every exchange, so a check sees the platform's own answers to the adapter's calls. */
export function recordingHttp(inner: HttpClient): HttpClient & { exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  return {
    exchanges,
    async send(method, url, opts = {}) {
      const response = await inner.send(method, url, opts);
      let requestBody: unknown;
      try {
        requestBody = opts.body === undefined ? undefined : JSON.parse(opts.body);
      } catch {
        requestBody = opts.body;
      }
      const requestHeaders = Object.fromEntries(
        Object.entries(opts.headers ?? {}).filter(([k]) => !/authorization|token|key|secret/i.test(k)),
      );
      exchanges.push({ method, url, requestHeaders, requestBody, response });
      return response;
    },
  };
}

/** Raised when a check needs a paid job the run may not make. */
export class NoBudget extends Error {
  override name = 'NoBudget';
}

/** `--spend-limit <amount> <currency>`: decimal units, as the operator writes them. */
export interface SpendLimit {
  amount: number;
  currency: string;
}

/** What a job is estimated to cost (exact micros, pricing/price.ts); undefined when no price is known. */
export type Estimate = { amount: Micros; currency: Currency } | undefined;

/** An amount as the report prints it: `0.2 CNY`. */
export const money = (amount: Micros, currency: string): string => `${decimalOf(amount)} ${currency}`;

/** One job the run made (or is making): for the report and the budget. */
export interface BudgetJob {
  label: string;
  /** The account (its id in the accounts file; `default` for the one-account variables) the job was made on. */
  account: string;
  model: string;
  estimate: Estimate;
  upstreamTaskId?: string;
}

export interface BudgetOptions {
  spend: boolean;
  limit?: SpendLimit;
  /** `--max-jobs`: at most this many jobs in the whole run, priced or not; undefined: no count cap. */
  maxJobs?: number;
  /** `--allow-unpriced`: under `--spend-limit`, a job with no known price is made all the same (counted by `--max-jobs`). */
  allowUnpriced?: boolean;
}

/**
 * The run's spending, over every account it checks: nothing without `--spend`; at most `--max-jobs` jobs; under
 * `--spend-limit`, a job only when its estimate is known, in the limit's currency, and keeps the estimated total
 * within the limit — a job with no known price only with `--allow-unpriced`. Without `--spend-limit`, `--max-jobs`
 * is the operator's only cap and every job counts against it, priced or not (the report says which had no price).
 */
export class SpendBudget {
  readonly jobs: BudgetJob[] = [];
  private readonly limitMicros: Micros | undefined;

  constructor(readonly opts: BudgetOptions) {
    this.limitMicros = opts.limit ? micros(opts.limit.amount) : undefined;
  }

  /** The estimated total of the jobs made in `currency`. */
  spentIn(currency: string): Micros {
    return this.jobs.reduce((sum, j) => sum + (j.estimate?.currency === currency ? j.estimate.amount : 0), 0);
  }

  /** The estimated totals per currency, and how many jobs had no price. */
  totals(): { estimated: { amount: number; currency: string }[]; unpriced: number } {
    const currencies = [...new Set(this.jobs.flatMap((j) => (j.estimate ? [j.estimate.currency] : [])))].sort();
    return {
      estimated: currencies.map((c) => ({ amount: decimalOf(this.spentIn(c)), currency: c })),
      unpriced: this.jobs.filter((j) => !j.estimate).length,
    };
  }

  /** Reserves one job, or throws NoBudget saying why not (the check then reports "could not check" with it). */
  take(job: Omit<BudgetJob, 'upstreamTaskId'>): BudgetJob {
    const { spend, limit, maxJobs, allowUnpriced } = this.opts;
    if (!spend) throw new NoBudget('needs a paid job: run with --spend (and --spend-limit and/or --max-jobs)');
    if (maxJobs !== undefined && this.jobs.length >= maxJobs)
      throw new NoBudget(`needs another paid job (${job.label}): --max-jobs ${maxJobs} reached`);
    const { estimate } = job;
    if (limit && estimate) {
      const cap = `--spend-limit ${limit.amount} ${limit.currency}`;
      if (estimate.currency !== limit.currency)
        throw new NoBudget(
          `${job.label} is estimated at ${money(estimate.amount, estimate.currency)}, not in the currency of ${cap}: not made`,
        );
      const spent = this.spentIn(estimate.currency);
      if (spent + estimate.amount > this.limitMicros!) {
        throw new NoBudget(
          `${job.label} is estimated at ${money(estimate.amount, estimate.currency)}; with ${money(spent, estimate.currency)} already spent it would exceed ${cap}: not made`,
        );
      }
    } else if (limit && !allowUnpriced) {
      throw new NoBudget(
        `no price is known for ${job.model} (set it in PRICES_FILE): a job of unknown cost is not made under --spend-limit (--allow-unpriced with --max-jobs makes it anyway)`,
      );
    }
    const taken: BudgetJob = { ...job };
    this.jobs.push(taken);
    return taken;
  }

  /** Gives back a reserved job the platform refused to create (a refusal is no job). */
  release(job: BudgetJob): void {
    const i = this.jobs.indexOf(job);
    if (i >= 0) this.jobs.splice(i, 1);
  }
}

export interface ConformanceContext {
  platform: PlatformDefinition;
  /** The account checked: its id in PLATFORM_<X>_ACCOUNTS_FILE, or `default` for the one-account variables. */
  account: string;
  /** The platform's records as the worker sees them (with its models file). */
  records: readonly ModelRecord[];
  adapter: PlatformAdapter;
  http: HttpClient & { exchanges: Exchange[] };
  budget: SpendBudget;
  /** The gateway's prices (published, with PRICES_FILE over them): each paid job's estimate. */
  pricing: TaskPricing;
  env: NodeJS.ProcessEnv;
  /** Inputs any platform can fetch, for checks that send media (`--image-url`, `--video-url`, `--audio-url`). */
  media: { image?: string | undefined; video?: string | undefined; audio?: string | undefined };
  /** A prefix for this run's dedup keys and prompts, so its jobs are recognised in the platform's console. */
  runId: string;
  /** Memory between checks of one run (e.g. the job one check made, that the next reuses). */
  shared: Map<string, unknown>;
  /** How long a check waits for a job to finish (`--wait <seconds>`), and between its polls. */
  waitMs: number;
  pollMs: number;
}

/** Runs `fn` and hands back, beside its result, the HTTP exchanges it made (what the platform answered). */
export async function recorded<T>(ctx: ConformanceContext, fn: () => Promise<T>): Promise<{ result: T; exchanges: Exchange[] }> {
  const from = ctx.http.exchanges.length;
  const result = await fn();
  return { result, exchanges: ctx.http.exchanges.slice(from) };
}

/** What `make` gives, made once per run under `key` and handed to every later check that asks (e.g. the cheapest job). */
export async function oncePerRun<T>(ctx: ConformanceContext, key: string, make: () => Promise<T>): Promise<T> {
  if (!ctx.shared.has(key)) ctx.shared.set(key, await make());
  return ctx.shared.get(key) as T;
}

export function newRunId(): string {
  return `conformance-${new Date().toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`;
}

/** A submit context like the worker's, with a dedup key of this run. */
export function submitContext(ctx: ConformanceContext, label: string): ReconcileContext {
  const now = Date.now();
  return { taskId: `${ctx.runId}-${label}`, dedupKey: `${ctx.runId}-${label}`.slice(0, 50), deadlineAt: now + 3600_000, since: now };
}

/** The record of `id` (of `kind`) as the worker has it, or undefined when the deployment withdrew it. */
export function recordOf(ctx: ConformanceContext, kind: Kind, id: string): ModelRecord | undefined {
  return ctx.records.find((r) => r.kind === kind && r.id === id);
}

/** A job's estimated cost from the gateway's prices, as the API and the ledger estimate a task; undefined: no price known. */
export function estimateOf(ctx: ConformanceContext, request: GenerationRequest): Estimate {
  let cost;
  try {
    cost = ctx.pricing.estimateTaskCost(request).cost;
  } catch {
    // A model the deployment's catalogue does not list has no price either.
    return undefined;
  }
  return cost ? { amount: cost.amount, currency: cost.currency } : undefined;
}

/** Makes one paid job under the budget, estimated from the gateway's prices; the job's id, or the platform's refusal. */
export async function spendOneJob(
  ctx: ConformanceContext,
  label: string,
  entry: ModelRecord,
  request: GenerationRequest,
  submit: ReconcileContext,
): Promise<{ upstreamTaskId: string } | { refused: UpstreamError }> {
  const job = ctx.budget.take({
    label: `${label}: ${entry.id}`,
    account: ctx.account,
    model: entry.id,
    estimate: estimateOf(ctx, request),
  });
  try {
    const { upstreamTaskId } = await ctx.adapter.submit(entry, request, submit);
    job.upstreamTaskId = upstreamTaskId;
    return { upstreamTaskId };
  } catch (err) {
    if (err instanceof UpstreamError) {
      // A refused create is not a job: it does not count against the budget. A create whose answer never came
      // may have made one: it stays counted.
      if (!err.opts.noAnswer) ctx.budget.release(job);
      return { refused: err };
    }
    throw err;
  }
}

export const held = (how: string): CheckResult => ({ outcome: 'held', how });
export const notHeld = (how: string): CheckResult => ({ outcome: 'did not hold', how });
export const cannotCheck = (how: string): CheckResult => ({ outcome: 'could not check', how });

/** An UpstreamError's code and message, for the table. */
export const describeRefusal = (err: UpstreamError): string =>
  `${err.opts.code ?? err.opts.httpStatus ?? 'refused'}: ${err.message.slice(0, 160)}`;

/** One row of the report: one assumption checked on one account. */
export interface ReportRow {
  /** The account it was checked on (ConformanceContext.account). */
  account: string;
  id: string;
  fact: string;
  model?: string;
  kind: 'read-only' | 'spending';
  outcome: Outcome;
  how: string;
  /** What to change; shown for "did not hold". */
  override: string;
}

/** A job as the report lists it: its estimate in decimal units, or none when no price was known. */
export interface ReportJob {
  label: string;
  account: string;
  upstreamTaskId?: string;
  estimate?: { amount: number; currency: string };
}

export interface Report {
  platform: string;
  simulated: boolean;
  /** The accounts checked, in order: `id` as configured, `reaches` as the platform's console shows it (adapter.account). */
  accounts: { id: string; reaches?: string }[];
  /** Every account's rows, account by account. */
  rows: ReportRow[];
  /** Facts of the platform with no automatic check, listed so none is forgotten. */
  unchecked: { id: string; fact: string; override: string }[];
  spent: {
    jobs: ReportJob[];
    /** The estimated total per currency of the jobs with a known price. */
    estimated: { amount: number; currency: string }[];
    /** Jobs made with no known price (only without --spend-limit, or with --allow-unpriced). */
    unpriced: number;
    limit?: SpendLimit;
    maxJobs?: number;
  };
}

/** The budget's jobs and totals as the report shows them. */
export function spentOf(budget: SpendBudget): Report['spent'] {
  const { limit, maxJobs } = budget.opts;
  return {
    jobs: budget.jobs.map((j) => ({
      label: j.label,
      account: j.account,
      ...(j.upstreamTaskId ? { upstreamTaskId: j.upstreamTaskId } : {}),
      ...(j.estimate ? { estimate: { amount: decimalOf(j.estimate.amount), currency: j.estimate.currency } } : {}),
    })),
    ...budget.totals(),
    ...(limit ? { limit } : {}),
    ...(maxJobs !== undefined ? { maxJobs } : {}),
  };
}

/** The facts of a platform, its records' included, by id. */
export function factsOf(platform: PlatformDefinition, records: readonly ModelRecord[]): Map<string, UnconfirmedFact & { model?: string }> {
  const out = new Map<string, UnconfirmedFact & { model?: string }>();
  for (const f of platform.unconfirmed ?? []) out.set(f.id, f);
  for (const r of records) for (const f of r.unconfirmed ?? []) out.set(f.id, { ...f, model: r.id });
  return out;
}

/** Runs the read-only checks, then the spending ones; a check that throws is "could not check" with the error. */
export async function runChecks(ctx: ConformanceContext, assumptions: readonly Assumption[]): Promise<ReportRow[]> {
  const facts = factsOf(ctx.platform, ctx.records);
  const ordered = [...assumptions.filter((a) => !a.spends), ...assumptions.filter((a) => a.spends)];
  const rows: ReportRow[] = [];
  for (const a of ordered) {
    const fact = facts.get(a.id);
    if (!fact)
      throw new Error(
        `conformance: assumption ${a.id} has no unconfirmed fact of platform ${ctx.platform.id} (platforms/${ctx.platform.id.toLowerCase()}/unconfirmed.ts or a record's unconfirmed)`,
      );
    let result: CheckResult;
    try {
      result = await a.check(ctx);
    } catch (err) {
      result = err instanceof NoBudget ? cannotCheck(err.message) : cannotCheck(`the check failed: ${(err as Error).message}`);
    }
    rows.push({
      account: ctx.account,
      id: a.id,
      fact: fact.fact,
      ...(fact.model ? { model: fact.model } : {}),
      kind: a.spends ? 'spending' : 'read-only',
      outcome: result.outcome,
      how: result.how,
      override: fact.override,
    });
  }
  return rows;
}

/** 0 when every assumption held, 1 when any did not hold, 2 when some could not be checked (and none failed). */
export function exitCode(rows: readonly ReportRow[]): 0 | 1 | 2 {
  if (rows.some((r) => r.outcome === 'did not hold')) return 1;
  if (rows.some((r) => r.outcome === 'could not check')) return 2;
  return 0;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** What was spent, as the report's last lines say it. */
export function renderSpent(spent: Report['spent']): string[] {
  const caps = [
    spent.limit ? `--spend-limit ${spent.limit.amount} ${spent.limit.currency}` : '',
    spent.maxJobs !== undefined ? `--max-jobs ${spent.maxJobs}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (spent.jobs.length === 0) return [`Spent: nothing (no job was created)${caps ? `; caps: ${caps}` : ''}.`];
  const totals = [
    ...spent.estimated.map((e) => `${e.amount} ${e.currency}`),
    ...(spent.unpriced > 0 ? [`${spent.unpriced} job(s) of unknown price`] : []),
  ].join(' + ');
  return [
    `Spent: ${spent.jobs.length} job(s), estimated ${totals}${caps ? `; caps: ${caps}` : ''}:`,
    ...spent.jobs.map(
      (j) =>
        `- ${j.account}: ${j.label}${j.upstreamTaskId ? ` [${j.upstreamTaskId}]` : ''}: ${j.estimate ? `${j.estimate.amount} ${j.estimate.currency}` : 'no price known'}`,
    ),
  ];
}

/** The report as an operator reads it: one table per account, what to change for each "did not hold", what was spent. */
export function renderReport(report: Report): string {
  const lines = [`Conformance run, platform ${report.platform}${report.simulated ? ' — against a SIMULATOR, not a real account' : ''}`, ''];
  for (const account of report.accounts) {
    const rows = report.rows.filter((r) => r.account === account.id);
    lines.push(
      `Account ${account.id}${account.reaches ? ` (${account.reaches})` : ''}:`,
      '',
      '| Assumption | Check | Outcome | How it was checked |',
      '|---|---|---|---|',
      ...rows.map((r) => `| ${cell(`${r.id}: ${r.fact}`)} | ${r.kind} | ${r.outcome.toUpperCase()} | ${cell(r.how)} |`),
      '',
    );
  }
  const failed = report.rows.filter((r) => r.outcome === 'did not hold');
  if (failed.length > 0) {
    lines.push('Did not hold — what to change:');
    for (const id of [...new Set(failed.map((r) => r.id))]) {
      const on = failed.filter((r) => r.id === id).map((r) => r.account);
      lines.push(
        `- ${id}: ${failed.find((r) => r.id === id)!.override}${report.accounts.length > 1 ? ` (did not hold on ${on.join(', ')})` : ''}`,
      );
    }
    lines.push('');
  }
  if (report.unchecked.length > 0) {
    lines.push('Not checked by this run (verify by hand; docs/api.md "Unconfirmed with a real account"):');
    for (const u of report.unchecked) lines.push(`- ${u.id}: ${u.fact}`);
    lines.push('');
  }
  lines.push(...renderSpent(report.spent));
  return lines.join('\n');
}

/** `body` validated as the API would (against `records`, default the worker's), giving the record and the request the adapter takes. */
export function validated(
  ctx: ConformanceContext,
  kind: Kind,
  body: Record<string, unknown> & { model: string },
  records: readonly ModelRecord[] = ctx.records,
) {
  return validateGeneration(new Catalogue(records), new Set([ctx.platform.id]), kind, body);
}

/** The shortest duration a rule allows. */
export function shortest(rule: DurationRule | undefined): number | undefined {
  if (!rule) return undefined;
  return 'values' in rule ? Math.min(...rule.values) : rule.min;
}
