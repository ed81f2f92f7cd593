/**
 * How a download's SSH_FXP_DATA reaches the local file: written on the connection's own thread (`pwrite` straight
 * from the reply's bytes, as OpenSSH's single-threaded sftp does) while such writes are quick, else handed to libuv's
 * file threads. On loopback the hand-off cost more CPU than the write: a copy of every reply into a pool buffer, a
 * thread woken per 255 KiB, its completion signalled back, the data read from the other core's cache (`npm run bench
 * -- --perf`, docs/benchmarks.md). A disk that makes a write wait (dirty-page throttling, a network share) would hold
 * the whole connection's event loop, so one write slower than {@link SLOW_LOCAL_WRITE_MS} sends this thread's writes
 * to the file threads for {@link OFF_THREAD_FOR_MS}, after which writing in place is tried again.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { SLOW_WRITES_MS, pipeStats } from './pipeStats';

/**
 * A write taking longer than this, ms, moves this thread's writes to the file threads. Wall time: well above what a
 * thread preempted on a busy machine loses (at load 16 on 2 cores 20 ms was crossed within seconds), within the
 * pauses of dirty-page throttling (up to 200 ms).
 */
export const SLOW_LOCAL_WRITE_MS = 100;
/** How long writes stay on the file threads after a slow one, ms. */
export const OFF_THREAD_FOR_MS = 10_000;

/** performance.now() until which writes go to the file threads (0: in place). */
let offThreadUntil = 0;

/**
 * Whether the next reply is to be written in place ({@link writeInPlace}); false while the test hook
 * SLUICE_TEST_SLOW_WRITES_MS simulates a slow disk (its delays need the asynchronous path) and for
 * {@link OFF_THREAD_FOR_MS} after a slow write.
 */
export function writesInPlace(): boolean {
  if (SLOW_WRITES_MS > 0) return false;
  if (offThreadUntil === 0) return true;
  if (performance.now() < offThreadUntil) return false;
  offThreadUntil = 0;
  return true;
}

/**
 * Writes `n` bytes of `buf` at file offset `pos` of `fd` now, on this thread (pwrite(2) until all are written).
 * The time it takes is added to `pipeStats.localBlockedMs` (the bottleneck sampler counts it as local I/O, not CPU).
 * @returns the error of the write (an fs error with its `code`, e.g. ENOSPC), or null
 */
export function writeInPlace(fd: number, buf: Buffer, n: number, pos: number): Error | null {
  const t0 = performance.now();
  try {
    for (let done = 0; done < n;) {
      const wrote = fs.writeSync(fd, buf, done, n - done, pos + done);
      if (wrote <= 0) return new Error(`write of ${n - done} bytes at ${pos + done} wrote nothing`);
      done += wrote;
    }
    return null;
  } catch (e) {
    return e as Error;
  } finally {
    const ms = performance.now() - t0;
    pipeStats.localBlockedMs += ms;
    if (ms > SLOW_LOCAL_WRITE_MS) offThreadUntil = performance.now() + OFF_THREAD_FOR_MS;
  }
}

/** Test hook: writes go in place again at once (the slow-write state is this thread's, shared by its tests). */
export function resetLocalWritesForTest(): void {
  offThreadUntil = 0;
}
