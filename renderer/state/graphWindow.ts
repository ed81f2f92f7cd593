/**
 * Which stretch of time the throughput graph shows (issue #23 item 21): the transfer, not a fixed minute. While bytes
 * move, from the start of the current burst to now (at least MIN_SPAN_S, at most the series' history); once they
 * stopped, the burst itself with a margin, so a 48 MiB upload of half a second fills the width instead of being a
 * one-pixel spike in a 60 s window; after IDLE_AFTER_S without a byte the graph is idle (a one-line empty state).
 * Pure and clock-free (the caller passes now); unit-tested.
 */
import type { RateSample } from './series';

/** The narrowest window, seconds (a sub-second transfer is still drawn as a shape, not a line). */
export const MIN_SPAN_S = 3;
/** Zero-rate time that ends a burst: a pause longer than this starts a new one, seconds. */
export const BURST_GAP_S = 10;
/** Without a moving byte for this long the graph is idle, seconds. */
export const IDLE_AFTER_S = 60;

/**
 * The x range in seconds since the epoch; `idle`: nothing moved lately; `activeShare`: the part of the range the
 * burst's shape takes (from its rise to its last moving sample), 0–1.
 */
export interface GraphWindow {
  from: number;
  to: number;
  idle: boolean;
  activeShare: number;
}

/**
 * @param samples the series' samples (times in ms), oldest first
 * @param nowS the clock, seconds since the epoch
 */
export function graphWindow(samples: readonly RateSample[], nowS: number): GraphWindow {
  let last = -1;
  for (let i = samples.length - 1; i >= 0; i--)
    if (samples[i].total > 0) {
      last = i;
      break;
    }
  if (last < 0 || nowS - samples[last].t / 1000 > IDLE_AFTER_S)
    return { from: nowS - IDLE_AFTER_S, to: nowS, idle: true, activeShare: 0 };
  // The burst's first moving sample: walk back while no zero stretch is longer than BURST_GAP_S.
  let first = last;
  for (let i = last - 1; i >= 0; i--) {
    if (samples[i].total <= 0) continue;
    if ((samples[first].t - samples[i].t) / 1000 > BURST_GAP_S) break;
    first = i;
  }
  const start = samples[first].t / 1000;
  const end = samples[last].t / 1000;
  // The sample before the first moving one is where the rate was still 0: draw the rise from it.
  const rise = first > 0 ? Math.max(samples[first - 1].t / 1000, start - 1) : start - 1;
  const moving = nowS - end < 2;
  const burst = Math.max(end - rise, 0.25);
  const margin = Math.min(5, Math.max(0.5, burst * 0.05));
  let from = rise - margin;
  let to = moving ? Math.max(nowS, end) : end + margin + 1;
  if (to - from < MIN_SPAN_S) {
    const grow = MIN_SPAN_S - (to - from);
    from -= moving ? grow : grow / 2;
    if (!moving) to += grow / 2;
  }
  return { from, to, idle: false, activeShare: Math.min(1, (end - rise) / (to - from)) };
}
