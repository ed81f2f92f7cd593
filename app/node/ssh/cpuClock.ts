/**
 * The CPU time of the calling thread, for figures per core (issue #15's cipher benchmark): Linux's
 * `/proc/thread-self/schedstat` (nanoseconds on CPU, proc(5); the kernel brings it up to date at scheduler ticks and
 * switches, so it is exact only over runs of many ticks), else Node's `process.threadCpuUsage()` (Node 23.9+),
 * else the whole process's `process.cpuUsage()` (said as `process`: other threads' work is counted too).
 */
import fs from 'node:fs';

/** A CPU clock in seconds. */
export interface CpuClock {
  /** `thread`: this thread's own time; `process`: every thread of the process. */
  readonly kind: 'thread' | 'process';
  /** CPU seconds so far. */
  now(): number;
  /** Releases the clock (closes its file). */
  close(): void;
}

/** The schedstat clock; the file is opened by (and so describes) the calling thread. Undefined where it is missing. */
function schedstatClock(): CpuClock | undefined {
  let fd: number;
  try {
    fd = fs.openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return undefined;
  }
  const buf = Buffer.alloc(128);
  const now = (): number => {
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return Number(buf.toString('latin1', 0, n).split(' ')[0]) / 1e9;
  };
  try {
    if (!Number.isFinite(now())) throw new Error('unreadable');
  } catch {
    fs.closeSync(fd);
    return undefined;
  }
  return { kind: 'thread', now, close: () => fs.closeSync(fd) };
}

/**
 * The best CPU clock for the calling thread (call it in the thread that does the work).
 * @returns a clock whose `kind` says whether it counts this thread only
 */
export function threadCpuClock(): CpuClock {
  const sched = schedstatClock();
  if (sched) return sched;
  const p = process as unknown as { threadCpuUsage?: () => { user: number; system: number } };
  if (typeof p.threadCpuUsage === 'function') {
    const read = p.threadCpuUsage.bind(process);
    return {
      kind: 'thread',
      now: () => {
        const u = read();
        return (u.user + u.system) / 1e6;
      },
      close: () => undefined,
    };
  }
  return {
    kind: 'process',
    now: () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    },
    close: () => undefined,
  };
}
