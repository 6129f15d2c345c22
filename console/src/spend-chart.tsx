/** Spend per day (from GET /admin/v1/usage grouped by day): one bar series per currency. */
import { useMemo } from 'preact/hooks';
import { BarChart } from './components/chart';

export interface UsageRow {
  tasks: number;
  succeeded: number;
  failed: number;
  running: number;
  unpriced: number;
  cost: Record<string, number>;
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

/** Bars per group of a usage answer, one series per currency found in it. */
export function SpendChart(props: { usage: UsageAnswer; label: string; testId?: string }) {
  const { labels, series } = useMemo(() => {
    const rows = props.usage.data;
    const currencies = [...new Set(rows.flatMap((r) => Object.keys(r.cost)))].sort();
    return {
      labels: rows.map((r) => groupLabel(r[props.usage.group_by])),
      series: (currencies.length > 0 ? currencies : ['cost']).map((c) => ({ label: c, values: rows.map((r) => r.cost[c] ?? 0) })),
    };
  }, [props.usage]);
  if (labels.length === 0) return <p>No spend in this range yet.</p>;
  return <BarChart label={props.label} labels={labels} series={series} testId={props.testId} />;
}
