/** A site's throughput for its graph: the samples of its running batches summed, per connection id. */
import type { ProgressSample } from '../../common/ipc/contract';
import type { Bottleneck } from '../../common/stats/bottleneck';
import type { BatchRun } from './queueRun';

/**
 * Sums the last samples of `siteId`'s runs: the total rate (bytes/s), each connection id's rate, and the bottleneck of
 * the fastest run that has one.
 * @param t the sample's time (ms since the epoch)
 */
export function siteThroughput(runs: Iterable<BatchRun>, siteId: string, t: number): ProgressSample {
  let rate = 0;
  let busiest: { rate: number; bottleneck?: Bottleneck } | undefined;
  const perConnection = new Map<number, number>();
  for (const run of runs) {
    if (!run.sample || run.siteId !== siteId) continue;
    rate += run.sample.rate;
    if (run.sample.bottleneck && (!busiest || run.sample.rate > busiest.rate)) busiest = run.sample;
    for (const c of run.sample.connections) perConnection.set(c.id, (perConnection.get(c.id) ?? 0) + c.rate);
  }
  return {
    siteId,
    t,
    rate,
    connections: [...perConnection].sort((a, b) => a[0] - b[0]).map(([id, r]) => ({ id, rate: r })),
    ...(busiest?.bottleneck ? { bottleneck: busiest.bottleneck } : {}),
  };
}
