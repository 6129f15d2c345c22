/** Spend per day (from GET /admin/v1/usage grouped by day): one bar series per currency. */
import { useMemo } from 'preact/hooks';
import { BarChart } from './components/chart';
import { money } from './format';

export interface UsageRow {
  tasks: number;
  succeeded: number;
  failed: number;
  running: number;
  /** Tasks without a price: never money, so not in `cost`. */
  unpriced: number;
  /** The priced tasks' cost per currency; null when no task of the group has a price. */
  cost: Record<string, number> | null;
  [group: string]: unknown;
}

export interface UsageAnswer {
  group_by: string;
  start: string;
  end: string;
  data: UsageRow[];
}

/** A group's value as shown: null is the group of tasks without one (no route; not served yet). */
export const groupLabel = (value: unknown): string => (value === null || value === undefined ? '(none)' : String(value));

/** "N tasks unpriced": how the console says tasks have no price, instead of showing them as money. */
export const unpricedText = (n: number): string => `${n} ${n === 1 ? 'task' : 'tasks'} unpriced`;

/** A usage row's cost: its priced currencies, plus "N tasks unpriced" (never a 0 for tasks without a price). */
export function rowCost(row: Pick<UsageRow, 'cost' | 'unpriced'>): string {
  const parts = Object.entries(row.cost ?? {}).map(([c, a]) => money(a, c));
  if (row.unpriced > 0) parts.push(unpricedText(row.unpriced));
  return parts.length === 0 ? '—' : parts.join(' + ');
}

/** Bars per group of a usage answer, one series per currency found in it. */
export function SpendChart(props: { usage: UsageAnswer; label: string; testId?: string }) {
  const { labels, series } = useMemo(() => {
    const rows = props.usage.data;
    // Only groups with a priced task are drawn: a bar at 0 for unpriced tasks would read as money they did not cost.
    const priced = rows.filter((r) => r.cost !== null);
    const currencies = [...new Set(priced.flatMap((r) => Object.keys(r.cost ?? {})))].sort();
    return {
      labels: priced.map((r) => groupLabel(r[props.usage.group_by])),
      series: currencies.map((c) => ({ label: c, values: priced.map((r) => r.cost?.[c] ?? 0) })),
    };
  }, [props.usage]);
  const unpriced = props.usage.data.reduce((n, r) => n + r.unpriced, 0);
  if (labels.length === 0)
    return <p>{unpriced > 0 ? `No priced spend in this range; ${unpricedText(unpriced)}.` : 'No spend in this range yet.'}</p>;
  return <BarChart label={props.label} labels={labels} series={series} testId={props.testId} />;
}
