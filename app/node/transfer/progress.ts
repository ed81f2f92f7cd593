/**
 * Samples the pool's shared channel counters into per-connection and per-channel figures for `progress`
 * events: bytes moved during the job, sliding-window rates, bytes in flight and outstanding requests.
 */
import { ThroughputEstimator } from '../../common/stats/throughput';
import type { WorkerConnection } from '../ssh/connection';
import { COUNTERS_PER_CHANNEL, COUNTER_BYTES, COUNTER_IN_FLIGHT, COUNTER_OUTSTANDING } from '../sftp/pipeline';
import type { ConnectionSample } from './types';

const RATE_WINDOW_MS = 3000;

interface Tracked {
  baseline: Float64Array;
  rate: ThroughputEstimator;
  channelRates: ThroughputEstimator[];
}

export class PoolSampler {
  private readonly tracked = new Map<WorkerConnection, Tracked>();

  /**
   * @param connections the live connections, asked at every sample (connections may join during a job)
   */
  constructor(private readonly connections: () => WorkerConnection[]) {
    for (const c of connections()) this.track(c);
  }

  private track(c: WorkerConnection): Tracked {
    let t = this.tracked.get(c);
    if (!t) {
      t = { baseline: Float64Array.from(c.counters), rate: new ThroughputEstimator(RATE_WINDOW_MS), channelRates: [] };
      this.tracked.set(c, t);
    }
    return t;
  }

  /** One sample per live connection. */
  sample(): ConnectionSample[] {
    return this.connections().map((c) => {
      const t = this.track(c);
      const channels = Array.from({ length: c.channels }, (_, ch) => {
        const o = ch * COUNTERS_PER_CHANNEL;
        const bytes = c.counters[o + COUNTER_BYTES] - t.baseline[o + COUNTER_BYTES];
        const est = (t.channelRates[ch] ??= new ThroughputEstimator(RATE_WINDOW_MS));
        est.record(bytes);
        return {
          bytes,
          rate: est.rate(),
          inFlightBytes: c.counters[o + COUNTER_IN_FLIGHT],
          outstanding: c.counters[o + COUNTER_OUTSTANDING],
        };
      });
      const bytes = channels.reduce((a, ch) => a + ch.bytes, 0);
      t.rate.record(bytes);
      return {
        id: c.id,
        bytes,
        rate: t.rate.rate(),
        inFlightBytes: channels.reduce((a, ch) => a + ch.inFlightBytes, 0),
        outstanding: channels.reduce((a, ch) => a + ch.outstanding, 0),
        channels,
      };
    });
  }
}
