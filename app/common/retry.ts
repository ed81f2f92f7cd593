/**
 * When and how soon a failed transfer is tried again (issue #14), as pure decisions: which error codes are transient
 * (the link or the server went away for a while: worth another try) and which are permanent (the same try would fail
 * the same way), and the wait before each new try — exponential backoff with decorrelated jitter, bounded by a most
 * tries, a longest single wait and a longest sum of waits. The randomness is injected; the waiting itself (timers,
 * Ctrl-C) is the caller's: app/node/cli/retry.ts, and the app's reconnect in app/node/service/reconnect.ts.
 */
import { isInterruption } from './errors';

/** How often and how long to retry. */
export interface RetryPolicy {
  /** Tries in all, the first one included (≥ 1; 1 = never retry). */
  tries: number;
  /** Shortest wait before a new try, and the first wait's scale, ms. */
  baseDelayMs: number;
  /** Longest single wait, ms. */
  maxDelayMs: number;
  /** Longest sum of all the waits of one run, ms (a later wait is shortened to fit; none is left: no more tries). */
  totalDelayMs: number;
}

/**
 * The CLI's default: 5 tries, waits from 2 s growing about ×2 per try (decorrelated jitter), at most 60 s each and
 * 120 s in all — a worst case of 6 + 18 + 54 + 42 s between the five tries, about 40 s on average.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  tries: 5,
  baseDelayMs: 2000,
  maxDelayMs: 60_000,
  totalDelayMs: 120_000,
};

/**
 * The app's reconnect (a site's session lost every connection): the lost session counts as the first try, then up to 5
 * attempts, waits from 1 s growing about ×2 (decorrelated jitter), at most 30 s each and 2 minutes in all.
 */
export const RECONNECT_POLICY: Readonly<RetryPolicy> = {
  tries: 6,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  totalDelayMs: 120_000,
};

/**
 * True for a failure another try may cure: the connection was lost, reset, refused (a server restarting) or stalled,
 * or a request timed out. Everything else is permanent — authentication, host keys, permission denied, no such file,
 * a full disk (local DISK_FULL, or the server's SSH_FX_FAILURE/no space as REMOTE_FAILURE), usage, verification — and
 * so is ABORTED (the user's interrupt): an interruption (see {@link isInterruption}) but not one to retry.
 */
export function isTransient(code: string): boolean {
  return isInterruption(code) && code !== 'ABORTED';
}

/**
 * The wait before the next try, decorrelated jitter ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015):
 * uniform between the base delay and three times the previous wait, at most `maxDelayMs`. It never drops below the
 * base, and grows by about ×2 per try on average.
 * @param previousMs the wait before the try that just failed; undefined after the first try
 * @param random uniform in [0, 1) (Math.random, or a fixed sequence in tests)
 * @returns ms, a whole number
 */
export function nextDelayMs(
  previousMs: number | undefined,
  p: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number,
): number {
  const high = Math.max(p.baseDelayMs, 3 * (previousMs ?? p.baseDelayMs));
  return Math.round(Math.min(p.maxDelayMs, p.baseDelayMs + random() * (high - p.baseDelayMs)));
}

/** What follows a failed try: another after `delayMs`, or none and why. */
export type RetryDecision =
  | { retry: true; /** The number of the next try (2 for the first retry). */ attempt: number; delayMs: number }
  | { retry: false; why: 'permanent' | 'tries' | 'time' };

/**
 * A run's retries: counts its tries and the time it waited, and decides after each failure. Not reusable across runs.
 */
export class RetrySchedule {
  private tried = 1;
  private previousMs: number | undefined;
  private waitedMs = 0;

  /** @param random uniform in [0, 1); default Math.random */
  constructor(
    readonly policy: Readonly<RetryPolicy>,
    private readonly random: () => number = Math.random,
  ) {
    if (!Number.isInteger(policy.tries) || policy.tries < 1)
      throw new RangeError(`tries must be a whole number ≥ 1, got ${policy.tries}`);
  }

  /** Tries made so far (the first one counts from the start). */
  get attempts(): number {
    return this.tried;
  }

  /**
   * Decides after the current try failed with `code`; a retry counts as the next try from here on.
   * @returns a retry with its wait (ms), or why none follows: a permanent code, no tries left, or no wait time left
   */
  next(code: string): RetryDecision {
    if (!isTransient(code)) return { retry: false, why: 'permanent' };
    if (this.tried >= this.policy.tries) return { retry: false, why: 'tries' };
    const left = this.policy.totalDelayMs - this.waitedMs;
    if (left <= 0) return { retry: false, why: 'time' };
    const delayMs = Math.min(left, nextDelayMs(this.previousMs, this.policy, this.random));
    this.previousMs = delayMs;
    this.waitedMs += delayMs;
    this.tried++;
    return { retry: true, attempt: this.tried, delayMs };
  }
}
