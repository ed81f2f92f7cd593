/** The timers the queue stores use for flushes and heartbeats, injectable so tests drive them without sleeping. */

/** A one-shot timer: `setTimeout` returns a handle that `clearTimeout` cancels. */
export interface StoreTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd: a pending flush or heartbeat never keeps the process alive. */
export const nodeTimers: StoreTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};
