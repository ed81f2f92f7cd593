/**
 * Live throughput graph (uPlot): the total rate and one solid 2 px series per SSH connection over the transfer's time
 * (state/graphWindow.ts: the current or last burst, not a fixed minute; idle: a one-line empty state instead), with
 * a legend of the current rates (state/speeds.ts: the queue's numbers) in the series' colours (state/series.ts).
 * A connection's series appears with its first sample and goes when the pool says it is down. The plot is rebuilt
 * only when the set of connections changes; otherwise `setData` updates it in place. `annotation` is a slot under the
 * title for one more label (e.g. what limits the transfer). The header's button folds the panel (the layout keeps it).
 */
import { useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatRate } from '../format/format';
import { rateTicks, rateTop } from '../state/rateTicks';
import { connectionStyle, TOTAL_STYLE, type RateSeries, type SeriesData } from '../state/series';
import { graphWindow } from '../state/graphWindow';
import type { SiteSpeed } from '../state/speeds';

/** Axis label: `-45 s` style, relative to now. */
function secondsAgo(t: number, newest: number): string {
  const d = Math.round(t - newest);
  return d >= 0 ? 'now' : `${d} s`;
}

/** Props: the rolling series to draw, the current speeds for the legend, the live connections, an extra label. */
export interface ThroughputGraphProps {
  series: RateSeries;
  speed: SiteSpeed;
  /** The pool's connections up now (numbers as text); a connection not in it has no series. Undefined: all sampled. */
  live?: ReadonlySet<string>;
  annotation?: ReactNode;
  /** Folded to its header (the layout's graphCollapsed), and the header button's action. */
  collapsed?: boolean;
  onToggle?: () => void;
}

const rateValue = (_u: uPlot, v: number | null) => (v == null ? '—' : formatRate(v));

/** The rate axis' labels (state/rateTicks.ts: round values), also kept on the plot's element for tests. */
function yLabels(u: uPlot, ticks: number[]): string[] {
  const labels = ticks.map((v) => formatRate(v));
  const host = u.root.closest<HTMLElement>('[role="img"]');
  if (host) host.dataset.yTicks = labels.join(', ');
  return labels;
}

function plotOptions(
  data: SeriesData,
  size: { width: number; height: number },
  now: () => number,
  range: () => [number, number],
): uPlot.Options {
  const axisFont = '11px system-ui, sans-serif';
  const grid = { stroke: 'rgba(128,128,128,0.2)' };
  return {
    ...size,
    legend: { show: false },
    cursor: { show: false },
    scales: { x: { time: false, range }, y: { range: (_u, _min, max) => [0, rateTop(Math.max(1000, max))] } },
    axes: [
      {
        stroke: 'currentColor',
        font: axisFont,
        grid,
        incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300],
        values: (_u, ticks) => ticks.map((t) => secondsAgo(t, now())),
      },
      {
        stroke: 'currentColor',
        size: 84,
        font: axisFont,
        grid,
        splits: (u) => rateTicks(u.scales.y.max ?? 1000),
        values: yLabels,
      },
    ],
    series: [
      {},
      { label: 'Total', ...TOTAL_STYLE, value: rateValue },
      ...data.connectionIds.map((id, i) => ({
        label: `Connection ${id}`,
        ...connectionStyle(i),
        points: { show: false },
        value: rateValue,
      })),
    ],
  };
}

/**
 * Draws `data` into `host` with uPlot: the plot is rebuilt when the set of connections changes, else updated in place
 * with `setData`; it follows the element's size and is destroyed with it.
 */
function usePlot(
  host: RefObject<HTMLDivElement | null>,
  data: SeriesData,
  nowRef: RefObject<number>,
  rangeRef: RefObject<[number, number]>,
) {
  const plot = useRef<uPlot | null>(null);
  const shape = useRef('');
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const key = data.connectionIds.join(',');
    if (!plot.current || shape.current !== key) {
      plot.current?.destroy();
      const size = { width: Math.max(200, el.clientWidth), height: Math.max(80, el.clientHeight) };
      const options = plotOptions(
        data,
        size,
        () => nowRef.current,
        () => rangeRef.current,
      );
      plot.current = new uPlot(options, data.columns as uPlot.AlignedData, el);
      shape.current = key;
      // What uPlot was given to draw (the total and each connection), for tests and assistive tech alike.
      (el.parentElement ?? el).dataset.plotted = String(plot.current.series.length - 1);
    } else {
      plot.current.setData(data.columns as uPlot.AlignedData, true);
    }
  });

  useEffect(() => {
    const el = host.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      plot.current?.setSize({ width: Math.max(200, el.clientWidth), height: Math.max(80, el.clientHeight) });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);
}

/** The legend: the total and each connection's current rate, in their series' colours. */
function GraphLegend({ speed, connectionIds }: { speed: SiteSpeed; connectionIds: readonly string[] }) {
  return (
    <ul className="legend" aria-label="Series">
      <li aria-label={`Total ${formatRate(speed.total)}`}>
        <span className="swatch" style={{ background: TOTAL_STYLE.stroke }} /> Total {formatRate(speed.total)}
      </li>
      {connectionIds.map((id, i) => (
        <li key={id} aria-label={`Connection ${id} ${formatRate(speed.perConnection[id] ?? 0)}`} data-connection={id}>
          <span className="swatch" style={{ background: connectionStyle(i).stroke }} /> Connection {id}{' '}
          {formatRate(speed.perConnection[id] ?? 0)}
        </li>
      ))}
    </ul>
  );
}

/** The graph panel, labelled for assistive tech with the current total rate. */
export function ThroughputGraph({
  series,
  speed,
  live,
  annotation,
  collapsed = false,
  onToggle,
}: ThroughputGraphProps) {
  const host = useRef<HTMLDivElement>(null);
  const data = series.toData(live);
  const points = series.samples.length;
  // The window slides with the clock (1 s steps), not with the last sample, so an idle link reads as idle.
  const [now, setNow] = useState(() => Date.now() / 1000);
  // The right edge: the clock, or the newest sample when it is ahead of the last tick (points right of the x range
  // would not count for the y range, and a fresh transfer would draw off the top).
  const xs = data.columns[0];
  const nowRef = useRef(now);
  nowRef.current = Math.max(now, (xs[xs.length - 1] as number | undefined) ?? 0);
  const win = graphWindow(series.samples, nowRef.current);
  const rangeRef = useRef<[number, number]>([win.from, win.to]);
  rangeRef.current = [win.from, win.to];
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => clearInterval(timer);
  }, []);

  usePlot(host, data, nowRef, rangeRef);

  return (
    <section className={`graph${win.idle ? ' idle' : ''}${collapsed ? ' collapsed' : ''}`} aria-label="Throughput">
      <h2>
        Throughput
        {onToggle && (
          <button
            type="button"
            className="fold"
            aria-expanded={!collapsed}
            aria-label={collapsed ? 'Show the throughput graph' : 'Hide the throughput graph'}
            onClick={onToggle}
          >
            {collapsed ? '▸' : '▾'}
          </button>
        )}
      </h2>
      {annotation}
      <div
        className="plot"
        role="img"
        aria-label={`Throughput graph, ${win.idle ? 'idle' : `last ${Math.round(win.to - win.from)} seconds`}, total ${formatRate(speed.total)}`}
        data-points={points}
        data-connections={data.connectionIds.length}
        data-window-seconds={Math.round((win.to - win.from) * 10) / 10}
        data-active-share={Math.round(win.activeShare * 100) / 100}
      >
        <div className="plot-canvas" ref={host} />
        {win.idle && <span className="idle-text">No transfer in the last minute</span>}
      </div>
      <GraphLegend speed={speed} connectionIds={data.connectionIds} />
    </section>
  );
}
