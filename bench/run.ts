/**
 * `npm run bench [-- part ...]`: runs the named parts (all by default) and prints Markdown tables; the raw figures
 * go to bench/results/<part>.json. Parts: submit, reads, e2e, inflight, sync, history, results, ledger (add `--real` for the
 * real 5-minute history run), push, webhooks, streams, console (the operator's console in a browser: page sizes, first
 * render, screenshots); push-history (~6 minutes), push-capacity (~30 minutes), lighter (the embedded stack beside
 * the production shape, ~40 minutes), floor (the gateway beside a minimal Temporal task, ~10 minutes) and capacity
 * (capped platform accounts under a burst of 2,000 tasks, two runs of ~15 minutes each; options `--runs
 * configured,learned`, `--tasks 2000`, `--second 20`, `--job-ms 8000`) run only when named.
 * Every part starts its own stack on free 127.0.0.1 ports and stops it after.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPACITY_DEFAULTS, runCapacity, thinned, type CapacityOptions, type CapacityRunName } from './capacity';
import { runConsole } from './console';
import { runE2e } from './e2e';
import { runFloor, type FloorRow } from './floor';
import { runHistory } from './history';
import { runLedger } from './ledger';
import { runLighter } from './lighter';
import { runPushCapacity, runPushDelay, runPushHistory, type PushHistoryRow } from './push';
import { runReads } from './reads';
import { runResults } from './result-store';
import { runInFlight, runSync } from './scale';
import { runStreams } from './streams';
import { runSubmit } from './submit';
import { machine } from './support';
import { runWebhookDelay } from './webhooks';

const RESULTS = join(__dirname, 'results');

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(no rows)';
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return [
    `| ${cols.join(' | ')} |`,
    `|${cols.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${cols.map((c) => String(r[c] ?? '-')).join(' | ')} |`),
  ].join('\n');
}

/** Options that take a value (`--tasks 200` or `--tasks=200`): their values are not part names. */
const VALUE_OPTIONS = ['--runs', '--tasks', '--second', '--job-ms'];

/** The value of option `name` in `args`, if given. */
function optionValue(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  const arg = args[i]!;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[i + 1];
}

/** The capacity part's options from the command line, each checked. */
function capacityOptions(args: string[]): CapacityOptions {
  const count = (name: string, dflt: number): number => {
    const v = optionValue(args, name);
    if (v === undefined) return dflt;
    if (!/^\d+$/.test(v)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(v)}`);
    return Number(v);
  };
  const runs = (optionValue(args, '--runs') ?? CAPACITY_DEFAULTS.runs.join(',')).split(',').map((r) => r.trim());
  const unknown = runs.filter((r) => r !== 'configured' && r !== 'learned');
  if (unknown.length > 0) throw new Error(`--runs takes configured and/or learned, got ${unknown.join(', ')}`);
  return {
    runs: runs as CapacityRunName[],
    tasks: count('--tasks', CAPACITY_DEFAULTS.tasks),
    second: count('--second', CAPACITY_DEFAULTS.second),
    jobMs: count('--job-ms', CAPACITY_DEFAULTS.jobMs),
  };
}

/** The command line's part names: what is neither an option nor an option's value. */
function partNames(args: string[]): string[] {
  return args.filter((a, i) => !a.startsWith('--') && !VALUE_OPTIONS.includes(args[i - 1] ?? ''));
}

const PARTS: Record<string, (real: boolean, args: string[]) => Promise<unknown>> = {
  submit: runSubmit,
  reads: runReads,
  e2e: runE2e,
  inflight: runInFlight,
  sync: () => runSync(),
  history: (real) => runHistory(real),
  results: () => runResults(),
  ledger: () => runLedger(),
  push: () => runPushDelay(),
  'push-history': () => runPushHistory(),
  'push-capacity': () => runPushCapacity(),
  webhooks: () => runWebhookDelay(),
  streams: () => runStreams(),
  lighter: () => runLighter(),
  console: () => runConsole(),
  floor: () => runFloor(),
  capacity: (_real, args) => runCapacity(capacityOptions(args)),
};

/** Long parts, left out of a run that names no part. */
const ON_REQUEST = new Set(['push-history', 'push-capacity', 'lighter', 'floor', 'capacity']);

/** The floor's rows: CPU per task by process, then what the Temporal server did per task and one task's history. */
function renderFloor(rows: FloorRow[], notes: string[]): string {
  const cpu = rows.map(({ cpuMsPerTask, serverWritesPerTask: _, historyOfOne: __, ...rest }) => ({
    ...rest,
    ...Object.fromEntries(Object.entries(cpuMsPerTask).map(([role, ms]) => [`${role} ms`, ms])),
  }));
  const writes = rows.map(({ row, clients, serverWritesPerTask: w, historyOfOne: h }) => ({
    row,
    clients,
    ...w,
    'one history: events': h.events,
    'one history: bytes': h.bytes,
  }));
  return `${table(cpu)}\n\nWhat the Temporal server did per task, and one task's history:\n\n${table(writes)}\n\n${notes.join('; ')}`;
}

/** Each mode's five-minute task: its history's counts, the server's writes around it, then its events by type. */
function renderPushHistory(rows: PushHistoryRow[], notes: string[]): string {
  const byType = rows.map(
    (r) =>
      `push ${r.push}: ${Object.entries(r.byType)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ')}`,
  );
  const shown = rows.map(({ byType: _, serverWrites: w, ...rest }) => ({
    ...rest,
    'server: visibility start / upserts / close': `${w.visibilityStarted} / ${w.visibilityUpserted} / ${w.visibilityClosed}`,
    'server: mutable-state updates / frontend calls': `${w.mutableStateUpdates} / ${w.frontendCalls}`,
  }));
  return `${table(shown)}\n\nEvents by type: ${byType.join('; ')}\n\n${notes.join('; ')}`;
}

function render(part: string, result: any): string {
  switch (part) {
    case 'submit':
    case 'reads':
    case 'results':
      return `${table(result.rows)}\n\n${result.notes.join('; ')}`;
    case 'e2e':
      return `${table([result.throughput])}\n\n${table([result.delay])}\n\n${result.notes.join('; ')}`;
    case 'inflight':
      return table(result);
    case 'ledger': {
      const rows = result.rows as { part: string }[];
      const parts = [...new Set(rows.map((r) => r.part))];
      return `${parts.map((p) => table(rows.filter((r) => r.part === p))).join('\n\n')}\n\n${result.notes.join('; ')}`;
    }
    case 'floor':
      return renderFloor(result.rows as FloorRow[], result.notes as string[]);
    case 'capacity': {
      const series = Object.entries(result.series as Record<string, Record<string, unknown>[]>).map(
        ([run, samples]) => `Every 5 s, run ${run} (${samples.length} samples, at most 24 shown):\n\n${table(thinned(samples))}`,
      );
      return `${table(result.rows)}\n\n${series.join('\n\n')}\n\n${result.notes.join('; ')}`;
    }
    case 'lighter':
      return `${table(result.rows)}\n\n${table(result.capacity)}\n\n${result.notes.join('; ')}`;
    case 'console':
    case 'push':
    case 'push-capacity':
    case 'webhooks':
    case 'streams':
      return `${table(result.rows)}\n\n${result.notes.join('; ')}`;
    case 'push-history':
      return renderPushHistory(result.rows as PushHistoryRow[], result.notes as string[]);
    case 'history': {
      const { byType, ...rest } = result;
      return `${table([rest])}\n\nEvents by type: ${Object.entries(byType as Record<string, number>)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ')}`;
    }
    default:
      return table([result]);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const real = args.includes('--real');
  const wanted = partNames(args);
  const unknown = wanted.filter((p) => !(p in PARTS));
  if (unknown.length > 0) throw new Error(`unknown part(s) ${unknown.join(', ')}; parts: ${Object.keys(PARTS).join(', ')}`);
  const parts = wanted.length > 0 ? wanted : Object.keys(PARTS).filter((p) => !ON_REQUEST.has(p));

  mkdirSync(RESULTS, { recursive: true });
  console.log(`# mediagate benchmarks\n\n${table([machine()])}`);
  for (const part of parts) {
    const t0 = Date.now();
    const result = await PARTS[part]!(real, args);
    writeFileSync(
      join(RESULTS, `${part}.json`),
      `${JSON.stringify({ at: new Date().toISOString(), machine: machine(), result }, null, 2)}\n`,
    );
    console.log(`\n## ${part} (${Math.round((Date.now() - t0) / 1000)} s)\n\n${render(part, result)}`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
