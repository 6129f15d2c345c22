/**
 * A bar chart of values per day or per group, drawn by uPlot (one series per currency). uPlot draws on a canvas, so
 * the figures are also in the table next to every chart, and the chart has a text label for screen readers.
 *
 * Both axes are labelled (what the groups are; what the bars measure), every group gets a tick (thinned to every
 * n-th label only when they would not fit side by side), and the series are named in a legend of the page's own
 * (uPlot's legend shows a cursor readout, "--" until the pointer is over the chart).
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

/** The series' colours; styles.css gives the legend's swatches (.swatch-0…3) the same. */
const COLOURS = ['#1f6feb', '#d9480f', '#2f9e44', '#7048e8'];
/** The room one tick label takes on the x axis, in CSS pixels. */
const TICK_LABEL_PX = 78;

export function BarChart(props: {
  label: string;
  labels: string[];
  series: ChartSeries[];
  xLabel: string;
  yLabel: string;
  testId?: string | undefined;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || props.labels.length === 0) return;
    const xs = props.labels.map((_, i) => i);
    const width = Math.max(320, el.clientWidth);
    const every = Math.max(1, Math.ceil((xs.length * TICK_LABEL_PX) / width));
    const bars = uPlot.paths.bars!({ size: [0.6, 60] });
    const plot = new uPlot(
      {
        width,
        height: 260,
        legend: { show: false },
        cursor: { show: true },
        scales: { x: { time: false, range: [-0.5, xs.length - 0.5] } },
        axes: [
          {
            label: props.xLabel,
            splits: () => xs.filter((i) => i % every === 0),
            values: (_u, ticks) => ticks.map((t) => props.labels[t] ?? ''),
          },
          { label: props.yLabel, size: 70 },
        ],
        series: [
          { label: props.xLabel },
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
  }, [props.labels, props.series, props.xLabel, props.yLabel]);
  // What the bars show, in words too: the groups and each series' total (screen readers; the browser tests read it).
  const totals = props.series.map((s) => `${s.label} ${s.values.reduce<number>((a, v) => a + (v ?? 0), 0).toFixed(6)}`).join(', ');
  return (
    <figure class="chart-figure">
      <div
        ref={box}
        role="img"
        aria-label={`${props.label}: ${props.labels.join(', ')}; totals ${totals}`}
        data-testid={props.testId}
        data-groups={props.labels.join(',')}
        data-totals={totals}
        data-x-label={props.xLabel}
        data-y-label={props.yLabel}
        class="chart"
      />
      <figcaption>
        <ul class="legend" aria-label="Series">
          {props.series.map((s, i) => (
            <li key={s.label}>
              <span class={`swatch swatch-${i % COLOURS.length}`} aria-hidden="true" />
              {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
