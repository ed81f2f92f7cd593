/**
 * The coordinator's side of the bottleneck verdicts (issue #16): once per {@link VERDICT_INTERVAL_MS} it takes the
 * difference of each connection's shared signal slots (written by ssh/worker/signals.ts), turns it into the
 * interval's signals and classifies them (app/common/stats/bottleneck.ts), with a tracker per connection so a verdict
 * does not flicker; the transfer's verdict is the one carrying the most bytes. Between intervals the last verdicts are
 * repeated, so every progress event carries them.
 */
import {
  BottleneckTracker,
  classifyInterval,
  limiterVerdict,
  transferBottleneck,
  type Bottleneck,
  type IntervalSignals,
  type TcpSignals,
} from '../../common/stats/bottleneck';
import type { RateLimitStats } from '../sftp/rateLimit';
import { SIG, SIGNAL_SLOTS } from '../sftp/pipeStats';
import type { WorkerConnection } from '../ssh/connection';
import type { ConnectionSample } from './types';

/** SLUICE_DEBUG_BOTTLENECK=1: each interval's signals on stderr (what a verdict was made of). */
const DEBUG = process.env.SLUICE_DEBUG_BOTTLENECK === '1';

/** Length of one verdict's interval, ms (issue #16: "updated every second"). */
export const VERDICT_INTERVAL_MS = 1000;

interface Tracked {
  prev: Float64Array;
  prevT: number;
  prevBytes: number;
  tracker: BottleneckTracker;
}

/** TCP signals of the interval, or undefined when TCP_INFO reports nothing (sys/tcpInfo.ts). */
function tcpOf(now: Float64Array, prev: Float64Array, intervalMs: number): TcpSignals | undefined {
  if (Number.isNaN(now[SIG.tcpRttUs])) return undefined;
  const rwnd = now[SIG.tcpRwndLimitedUs] - prev[SIG.tcpRwndLimitedUs];
  return {
    rttMs: now[SIG.tcpRttUs] / 1000,
    minRttMs: Number.isNaN(now[SIG.tcpMinRttUs]) ? undefined : now[SIG.tcpMinRttUs] / 1000,
    cwndBytes: now[SIG.tcpCwndBytes],
    retransmits: Number.isNaN(prev[SIG.tcpRetrans]) ? 0 : Math.max(0, now[SIG.tcpRetrans] - prev[SIG.tcpRetrans]),
    rwndLimited: Number.isNaN(rwnd) ? undefined : Math.min(1, rwnd / (intervalMs * 1000)),
  };
}

/**
 * One interval's signals from two readings of a connection's slots.
 * @param now, prev the slots now and at the interval's start; @param intervalMs its length; @param bytes moved in it
 * @returns undefined when the worker's sampler did not tick in between
 */
export function intervalSignals(
  now: Float64Array,
  prev: Float64Array,
  intervalMs: number,
  bytes: number,
): IntervalSignals | undefined {
  const d = (i: number) => now[i] - prev[i];
  const samples = d(SIG.samples);
  if (samples <= 0) return undefined;
  const reads = d(SIG.readsDone);
  const writes = d(SIG.writesDone);
  const active = d(SIG.eluActiveMs);
  const idle = d(SIG.eluIdleMs);
  return {
    intervalMs,
    bytes,
    requestsDone: reads + writes,
    remoteMean: d(SIG.remoteSum) / samples,
    localMean: d(SIG.localSum) / samples,
    requestLimit: now[SIG.requestLimit],
    windowWait: d(SIG.windowWaitTicks) / samples,
    receiveWindowBytes: now[SIG.receiveWindow] || undefined,
    elu: active + idle > 0 ? active / (active + idle) : undefined,
    pingMs: now[SIG.pingMs] || undefined,
    baseRttMs: now[SIG.baseRttMs] || undefined,
    tcp: tcpOf(now, prev, intervalMs),
    direction: reads + writes === 0 ? undefined : reads >= writes ? 'down' : 'up',
  };
}

export class BottleneckSampler {
  private readonly tracked = new Map<WorkerConnection, Tracked>();
  private transfer: Bottleneck = { verdict: 'unknown', detail: 'not measured yet' };
  /** Waits counted by the speed limits at the last interval's end. */
  private limitWaits: number | undefined;

  /**
   * @param connections the live connections, asked at every sample
   * @param now clock, ms (injected by tests)
   * @param limits the speed limits the transfer's requests take from (the session's and the process's), asked once
   *   per interval: one holding the rate makes the transfer's verdict `speed-limit`
   */
  constructor(
    private readonly connections: () => WorkerConnection[],
    private readonly now: () => number = Date.now,
    private readonly limits: () => RateLimitStats[] = () => [],
  ) {}

  /**
   * Adds each connection's verdict to its sample (`bottleneck`) and returns the transfer's.
   * @param samples this progress event's connection samples (PoolSampler), matched by connection id
   */
  sample(samples: ConnectionSample[]): Bottleneck {
    const t = this.now();
    this.limitWaits ??= this.limits().reduce((a, s) => a + s.waits, 0);
    const byId = new Map(samples.map((s) => [s.id, s]));
    let changed = false;
    for (const c of this.connections()) {
      const s = byId.get(c.id);
      if (!s) continue;
      let k = this.tracked.get(c);
      if (!k) {
        k = { prev: Float64Array.from(c.signals), prevT: t, prevBytes: s.bytes, tracker: new BottleneckTracker() };
        this.tracked.set(c, k);
      } else if (t - k.prevT >= VERDICT_INTERVAL_MS) {
        const now = Float64Array.from(c.signals);
        const signals = intervalSignals(now, k.prev, t - k.prevT, s.bytes - k.prevBytes);
        if (signals) k.tracker.update(classifyInterval(signals));
        if (DEBUG)
          process.stderr.write(`sluice: bottleneck signals of connection ${c.id}: ${JSON.stringify(signals)}\n`);
        k.prev = now;
        k.prevT = t;
        k.prevBytes = s.bytes;
        changed = true;
      }
      s.bottleneck = k.tracker.current;
    }
    if (changed) {
      this.transfer =
        this.limiter(samples) ??
        transferBottleneck(
          samples.filter((s) => s.bottleneck).map((s) => ({ bottleneck: s.bottleneck!, rate: s.rate })),
        );
    }
    return this.transfer;
  }

  /** The `speed-limit` verdict when a limit held the rate over the interval just ended. */
  private limiter(samples: ConnectionSample[]): Bottleneck | undefined {
    const stats = this.limits();
    const waits = stats.reduce((a, s) => a + s.waits, 0);
    const before = this.limitWaits ?? waits;
    this.limitWaits = waits;
    const set = stats.map((s) => s.bytesPerSecond).filter((r) => r > 0);
    if (set.length === 0) return undefined;
    return limiterVerdict({
      bytesPerSecond: Math.min(...set),
      waits: waits - before,
      rate: samples.reduce((a, s) => a + s.rate, 0),
    });
  }
}

/** Slots per connection, re-exported for tests that fake a connection's signal memory. */
export { SIGNAL_SLOTS };
