/**
 * The graph's "limited by: …" label: the newest sample's bottleneck verdict (app/common/stats/bottleneck.ts), with its
 * detail as the tooltip; nothing while the verdict is `unknown` (idle, small files, a speed limit).
 */
import { VERDICT_LABELS } from '../../app/common/stats/bottleneck';
import type { RateSeries } from '../state/series';

export function LimitedBy({ series }: { series: RateSeries }) {
  const latest = series.samples[series.samples.length - 1];
  const b = latest?.bottleneck;
  if (!b || b.verdict === 'unknown') return null;
  return (
    <p className="limited-by" data-verdict={b.verdict} title={b.detail}>
      {`limited by: ${VERDICT_LABELS[b.verdict]}`}
    </p>
  );
}
