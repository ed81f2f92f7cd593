/**
 * Speed limits: token buckets in shared memory, taken from by every connection worker of the process before it
 * issues an SSH_FXP_READ or SSH_FXP_WRITE, without a message per request.
 *
 * A {@link RateBucket} is a token bucket kept as GCRA (the generic cell rate algorithm, ITU-T I.371): one shared
 * time, the theoretical arrival time TAT, on a clock every thread of the process reads alike
 * (`process.hrtime.bigint()`, CLOCK_MONOTONIC). A request of n bytes moves TAT n / rate later; the bucket is empty
 * while TAT is more than the burst (100 ms of the rate) ahead of now. Refill is lazy (time passing), so no
 * coordinator timer runs, and a request larger than the burst still passes: it leaves the bucket in debt, which
 * later requests wait out, so the long-run rate holds whatever the request size. State changes are one
 * compare-and-swap on a BigInt64Array slot.
 *
 * A {@link RateGate} is one thread's door over several buckets (the process-wide one and the site's): a request
 * goes out only when every bucket has tokens, and is charged to all of them. Waiting requests are woken in turn
 * by one timer per gate, at most {@link MAX_WAIT_MS} apart, so a changed limit (or an abort) is seen within that.
 * An unlimited bucket (rate 0) costs one Atomics.load of an Int32 per request.
 */
import { SluiceError } from '../errors';

/** Nanoseconds on a clock that every thread of the process shares. */
export type Clock = () => bigint;

const hrtimeClock: Clock = () => process.hrtime.bigint();

// BigInt64 slots of a bucket's SharedArrayBuffer.
/** Theoretical arrival time, ns on the clock: the bucket is empty while TAT − now > BURST. */
const TAT = 0;
/** Bytes per second; 0 = unlimited. */
const RATE = 1;
/** The bucket's size as time at the rate, ns. */
const BURST = 2;
/** Bytes charged while a limit was set. */
const GRANTED = 3;
/** Requests that found the bucket empty and waited. */
const WAITS = 4;
/** Limit changes (setRate calls). */
const CHANGES = 5;
const BIG_SLOTS = 6;
/** Int32 slot after the BigInt64 ones: 1 while a limit is set (the hot path reads only this). */
const LIMITED = 0;

/** A bucket holds this much time at its rate: 100 ms, so a burst is 1 % of a 10 s window. */
export const RATE_LIMIT_BURST_MS = 100;

/** A waiting request looks again at least this often, ms: how soon a raised or removed limit is seen. */
export const MAX_WAIT_MS = 250;

/** A bucket's counters, for tests, logs and the UI. */
export interface RateLimitStats {
  /** The limit, bytes per second; 0 = unlimited. */
  bytesPerSecond: number;
  /** Bytes charged while a limit was set (an unlimited request is not counted). */
  grantedBytes: number;
  /** Requests that found the bucket empty and waited. */
  waits: number;
  /** Times the limit was set. */
  changes: number;
}

/** What a new bucket starts with. */
export interface RateBucketOptions {
  /** An existing bucket's memory (another thread made it); its limit and burst are kept. */
  buffer?: SharedArrayBuffer;
  /** Initial limit in bytes per second (new buckets only); 0 or absent = unlimited. */
  bytesPerSecond?: number;
  /** The burst as time at the rate, ms (new buckets only). Default {@link RATE_LIMIT_BURST_MS}. */
  burstMs?: number;
  /** Default `process.hrtime.bigint`; tests inject their own (every thread must use the same one). */
  clock?: Clock;
}

/**
 * A speed limit shared across threads: a token bucket in a SharedArrayBuffer (see the module comment). Each thread
 * wraps the same `buffer` in its own RateBucket.
 */
export class RateBucket {
  /** The shared memory: pass it to other threads (workerProtocol ConnectParams.rateLimits). */
  readonly buffer: SharedArrayBuffer;
  private readonly big: BigInt64Array;
  private readonly flags: Int32Array;
  private readonly clock: Clock;

  /** @throws SluiceError USAGE for a negative or non-finite `bytesPerSecond` */
  constructor(o: RateBucketOptions = {}) {
    this.buffer = o.buffer ?? new SharedArrayBuffer(BIG_SLOTS * 8 + 8);
    this.big = new BigInt64Array(this.buffer, 0, BIG_SLOTS);
    this.flags = new Int32Array(this.buffer, BIG_SLOTS * 8, 1);
    this.clock = o.clock ?? hrtimeClock;
    if (o.buffer) return;
    Atomics.store(this.big, BURST, BigInt(Math.round((o.burstMs ?? RATE_LIMIT_BURST_MS) * 1e6)));
    if (o.bytesPerSecond) this.setRate(o.bytesPerSecond);
  }

  /** The limit in bytes per second; 0 = unlimited. */
  get bytesPerSecond(): number {
    return Number(Atomics.load(this.big, RATE));
  }

  /**
   * Sets the limit, taking effect for the next request of every thread (a waiting one within
   * {@link MAX_WAIT_MS}). The tokens left carry over, at most a full bucket at the new rate: a debt is still waited
   * out, in bytes, at the new rate. From unlimited the bucket starts full.
   * @param bytesPerSecond bytes per second (rounded, at least 1); 0 = unlimited
   * @throws SluiceError USAGE for a negative or non-finite value
   */
  setRate(bytesPerSecond: number): void {
    if (!Number.isFinite(bytesPerSecond) || bytesPerSecond < 0) {
      throw new SluiceError(
        'USAGE',
        `a speed limit must be 0 (none) or a positive number of bytes per second, got ${bytesPerSecond}`,
      );
    }
    const rate = bytesPerSecond === 0 ? 0 : Math.max(1, Math.round(bytesPerSecond));
    const old = this.bytesPerSecond;
    const now = this.clock();
    if (rate === 0) {
      Atomics.store(this.flags, LIMITED, 0);
      Atomics.store(this.big, RATE, 0n);
      Atomics.store(this.big, TAT, 0n);
    } else {
      const burstNs = Number(Atomics.load(this.big, BURST));
      let aheadNs = 0;
      if (old > 0) {
        const tokens = Math.min(((burstNs - this.aheadNs(now)) * old) / 1e9, (burstNs * rate) / 1e9);
        aheadNs = Math.max(0, burstNs - (tokens * 1e9) / rate);
      }
      Atomics.store(this.big, TAT, now + BigInt(Math.round(aheadNs)));
      Atomics.store(this.big, RATE, BigInt(rate));
      Atomics.store(this.flags, LIMITED, 1);
    }
    Atomics.add(this.big, CHANGES, 1n);
  }

  /** True while a limit is set (one Int32 load: the unlimited hot path). */
  get limited(): boolean {
    return Atomics.load(this.flags, LIMITED) === 1;
  }

  /** ns until the bucket has tokens again; 0 when it has some now, or is unlimited. */
  waitNs(): number {
    if (!this.limited) return 0;
    return Math.max(0, this.aheadNs(this.clock()) - Number(Atomics.load(this.big, BURST)));
  }

  /**
   * Charges `bytes` to the bucket whether or not it has tokens (callers ask {@link waitNs} first): TAT moves
   * bytes / rate later, from now when it lies in the past. Nothing happens while unlimited.
   */
  charge(bytes: number): void {
    if (!this.limited) return;
    const rate = this.bytesPerSecond;
    if (rate === 0) return;
    const cost = BigInt(Math.ceil((bytes * 1e9) / rate));
    const now = this.clock();
    for (;;) {
      const tat = Atomics.load(this.big, TAT);
      if (Atomics.compareExchange(this.big, TAT, tat, (tat > now ? tat : now) + cost) === tat) break;
    }
    Atomics.add(this.big, GRANTED, BigInt(bytes));
  }

  /** Counts a request that found the bucket empty. */
  countWait(): void {
    Atomics.add(this.big, WAITS, 1n);
  }

  stats(): RateLimitStats {
    return {
      bytesPerSecond: this.bytesPerSecond,
      grantedBytes: Number(Atomics.load(this.big, GRANTED)),
      waits: Number(Atomics.load(this.big, WAITS)),
      changes: Number(Atomics.load(this.big, CHANGES)),
    };
  }

  /** How far TAT lies ahead of `now`, ns (0 when in the past). */
  private aheadNs(now: bigint): number {
    const ahead = Atomics.load(this.big, TAT) - now;
    return ahead > 0n ? Number(ahead) : 0;
  }
}

let processBucket: RateBucket | undefined;

/** The process-wide speed limit every session also takes from (made on first use, in the coordinating thread). */
export function globalRateLimit(): RateBucket {
  processBucket ??= new RateBucket();
  return processBucket;
}

/**
 * Sets the process-wide speed limit, over every session and connection, now and later.
 * @param bytesPerSecond bytes per second; 0 = unlimited
 * @throws SluiceError USAGE for a negative or non-finite value
 */
export function setGlobalRateLimit(bytesPerSecond: number): void {
  globalRateLimit().setRate(bytesPerSecond);
}

/**
 * One thread's door to its speed limits: {@link ready} before a request, {@link charge} when it goes out, or
 * {@link take} for a single request. Callback-based like the pipeline's RequestSlots (it sits on the per-request
 * hot path); {@link onReady} waiters are woken oldest first, one at a time while tokens last, so ranges take turns.
 */
export class RateGate {
  private readonly waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  /** @param buckets every bucket a request takes from (the process's and the site's) */
  constructor(private readonly buckets: RateBucket[]) {}

  /** True when every bucket has tokens (or no limit is set). */
  ready(): boolean {
    for (const b of this.buckets) if (b.waitNs() > 0) return false;
    return true;
  }

  /** Charges a request of `bytes` to every bucket. */
  charge(bytes: number): void {
    for (const b of this.buckets) b.charge(bytes);
  }

  /** Calls `fn` once when the buckets may have tokens again (once, however often registered before then). */
  onReady(fn: () => void): void {
    if (this.waiters.has(fn)) return;
    for (const b of this.buckets) if (b.waitNs() > 0) b.countWait();
    this.waiters.add(fn);
    this.schedule();
  }

  /** Forgets `fn` (a range that ended, aborted or not, while registered). */
  offReady(fn: () => void): void {
    this.waiters.delete(fn);
    if (this.waiters.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Waits until every bucket has tokens, then charges `bytes`: for a request sent outside the pipeline.
   * @throws SluiceError ABORTED when `signal` aborts first
   */
  take(bytes: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new SluiceError('ABORTED', 'transfer aborted'));
    if (this.ready()) {
      this.charge(bytes);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.offReady(attempt);
        reject(new SluiceError('ABORTED', 'transfer aborted'));
      };
      const attempt = () => {
        if (!this.ready()) {
          this.onReady(attempt);
          return;
        }
        signal?.removeEventListener('abort', onAbort);
        this.charge(bytes);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.onReady(attempt);
    });
  }

  /** Waiters not yet woken (for tests). */
  get waiting(): number {
    return this.waiters.size;
  }

  private schedule(): void {
    if (this.timer || this.waiters.size === 0) return;
    const waitNs = Math.max(0, ...this.buckets.map((b) => b.waitNs()));
    this.timer = setTimeout(() => this.wake(), Math.min(MAX_WAIT_MS, Math.max(1, Math.ceil(waitNs / 1e6))));
  }

  private wake(): void {
    this.timer = undefined;
    for (const fn of this.waiters) {
      if (!this.ready()) break;
      this.waiters.delete(fn);
      fn();
    }
    this.schedule();
  }
}
