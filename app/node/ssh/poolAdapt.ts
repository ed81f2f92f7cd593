/**
 * The adaptive pool's decisions (issue #28 item 6), pure: while a long transfer runs on an auto-sized pool, the number
 * of lanes (SFTP channels over all connections) climbs a hill. Fed the transfer's bytes and its bottleneck verdict
 * (transfer/bottleneckSampler.ts) every progress sample, it proposes a step only where more lanes can help — the
 * server answers slowly, a window or the requests in flight per round trip hold the rate — and never more channels
 * while the link is full (there it tries one more connection: a cap per TCP connection, as a shaper per flow, is
 * lifted by another, a shared cap is not and the step is undone); it sheds lanes when this computer's CPU is the
 * limit. Each step is judged by the rate measured over the same length before and after it (after a hold while the
 * new lanes ramp up): a step that did not pay is undone, and the lane count it was undone to is not passed again for
 * {@link ADAPT_TUNE}.retryAfterMs, or until the rate moves by driftShare (a bandwidth cap that changes: a raised cap
 * does not show in the rate of too few lanes, hence the retry). Steps per transfer are bounded. ssh/poolGrowth.ts
 * carries the decisions out on the pool.
 */
import type { Bottleneck } from '../../common/stats/bottleneck';

/**
 * Timing and bounds (ms, shares). `startAfterMs`: a transfer younger than this is left alone (a 1-byte get, a 128 MiB
 * file at 50 ms, are done before). `minRemainingMs`: no step when the rest would be done in less at the current rate
 * (a step costs holdMs + measureMs to judge). `minGain`: a step adding lanes is kept only when the rate rose by this
 * share; `maxLoss`: a step shedding lanes is undone when the rate fell by more (0: any loss). `growFactor`: each
 * growing step multiplies the lanes (1, 2, 4, 8…: the first steps matter most on a long transfer), `fastFactor` after a
 * step whose rate grew at least `linearShare` of the lanes' growth (the rate scales with lanes: climb faster).
 * `maxSteps`: steps per transfer, undoing ones included. `retryAfterMs`: an undone step's lanes (or a kept shed's) may
 * be passed again after this long.
 */
export const ADAPT_TUNE = {
  startAfterMs: 1000,
  minRemainingMs: 2000,
  holdMs: 300,
  measureMs: 750,
  minGain: 0.1,
  maxLoss: 0,
  growFactor: 2,
  fastFactor: 4,
  linearShare: 0.8,
  maxSteps: 12,
  maxLanes: 40,
  driftShare: 0.3,
  retryAfterMs: 8000,
};

export type AdaptTune = typeof ADAPT_TUNE;

/** One progress sample of the transfer. */
export interface AdaptReading {
  /** Clock, ms. */
  t: number;
  /** Payload bytes moved by the transfer so far. */
  bytes: number;
  /** The transfer's verdict now. */
  bottleneck: Bottleneck;
  /** Bytes still to move; undefined while a folder is still being scanned (the end is not known). */
  remainingBytes?: number;
}

/** A step: go from `from` lanes to `to` (`keep`: a trial's lanes stay, nothing to do). `why` is for `-v`. */
export interface AdaptDecision {
  kind: 'grow' | 'shed' | 'undo' | 'keep';
  from: number;
  to: number;
  why: string;
  /** Grow by opening a connection (the link is full: more channels on the same one cannot help). */
  via?: 'connection';
}

interface Trial {
  kind: 'grow' | 'shed';
  from: number;
  to: number;
  rateBefore: number;
  at: number;
}

/** Readings kept for rates: 64 samples of 250 ms, far more than holdMs + measureMs. */
const MAX_POINTS = 64;

const mbps = (r: number) => `${(r / 1e6).toFixed(1)} MB/s`;
const lanesText = (n: number) => `${n} ${n === 1 ? 'lane' : 'lanes'}`;

/**
 * Whether more lanes can raise the rate: the server is slow to answer (more channels = more requests served at
 * once), a window holds one round trip of data, or every request slot is in flight for a round trip (the link is
 * RTT-bound, not full: app/common/stats/bottleneck.ts remoteVerdict). A full link, the CPU, the disk or a speed
 * limit are not helped by lanes.
 */
export function moreLanesHelp(b: Bottleneck): boolean {
  if (b.verdict === 'server' || b.verdict === 'window') return true;
  return b.verdict === 'link' && b.detail.startsWith('RTT-bound');
}

export class PoolAdapter {
  private readonly points: Array<{ t: number; bytes: number }> = [];
  private start: number | undefined;
  private steps = 0;
  private trial: Trial | undefined;
  /** Lanes a growing step from here did not pay beyond; undefined while unknown. */
  private ceiling: number | undefined;
  /** Lanes a shedding step from here lost rate below; never under the plan's (the transfer's first) lanes. */
  private floor: number;
  /** The rate when the ceiling or floor was found, and when: a drift from it, or retryAfterMs, clears both. */
  private settledRate: number | undefined;
  private settledAt = 0;
  /** When the lanes last changed (a baseline must be measured after it). */
  private changedAt = -Infinity;
  /** The last step kept raised the rate in proportion to the lanes. */
  private scaled = false;

  /**
   * @param lanes the lanes the transfer starts with
   * @param maxLanes the most lanes the pool could reach (connections × the session limit), lowered by {@link limit}
   * @param perConnection lanes one more connection adds; 0: no connection may be added
   * @param base the pool's planned lanes: CPU sheds only what was added (the plan suits this machine)
   */

  constructor(
    public lanes: number,
    private maxLanes: number = ADAPT_TUNE.maxLanes,
    private readonly perConnection = 0,
    private readonly base = lanes,
    private readonly tune: AdaptTune = ADAPT_TUNE,
  ) {
    this.floor = Math.min(base, lanes);
  }

  /** Steps taken so far (at most tune.maxSteps). */
  get stepsTaken(): number {
    return this.steps;
  }

  /** Feeds one sample; returns the step to take now, if any. */
  observe(r: AdaptReading): AdaptDecision | undefined {
    this.record(r);
    return this.trial ? this.judge(r.t) : this.propose(r);
  }

  /** Keeps a sample for the rates without deciding (the pool is still carrying out a step). */
  record(r: AdaptReading): void {
    this.start ??= r.t;
    this.points.push({ t: r.t, bytes: r.bytes });
    if (this.points.length > MAX_POINTS) this.points.shift();
  }

  /**
   * The pool could not go where a step asked: it holds `lanes` now (a refused channel open, no more connections).
   * A growing step that gained no lane is dropped (no trial) and the lanes become the most there can be.
   * @param at the samples' clock when the pool got there (the trial's hold starts then)
   */
  applied(lanes: number, at?: number): void {
    const t = this.trial;
    if (t && t.kind === 'grow' && lanes <= t.from) {
      this.trial = undefined;
      this.maxLanes = Math.min(this.maxLanes, t.from);
    } else if (t) {
      t.to = lanes;
      // The hold counts from when the lanes were up (channels and connections take round trips to open).
      if (at !== undefined) t.at = Math.max(t.at, at);
    }
    this.lanes = lanes;
  }

  /** The pool can hold at most `lanes` lanes (the server's session limit is known, connections are at their most). */
  limit(lanes: number): void {
    this.maxLanes = Math.min(this.maxLanes, Math.max(1, lanes));
  }

  /** Bytes per second over [from, to], from the samples nearest inside; undefined with fewer than two. */
  rateOver(from: number, to: number): number | undefined {
    const inside = this.points.filter((p) => p.t >= from && p.t <= to);
    if (inside.length < 2) return undefined;
    const a = inside[0];
    const b = inside[inside.length - 1];
    return b.t > a.t ? ((b.bytes - a.bytes) * 1000) / (b.t - a.t) : undefined;
  }

  private propose(r: AdaptReading): AdaptDecision | undefined {
    const { tune } = this;
    if (this.steps >= tune.maxSteps || r.t - this.start! < tune.startAfterMs) return undefined;
    if (r.t - this.changedAt < tune.holdMs + tune.measureMs) return undefined;
    const rate = this.rateOver(r.t - tune.measureMs, r.t);
    if (rate === undefined || rate <= 0) return undefined;
    if (r.remainingBytes !== undefined && (r.remainingBytes / rate) * 1000 < tune.minRemainingMs) return undefined;
    this.noticeDrift(rate, r.t);
    const b = r.bottleneck;
    if (b.verdict === 'client-cpu' && this.lanes > this.floor) {
      // Half of what was added above the plan: a machine loaded by others also reads as a busy worker thread.
      const to = Math.max(this.floor, this.lanes - Math.ceil((this.lanes - this.floor) / 2));
      return this.begin('shed', to, rate, r.t, `limited by this computer's CPU (${b.detail})`);
    }
    const top = Math.min(this.maxLanes, this.ceiling ?? Infinity);
    const full = b.verdict === 'link' && !moreLanesHelp(b);
    if (full && this.perConnection > 0 && this.lanes + this.perConnection <= top) {
      const d = this.begin('grow', this.lanes + this.perConnection, rate, r.t, `the link is full (${b.detail})`);
      return { ...d, via: 'connection', why: `${d.why} with one more connection` };
    }
    if (moreLanesHelp(b) && this.lanes < top) {
      const factor = this.scaled ? tune.fastFactor : tune.growFactor;
      const to = Math.min(top, Math.max(this.lanes + 1, Math.round(this.lanes * factor)));
      return this.begin(
        'grow',
        to,
        rate,
        r.t,
        `limited by the ${b.verdict === 'link' ? 'round trip' : b.verdict} (${b.detail})`,
      );
    }
    return undefined;
  }

  private begin(kind: Trial['kind'], to: number, rate: number, t: number, why: string): AdaptDecision {
    const from = this.lanes;
    this.steps++;
    this.trial = { kind, from, to, rateBefore: rate, at: t };
    this.lanes = to;
    this.changedAt = t;
    return { kind, from, to, why: `${why} at ${mbps(rate)}: ${lanesText(from)} → ${to}` };
  }

  /** A trial held and measured: kept, or undone (and the lanes it returns to remembered as the ceiling or floor). */
  private judge(t: number): AdaptDecision | undefined {
    const trial = this.trial!;
    const { tune } = this;
    if (t - trial.at < tune.holdMs + tune.measureMs) return undefined;
    const after = this.rateOver(t - tune.measureMs, t);
    if (after === undefined) return undefined;
    this.trial = undefined;
    const gain = after / trial.rateBefore - 1;
    const rates = `${lanesText(trial.to)} ${mbps(after)} against ${mbps(trial.rateBefore)} with ${trial.from} (${gain >= 0 ? '+' : ''}${Math.round(gain * 100)} %)`;
    const paid = trial.kind === 'grow' ? gain >= tune.minGain : gain >= -tune.maxLoss;
    this.scaled = paid && trial.kind === 'grow' && gain >= tune.linearShare * (trial.to / trial.from - 1);
    // A shed that cost nothing: growing back past it waits like an undone step.
    if (paid && trial.kind === 'shed') this.settle(trial.to, after, t);
    if (paid) return { kind: 'keep', from: trial.from, to: trial.to, why: `${rates}: kept` };
    if (trial.kind === 'grow') this.settle(trial.from, trial.rateBefore, t);
    else this.floor = trial.from;
    this.settledRate = trial.rateBefore;
    this.settledAt = t;
    this.lanes = trial.from;
    this.changedAt = t;
    this.steps++;
    return { kind: 'undo', from: trial.to, to: trial.from, why: `${rates}: back to ${trial.from}` };
  }

  private settle(ceiling: number, rate: number, t: number): void {
    this.ceiling = ceiling;
    this.settledRate = rate;
    this.settledAt = t;
  }

  /** The rate moved far from where a ceiling or floor was found, or it is old: both are forgotten. */
  private noticeDrift(rate: number, t: number): void {
    if (this.settledRate === undefined) return;
    const moved = Math.abs(rate / this.settledRate - 1) >= this.tune.driftShare;
    if (!moved && t - this.settledAt < this.tune.retryAfterMs) return;
    this.ceiling = undefined;
    this.floor = Math.min(this.base, this.lanes);
    this.settledRate = undefined;
  }
}
