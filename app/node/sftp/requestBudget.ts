/**
 * What the SFTP pipelines of one connection share: each channel's outstanding-request budget (RequestSlots) and the
 * connection's bytes in flight for uploads (InFlightBudget). Callback-based: both sit on the per-request hot path.
 */

/**
 * Outstanding-request budget of one SFTP channel (K in the docs), shared by every range that runs on it.
 * Callback-based rather than promise-based: it sits on the per-request hot path.
 */
export class RequestSlots {
  private used = 0;
  private readonly waiters: Array<() => void> = [];

  /** @param limit maximum SSH_FXP_READ/WRITE requests awaiting a reply on the channel */
  constructor(readonly limit: number) {}

  /** Takes a slot if one is free. */
  tryAcquire(): boolean {
    if (this.used >= this.limit) return false;
    this.used++;
    return true;
  }

  /**
   * Returns a slot and wakes waiters, oldest first, while slots are free: a waiter whose range has
   * finished in the meantime takes nothing, and the slot must then go to the next one (or a range that
   * still has work would wait forever).
   */
  release(): void {
    this.used--;
    while (this.used < this.limit && this.waiters.length) this.waiters.shift()!();
  }

  /** Calls `fn` once when a slot is released. */
  onFree(fn: () => void): void {
    this.waiters.push(fn);
  }

  /** Requests currently outstanding. */
  get outstanding(): number {
    return this.used;
  }
}

/** Sizing of an {@link InFlightBudget}, in bytes and ms. */
export interface InFlightBudgetOptions {
  /** Limit until the first answers have been measured. */
  initialBytes: number;
  /** The limit never goes below this. */
  minBytes: number;
  /** The limit is the bytes answered in this long at the measured rate: how long a backlog may take to drain. */
  drainMs: number;
  /** How often the rate is measured. */
  periodMs: number;
  now?: () => number;
}

/**
 * Bytes that one connection's uploads may have in flight (SSH_FXP_WRITEs sent or queued in ssh2, not yet answered),
 * sized from the rate at which the server answers them: about `drainMs` of data, so that on a slow link a cancel's
 * cleanup (its SSH_FXP_CLOSE and REMOVE travel behind everything already queued on the connection) and any other
 * request wait about that long, not for the channels' whole windows (10 × 2 MiB is 5 s at 4 MB/s). On a fast link
 * the limit stays far above what the channel windows let through. The limit halves at most per period, so a slow
 * first period does not throttle a fast link, and grows with the rate. A request always goes out when nothing is
 * in flight. Callback-based like {@link RequestSlots}.
 */
export class InFlightBudget {
  private inFlight = 0;
  private limit: number;
  private answered = 0;
  private periodStart: number | undefined;
  private readonly waiters: Array<() => void> = [];
  private readonly now: () => number;

  constructor(private readonly o: InFlightBudgetOptions) {
    this.limit = o.initialBytes;
    this.now = o.now ?? Date.now;
  }

  /** Takes `bytes` if they fit under the limit (or nothing is in flight). */
  tryAcquire(bytes: number): boolean {
    if (this.inFlight > 0 && this.inFlight + bytes > this.limit) return false;
    this.inFlight += bytes;
    return true;
  }

  /** Returns `bytes`; `answered` when the server answered them (an error or an abort measures nothing). */
  release(bytes: number, answered: boolean): void {
    this.inFlight -= bytes;
    if (answered) this.measure(bytes);
    // Each waiter once: one that still does not fit registers again, and must not be called again in this loop.
    for (const w of this.waiters.splice(0)) w();
  }

  /** Calls `fn` once when bytes are released. */
  onFree(fn: () => void): void {
    this.waiters.push(fn);
  }

  /** Bytes in flight now. */
  get bytesInFlight(): number {
    return this.inFlight;
  }

  /** The current limit, in bytes. */
  get limitBytes(): number {
    return this.limit;
  }

  private measure(bytes: number): void {
    const t = this.now();
    // The first answer starts the first period: the time before it is set-up and one round trip, not rate.
    if (this.periodStart === undefined) {
      this.periodStart = t;
      return;
    }
    this.answered += bytes;
    const elapsed = t - this.periodStart;
    if (elapsed < this.o.periodMs) return;
    const byRate = (this.answered / elapsed) * this.o.drainMs;
    this.limit = Math.max(this.o.minBytes, byRate, this.limit / 2);
    this.answered = 0;
    this.periodStart = t;
  }
}
