/**
 * What the request pipelines of this thread did, for the bottleneck verdicts (app/common/stats/bottleneck.ts): local
 * file operations running and requests answered, kept as plain counters on the hot path (one increment each) and
 * sampled by the worker's signal sampler (ssh/worker/signals.ts) into the shared signal slots below. One worker
 * thread is one SSH connection, so these are per connection.
 *
 * Also the test-only hooks that make a cause real in tests: SLUICE_TEST_BURN_MS (CPU burned per answered request,
 * in the worker: the `client-cpu` verdict) and SLUICE_TEST_SLOW_WRITES_MS (each local write of a download starts this
 * much later: the `local-disk` verdict). Both are read once, when the module loads; unset, they cost a compare.
 */

/** This thread's pipeline counters. */
export const pipeStats = {
  /** Local reads or writes of requests running now. */
  localOps: 0,
  /** SSH_FXP_READs answered (download data), ever. */
  readsDone: 0,
  /** SSH_FXP_WRITEs answered, ever. */
  writesDone: 0,
};

/**
 * Slots of a connection's shared signal memory (Float64, {@link SIGNAL_SLOTS} of them), written by the worker's
 * sampler and read by the coordinator's bottleneck sampler (transfer/bottleneckSampler.ts). Sums and counts are
 * cumulative; the reader takes differences between its samples.
 */
export const SIG = {
  /** Time sampled, in sampler ticks (each sample weighs the time since the previous one). */
  samples: 0,
  /** Sum over samples (weighted) of requests awaiting the server. */
  remoteSum: 1,
  /** Sum over samples (weighted) of requests in their local read/write. */
  localSum: 2,
  /** Weighted samples at which some channel's data waited for the peer's window. */
  windowWaitTicks: 3,
  readsDone: 4,
  writesDone: 5,
  /** Event loop active / idle time, ms (perf_hooks eventLoopUtilization, cumulative). */
  eluActiveMs: 6,
  eluIdleMs: 7,
  /** Latest keepalive round trip, ms (an unanswered one counts its age); 0 before the first. */
  pingMs: 8,
  /** RTT measured at connect, ms; 0 when unknown. */
  baseRttMs: 9,
  /** Request slots (K × channels). */
  requestLimit: 10,
  /** The channels' receive windows, bytes (what the server may send before our WINDOW_ADJUST). */
  receiveWindow: 11,
  /** TCP_INFO (sys/tcpInfo.ts); NaN when the platform reports nothing. */
  tcpRttUs: 12,
  tcpMinRttUs: 13,
  tcpCwndBytes: 14,
  tcpRetrans: 15,
  tcpRwndLimitedUs: 16,
  tcpBusyUs: 17,
} as const;
export const SIGNAL_SLOTS = 18;

const BURN_MS = Number(process.env.SLUICE_TEST_BURN_MS) || 0;
/** Test hook: a local disk that writes one download chunk per this many ms (0 = off). */
export const SLOW_WRITES_MS = Number(process.env.SLUICE_TEST_SLOW_WRITES_MS) || 0;
let slowDiskFree = 0;

/**
 * Test hook: how long the next local write of a download waits, ms: writes queue one behind the other, each
 * SLOW_WRITES_MS after the previous (a disk writing one chunk at a time, not N writes at once after N ms).
 */
export function slowWriteDelay(): number {
  const now = Date.now();
  slowDiskFree = Math.max(now, slowDiskFree) + SLOW_WRITES_MS;
  return slowDiskFree - now;
}

/** Test hook: burns SLUICE_TEST_BURN_MS of CPU in this thread (called per answered request); nothing when unset. */
export function burnForTest(): void {
  if (BURN_MS <= 0) return;
  const end = performance.now() + BURN_MS;
  while (performance.now() < end) {
    /* burning CPU is the point */
  }
}
