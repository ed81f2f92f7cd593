/**
 * Rolling throughput series for the graph: one sample per engine progress tick, the last `windowMs` kept.
 * Pure and clock-free (times come from the samples), so it is unit-tested under node:test.
 */

import type { Bottleneck } from '../../app/common/stats/bottleneck';

/** One point: time (ms since epoch), total rate and each connection's rate (bytes/s). */
export interface RateSample {
  t: number;
  total: number;
  perConnection: Readonly<Record<string, number>>;
  /** What limits the transfer at this point (app/common/stats/bottleneck.ts), when the engine said. */
  bottleneck?: Bottleneck;
}

/** Columnar data in the shape uPlot takes: `[xs (seconds), total, conn1, conn2, …]`; nulls are gaps. */
export interface SeriesData {
  connectionIds: string[];
  columns: Array<Array<number | null>>;
}

/** Immutable rolling window of rate samples. */
export class RateSeries {
  private constructor(
    readonly samples: readonly RateSample[],
    readonly windowMs: number,
  ) {}

  /** An empty series keeping `windowMs` of history (default 60 s). */
  static empty(windowMs = 60_000): RateSeries {
    return new RateSeries([], windowMs);
  }

  /** Returns a new series with `sample` appended (out-of-order samples are dropped) and old samples trimmed. */
  push(sample: RateSample): RateSeries {
    const last = this.samples[this.samples.length - 1];
    if (last && sample.t < last.t) return this;
    const cutoff = sample.t - this.windowMs;
    let start = 0;
    while (start < this.samples.length && this.samples[start].t < cutoff) start++;
    const kept = this.samples.slice(start);
    if (last && sample.t === last.t) kept[kept.length - 1] = sample;
    else kept.push(sample);
    return new RateSeries(kept, this.windowMs);
  }

  /** The latest total rate (bytes/s), 0 when empty. */
  latestTotal(): number {
    return this.samples[this.samples.length - 1]?.total ?? 0;
  }

  /** Columns for uPlot: x in seconds, then total, then one column per connection id seen in the window (sorted). */
  toData(): SeriesData {
    const ids = new Set<string>();
    for (const s of this.samples) for (const id of Object.keys(s.perConnection)) ids.add(id);
    const connectionIds = [...ids].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    const xs = this.samples.map((s) => s.t / 1000);
    const total = this.samples.map((s) => s.total);
    const per = connectionIds.map((id) => this.samples.map((s) => s.perConnection[id] ?? null));
    return { connectionIds, columns: [xs, total, ...per] };
  }
}
