/** Spend per group (from GET /admin/v1/usage): one bar series per currency; per day, every day of the range. */
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
  seconds: number;
  images: number;
  tokens: number;
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

/** What each grouping is called on the page (the API's names, such as served_model, are not words). */
export const GROUP_NAMES: Record<string, string> = {
  key: 'Key',
  model: 'Model',
  route: 'Route',
  served_model: 'Served model',
  platform: 'Platform',
  day: 'Day (UTC)',
};

/** Every day from `start` to `end` (YYYY-MM-DD, both included). */
export function daysOf(start: string, end: string): string[] {
  const days: string[] = [];
  const last = Date.parse(`${end}T00:00:00Z`);
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= last && days.length <= 3660; t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/** Bars per group of a usage answer, one series per currency found in it; a day without spend is a zero bar. */
export function SpendChart(props: { usage: UsageAnswer; label: string; testId?: string }) {
  const { labels, series } = useMemo(() => {
    const u = props.usage;
    const rows = u.data;
    // Unpriced tasks are never drawn as money: only priced cost makes a bar (a day without any is a zero bar).
    const currencies = [...new Set(rows.flatMap((r) => Object.keys(r.cost ?? {})))].sort();
    const perDay = u.group_by === 'day';
    const labels = perDay ? daysOf(u.start, u.end) : rows.map((r) => groupLabel(r[u.group_by]));
    const rowOf = new Map(rows.map((r) => [groupLabel(r[u.group_by]), r]));
    return {
      labels,
      series: (currencies.length > 0 ? currencies : ['cost']).map((c) => ({
        label: currencies.length > 0 ? `Cost in ${c}` : 'Cost',
        values: labels.map((l) => rowOf.get(l)?.cost?.[c] ?? 0),
      })),
    };
  }, [props.usage]);
  const unpriced = props.usage.data.reduce((n, r) => n + r.unpriced, 0);
  const priced = props.usage.data.some((r) => r.cost !== null);
  if (labels.length === 0 || (!priced && unpriced > 0))
    return <p>{unpriced > 0 ? `No priced spend in this range; ${unpricedText(unpriced)}.` : 'No spend in this range yet.'}</p>;
  return (
    <BarChart
      label={props.label}
      labels={labels}
      series={series}
      xLabel={GROUP_NAMES[props.usage.group_by] ?? props.usage.group_by}
      yLabel="Cost"
      testId={props.testId}
    />
  );
}
