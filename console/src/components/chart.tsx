/**
 * A bar chart of values per day or per group, drawn by uPlot (one series per currency). uPlot draws on a canvas, so
 * the figures are also in the table next to every chart, and the chart has a text label for screen readers.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

const COLOURS = ['#1f6feb', '#d9480f', '#2f9e44', '#7048e8'];

export function BarChart(props: { label: string; labels: string[]; series: ChartSeries[]; testId?: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || props.labels.length === 0) return;
    const xs = props.labels.map((_, i) => i);
    const bars = uPlot.paths.bars!({ size: [0.6, 60] });
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: 240,
        legend: { show: true },
        cursor: { show: true },
        scales: { x: { time: false, range: [-0.5, xs.length - 0.5] } },
        axes: [{ values: (_u, ticks) => ticks.map((t) => props.labels[t] ?? '') }, { size: 70 }],
        series: [
          { label: 'group' },
          ...props.series.map((s, i) => ({
            label: s.label,
            stroke: COLOURS[i % COLOURS.length],
            fill: `${COLOURS[i % COLOURS.length]}99`,
            paths: bars,
            points: { show: false },
          })),
        ],
      },
      [xs, ...props.series.map((s) => s.values)],
      el,
    );
    return () => plot.destroy();
  }, [props.labels, props.series]);
  // What the bars show, in words too: the groups and each series' total (screen readers; the browser tests read it).
  const totals = props.series.map((s) => `${s.label} ${s.values.reduce<number>((a, v) => a + (v ?? 0), 0).toFixed(6)}`).join(', ');
  return (
    <div
      ref={box}
      role="img"
      aria-label={`${props.label}: ${props.labels.join(', ')}; totals ${totals}`}
      data-testid={props.testId}
      data-groups={props.labels.join(',')}
      data-totals={totals}
      class="chart"
    />
  );
}
