/**
 * Windowed throughput estimator over cumulative (time, bytes) samples.
 *
 * Rate = bytes moved inside the window / window span, never "speed of the last chunk".
 * The clock is injected so that tests and replays are deterministic.
 */
export class ThroughputEstimator {
  private readonly samples: Array<{ t: number; bytes: number }> = [];

  /**
   * @param windowMs width of the sliding window in milliseconds (default 3000 ms)
   * @param now clock returning milliseconds; defaults to `Date.now`
   */
  constructor(
    private readonly windowMs = 3000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Records the cumulative byte count at the current clock time. */
  record(totalBytes: number): void {
    const t = this.now();
    this.samples.push({ t, bytes: totalBytes });
    const cutoff = t - this.windowMs;
    // Keep one sample at or before the cutoff so the window is always fully spanned.
    while (this.samples.length > 2 && this.samples[1].t <= cutoff) this.samples.shift();
  }

  /** Bytes per second over the window, 0 with fewer than two samples. */
  rate(): number {
    if (this.samples.length < 2) return 0;
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    const span = last.t - first.t;
    return span > 0 ? ((last.bytes - first.bytes) * 1000) / span : 0;
  }
}
