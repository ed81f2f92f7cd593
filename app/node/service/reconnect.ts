/**
 * Re-establishing a site's session that lost every connection: attempts with exponential backoff and decorrelated
 * jitter (app/common/retry.ts RetrySchedule over RECONNECT_POLICY), bounded tries and total wait. Each attempt opens a
 * fresh engine (the caller's `open`: known_hosts read again, the host key checked again, the login done again). A
 * permanent failure (authentication, a changed host key) ends the attempts at once.
 */
import { RetrySchedule, type RetryPolicy } from '../../common/retry';
import { SluiceError, type ErrorCode } from '../errors';
import type { Engine } from '../engine/engine';
import { errorInfo } from './results';

/** What one reconnect needs. */
export interface ReconnectPlan {
  policy: Readonly<RetryPolicy>;
  /** Opens the session again (one attempt). */
  open(): Promise<Engine>;
  /**
   * Before each attempt's wait: its number (1 = the first after the loss), the wait (ms), and why the last try failed.
   */
  onAttempt(attempt: number, delayMs: number, last: { code: string; message: string }): void;
  /** Stops the attempts (the user disconnects, the service closes): the reconnect rejects with ABORTED. */
  signal: AbortSignal;
  /** Uniform in [0, 1); default Math.random. */
  random?: () => number;
}

/** Waits `ms`, or rejects with ABORTED when `signal` fires first. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer);
      reject(new SluiceError('ABORTED', 'reconnect stopped'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Opens the session again after it was lost with `lost`, waiting before each attempt as the policy says.
 * @returns the new engine
 * @throws SluiceError the last failure when the attempts run out or one fails permanently (its code: AUTH_FAILED,
 *   HOSTKEY_*, …); ABORTED when `signal` stops it (an engine opened meanwhile is closed)
 */
export async function reconnect(plan: ReconnectPlan, lost: { code: string; message: string }): Promise<Engine> {
  const schedule = new RetrySchedule(plan.policy, plan.random);
  let last = lost;
  // Bounded: the schedule refuses a retry after the policy's tries or total wait.
  for (;;) {
    const next = schedule.next(last.code);
    if (!next.retry) throw new SluiceError(last.code as ErrorCode, last.message);
    plan.onAttempt(next.attempt - 1, next.delayMs, last);
    await wait(next.delayMs, plan.signal);
    try {
      const engine = await plan.open();
      if (!plan.signal.aborted) return engine;
      await engine.close().catch(() => undefined);
      throw new SluiceError('ABORTED', 'reconnect stopped');
    } catch (e) {
      if (plan.signal.aborted) throw new SluiceError('ABORTED', 'reconnect stopped');
      last = errorInfo(e);
    }
  }
}
