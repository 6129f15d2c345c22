/**
 * The conformance run's parts (issue 19 C): an assumption is one fact no public source confirms (its id, what the
 * gateway assumes and what to change when it does not hold all come from the fact's mark, platforms/*\/unconfirmed.ts
 * or a model record's `unconfirmed`: one source of truth), with a check that settles it against the configured
 * account through the platform's own adapter — the code the worker runs. Read-only checks run first; a check
 * that needs a paid job asks the budget first, which refuses without `--spend` and beyond `--spend-limit` /
 * `--max-jobs`.
 */
import { randomUUID } from 'node:crypto';
import { Catalogue, type DurationRule, type ModelRecord, type UnconfirmedFact } from '../../core/catalogue';
import type { GenerationRequest, Kind } from '../../core/task';
import type { HttpClient, HttpResponse } from '../../platforms/http';
import type { PlatformAdapter, PlatformDefinition, ReconcileContext } from '../../platforms/platform';
import { UpstreamError } from '../../platforms/upstream-error';
import { validateGeneration } from '../../platforms/validation';

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
      const requestHeaders = Object.fromEntries(Object.entries(opts.headers ?? {}).filter(([k]) => !/authorization|token|key|secret/i.test(k)));
      exchanges.push({ method, url, requestHeaders, requestBody, response });
      return response;
    },
  };
}

/** Raised when a check needs a paid job the run may not make. */
export class NoBudget extends Error {
  override name = 'NoBudget';
}

export interface SpendLimit {
  amount: number;
  currency: string;
}

/** What a job is estimated to cost; undefined when no price is known (it then counts against --max-jobs). */
export type Estimate = SpendLimit | undefined;

/**
 * The run's spending: nothing without `--spend`; a priced job only while the estimated total stays within
 * `--spend-limit` (same currency); a job with no known price only while fewer than `--max-jobs` have been made.
 */
export class SpendBudget {
  readonly jobs: { label: string; estimate: Estimate; upstreamTaskId?: string }[] = [];
  constructor(readonly opts: { spend: boolean; limit?: SpendLimit; maxJobs: number }) {}

  get spent(): number {
    return this.jobs.reduce((sum, j) => sum + (j.estimate?.amount ?? 0), 0);
  }

  /** Reserves one job, or throws NoBudget saying why not. */
  take(label: string, estimate: Estimate): { label: string; estimate: Estimate; upstreamTaskId?: string } {
    if (!this.opts.spend) throw new NoBudget('needs a paid job: run with --spend (and --max-jobs or --spend-limit)');
    if (estimate) {
      const limit = this.opts.limit;
      if (!limit || limit.currency !== estimate.currency) throw new NoBudget(`needs a job estimated at ${estimate.amount} ${estimate.currency}: give --spend-limit in ${estimate.currency}`);
      if (this.spent + estimate.amount > limit.amount) throw new NoBudget(`--spend-limit ${limit.amount} ${limit.currency} reached`);
    } else if (this.jobs.filter((j) => !j.estimate).length >= this.opts.maxJobs) {
      throw new NoBudget(`no price known: --max-jobs ${this.opts.maxJobs} reached`);
    }
    const job = { label, estimate };
    this.jobs.push(job);
    return job;
  }
}

export interface ConformanceContext {
  platform: PlatformDefinition;
  /** The platform's records as the worker sees them (with its models file). */
  records: readonly ModelRecord[];
  adapter: PlatformAdapter;
  http: HttpClient & { exchanges: Exchange[] };
  budget: SpendBudget;
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

/** Makes one paid job under the budget; the job's id, or the platform's refusal. */
export async function spendOneJob(
  ctx: ConformanceContext,
  label: string,
  entry: ModelRecord,
  request: GenerationRequest,
  submit: ReconcileContext,
  estimate?: Estimate,
): Promise<{ upstreamTaskId: string } | { refused: UpstreamError }> {
  const job = ctx.budget.take(`${label}: ${entry.id}`, estimate);
  try {
    const { upstreamTaskId } = await ctx.adapter.submit(entry, request, submit);
    job.upstreamTaskId = upstreamTaskId;
    return { upstreamTaskId };
  } catch (err) {
    if (err instanceof UpstreamError) {
      // A refused create is not a job: it does not count against the budget.
      ctx.budget.jobs.splice(ctx.budget.jobs.indexOf(job), 1);
      return { refused: err };
    }
    throw err;
  }
}

export const held = (how: string): CheckResult => ({ outcome: 'held', how });
export const notHeld = (how: string): CheckResult => ({ outcome: 'did not hold', how });
export const cannotCheck = (how: string): CheckResult => ({ outcome: 'could not check', how });

/** An UpstreamError's code and message, for the table. */
export const describeRefusal = (err: UpstreamError): string => `${err.opts.code ?? err.opts.httpStatus ?? 'refused'}: ${err.message.slice(0, 160)}`;

/** One row of the report. */
export interface ReportRow {
  id: string;
  fact: string;
  model?: string;
  kind: 'read-only' | 'spending';
  outcome: Outcome;
  how: string;
  /** What to change; shown for "did not hold". */
  override: string;
}

export interface Report {
  platform: string;
  account?: string;
  simulated: boolean;
  rows: ReportRow[];
  /** Facts of the platform with no automatic check, listed so none is forgotten. */
  unchecked: { id: string; fact: string; override: string }[];
  spent: { jobs: { label: string; upstreamTaskId?: string; estimate?: SpendLimit }[]; estimated: number; currency?: string };
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
    if (!fact) throw new Error(`conformance: assumption ${a.id} has no unconfirmed fact of platform ${ctx.platform.id} (platforms/${ctx.platform.id.toLowerCase()}/unconfirmed.ts or a record's unconfirmed)`);
    let result: CheckResult;
    try {
      result = await a.check(ctx);
    } catch (err) {
      result = err instanceof NoBudget ? cannotCheck(err.message) : cannotCheck(`the check failed: ${(err as Error).message}`);
    }
    rows.push({ id: a.id, fact: fact.fact, ...(fact.model ? { model: fact.model } : {}), kind: a.spends ? 'spending' : 'read-only', outcome: result.outcome, how: result.how, override: fact.override });
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

/** The report as an operator reads it: one table, what was spent, and what to change for each "did not hold". */
export function renderReport(report: Report): string {
  const lines = [
    `Conformance run, platform ${report.platform}${report.account ? ` (${report.account})` : ''}${report.simulated ? ' — against a SIMULATOR, not a real account' : ''}`,
    '',
    '| Assumption | Check | Outcome | How it was checked |',
    '|---|---|---|---|',
    ...report.rows.map((r) => `| ${cell(`${r.id}: ${r.fact}`)} | ${r.kind} | ${r.outcome.toUpperCase()} | ${cell(r.how)} |`),
    '',
  ];
  const failed = report.rows.filter((r) => r.outcome === 'did not hold');
  if (failed.length > 0) {
    lines.push('Did not hold — what to change:');
    for (const r of failed) lines.push(`- ${r.id}: ${r.override}`);
    lines.push('');
  }
  if (report.unchecked.length > 0) {
    lines.push('Not checked by this run (verify by hand; docs/api.md "Unconfirmed with a real account"):');
    for (const u of report.unchecked) lines.push(`- ${u.id}: ${u.fact}`);
    lines.push('');
  }
  const jobs = report.spent.jobs;
  lines.push(
    jobs.length === 0
      ? 'Spent: nothing (no job was created).'
      : `Spent: ${jobs.length} job(s)${report.spent.currency ? `, estimated ${report.spent.estimated} ${report.spent.currency}` : ' (no price known; counted by --max-jobs)'}: ${jobs.map((j) => `${j.label}${j.upstreamTaskId ? ` [${j.upstreamTaskId}]` : ''}`).join('; ')}`,
  );
  return lines.join('\n');
}

/** `body` validated as the API would (against `records`, default the worker's), giving the record and the request the adapter takes. */
export function validated(ctx: ConformanceContext, kind: Kind, body: Record<string, unknown> & { model: string }, records: readonly ModelRecord[] = ctx.records) {
  return validateGeneration(new Catalogue(records), new Set([ctx.platform.id]), kind, body);
}

/** The shortest duration a rule allows. */
export function shortest(rule: DurationRule | undefined): number | undefined {
  if (!rule) return undefined;
  return 'values' in rule ? Math.min(...rule.values) : rule.min;
}
