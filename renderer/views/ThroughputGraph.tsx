/**
 * Live throughput graph (uPlot): the total rate and one series per connection over the last 60 s.
 * The plot is rebuilt only when the set of connections changes; otherwise `setData` updates it in place.
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { VERDICT_LABELS } from '../../app/common/stats/bottleneck';
import { formatRate } from '../format/format';
import type { RateSeries } from '../state/series';

/** Axis label: `-45 s` style, relative to the newest tick (the graph is a sliding 60 s window). */
function secondsAgo(t: number, newest: number): string {
  const d = Math.round(t - newest);
  return d >= 0 ? 'now' : `${d} s`;
}

const PALETTE = ['#1f6feb', '#2e7d32', '#b26a00', '#8e24aa', '#00838f', '#c2185b', '#5d4037', '#546e7a'];

/** Props: the rolling series to draw. */
export interface ThroughputGraphProps {
  series: RateSeries;
}

/** The graph panel, labelled for assistive tech with the current total rate. */
export function ThroughputGraph({ series }: ThroughputGraphProps) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = useRef('');
  const data = series.toData();
  const total = series.latestTotal();
  const points = series.samples.length;
  // The window slides with the clock (1 s steps), not with the last sample, so an idle link reads as idle.
  const [now, setNow] = useState(() => Date.now() / 1000);
  const nowRef = useRef(now);
  nowRef.current = now;
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const key = data.connectionIds.join(',');
    const size = { width: Math.max(200, el.clientWidth), height: Math.max(80, el.clientHeight) };
    if (!plot.current || shape.current !== key) {
      plot.current?.destroy();
      const opts: uPlot.Options = {
        ...size,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, range: () => [nowRef.current - 60, nowRef.current] }, y: { range: (_u, _min, max) => [0, Math.max(1024, max * 1.1)] } },
        axes: [
          { stroke: 'currentColor', font: '11px system-ui, sans-serif', grid: { stroke: 'rgba(128,128,128,0.2)' }, incrs: [5, 10, 15, 30, 60], values: (_u, ticks) => ticks.map((t) => secondsAgo(t, nowRef.current)) },
          { stroke: 'currentColor', size: 84, font: '11px system-ui, sans-serif', grid: { stroke: 'rgba(128,128,128,0.2)' }, values: (_u, ticks) => ticks.map((v) => formatRate(v)) },
        ],
        series: [
          {},
          { label: 'Total', stroke: PALETTE[0], width: 2, fill: 'rgba(31,111,235,0.10)', value: (_u, v) => (v == null ? '—' : formatRate(v)) },
          ...data.connectionIds.map((id, i) => ({
            label: `Connection ${id}`,
            stroke: PALETTE[(i + 1) % PALETTE.length],
            width: 1,
            dash: [4, 3],
            value: (_u: uPlot, v: number | null) => (v == null ? '—' : formatRate(v)),
          })),
        ],
      };
      plot.current = new uPlot(opts, data.columns as uPlot.AlignedData, el);
      shape.current = key;
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

  const latest = series.samples[series.samples.length - 1];
  return (
    <section className="graph" aria-label="Throughput">
      <h2>Throughput</h2>
      {latest?.bottleneck && latest.bottleneck.verdict !== 'unknown' && (
        <p className="limited-by" data-verdict={latest.bottleneck.verdict} title={latest.bottleneck.detail}>
          {`limited by: ${VERDICT_LABELS[latest.bottleneck.verdict]}`}
        </p>
      )}
      <div
        className="plot"
        ref={host}
        role="img"
        aria-label={`Throughput graph, last 60 seconds, total ${formatRate(total)}`}
        data-points={points}
        data-connections={data.connectionIds.length}
      />
      <ul className="legend" aria-label="Series">
        <li>
          <span className="swatch" style={{ background: PALETTE[0] }} /> Total {formatRate(total)}
        </li>
        {data.connectionIds.map((id, i) => (
          <li key={id}>
            <span className="swatch dashed" style={{ borderColor: PALETTE[(i + 1) % PALETTE.length] }} /> #{id} {formatRate(latest?.perConnection[id] ?? 0)}
          </li>
        ))}
      </ul>
    </section>
  );
}
