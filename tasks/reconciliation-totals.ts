/**
 * Reconciliation by day totals (tasks/reconciliation.ts): for a platform that keeps no record job by job the gateway
 * can read, but states an account's day totals (T's AIGC usage statistics, B's resource bill), the ledger's totals of
 * the same account and UTC day are compared with them, one quantity at a time, and each that differs beyond
 * TOTAL_TOLERANCE is one `total` difference. A day total cannot say which job differs: an orphan and a missing task
 * of the same size cancel out, and neither can be named. The report says so in its note (TOTALS_LIMITATION).
 */
import type { Difference } from '../ledger/reconciliations';
import type { PlatformDayTotal, TotalQuantity } from '../platforms/platform';

/**
 * How far apart the two sides of a total may be before it is a difference: beyond both `absolute` (in the quantity's
 * unit) and `relative` (a fraction of the larger side). Seconds and images are whole numbers on both sides, each
 * job's own count as the platform reported it, so any gap is one; money is summed from bill rows the platform
 * rounds to the fen (0.01 CNY) each, so a gap of a few fen, or of 0.1 % on a large day, is rounding, not a job (the
 * cheapest priced job, V20's 4 s clip at 360p, costs 0.63 CNY).
 */
export const TOTAL_TOLERANCE: Readonly<Record<TotalQuantity, { absolute: number; relative: number }>> = {
  video_seconds: { absolute: 0, relative: 0 },
  images: { absolute: 0, relative: 0 },
  money: { absolute: 0.05, relative: 0.001 },
};

/** What a totals report cannot prove, in its note (docs/guides/operate.md "Reconciliation"). */
export const TOTALS_LIMITATION =
  'compared by day totals: a difference names the quantity and both sides, never the job; orphans and missing tasks cannot be told apart, and two of the same size cancel out';

/** The ledger's side of a day: what its billed tasks of the account used, and cost at list price. */
export interface LedgerDayTotals {
  tasks: number;
  video_seconds: number;
  images: number;
  /** Micros of `currency`; undefined when a billed task had no price or another currency (money not comparable). */
  moneyMicros?: number;
  currency?: string;
  /** Why money is not comparable, when it is not. */
  moneyWhy?: string;
}

/** A billed ledger entry, as the totals read it. */
export interface BilledEntry {
  seconds: number | null;
  images: number | null;
  finalMicros: number;
  currency: string;
  unpriced: string | null;
}

/** Sums the ledger's billed entries of the day. */
export function ledgerTotals(entries: readonly BilledEntry[], platformCurrency: string | undefined): LedgerDayTotals {
  const out: LedgerDayTotals = { tasks: entries.length, video_seconds: 0, images: 0, moneyMicros: 0 };
  for (const e of entries) {
    out.video_seconds += e.seconds ?? 0;
    out.images += e.images ?? 0;
    out.moneyMicros! += e.finalMicros;
    if (e.unpriced) out.moneyWhy = `a billed task of the day has no price the ledger counts (${e.unpriced})`;
    else if (platformCurrency && e.currency !== platformCurrency)
      out.moneyWhy = `a billed task of the day is priced in ${e.currency}, the bill in ${platformCurrency}`;
  }
  if (out.moneyWhy) delete out.moneyMicros;
  else out.currency = platformCurrency;
  return out;
}

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

/** The ledger's figure for a quantity, or undefined when it has none to compare. */
function ledgerValue(ours: LedgerDayTotals, quantity: TotalQuantity): number | undefined {
  if (quantity !== 'money') return ours[quantity];
  return ours.moneyMicros === undefined ? undefined : round(ours.moneyMicros / 1e6, 6);
}

/** Whether two figures differ beyond the quantity's tolerance. */
export function beyondTolerance(quantity: TotalQuantity, ledger: number, platform: number): boolean {
  const { absolute, relative } = TOTAL_TOLERANCE[quantity];
  const gap = Math.abs(ledger - platform);
  return gap > absolute + 1e-9 && gap > relative * Math.max(Math.abs(ledger), Math.abs(platform)) + 1e-9;
}

/**
 * One `total` difference per quantity the platform states whose two sides differ beyond the tolerance; and the
 * quantities that could not be compared, with why (for the report's note).
 */
export function compareTotals(
  day: string,
  quantities: readonly TotalQuantity[],
  theirs: readonly PlatformDayTotal[],
  ours: LedgerDayTotals,
): { differences: Difference[]; skipped: string[] } {
  const differences: Difference[] = [];
  const skipped: string[] = [];
  for (const quantity of quantities) {
    const platform = round(
      theirs.filter((t) => t.quantity === quantity).reduce((n, t) => n + t.value, 0),
      6,
    );
    const ledger = ledgerValue(ours, quantity);
    if (ledger === undefined) {
      skipped.push(`${quantity} not compared: ${ours.moneyWhy ?? 'the ledger has no figure'}`);
      continue;
    }
    if (!beyondTolerance(quantity, ledger, platform)) continue;
    const counted = theirs.filter((t) => t.quantity === quantity && t.count !== undefined);
    differences.push({
      kind: 'total',
      at: Date.parse(`${day}T00:00:00Z`),
      details: {
        quantity,
        ledger,
        platform,
        difference: round(platform - ledger, 6),
        tolerance: TOTAL_TOLERANCE[quantity],
        ...(quantity === 'money' && ours.currency ? { currency: ours.currency } : {}),
        ledger_tasks: ours.tasks,
        ...(counted.length > 0 ? { platform_count: counted.reduce((n, t) => n + (t.count ?? 0), 0) } : {}),
      },
    });
  }
  return { differences, skipped };
}
