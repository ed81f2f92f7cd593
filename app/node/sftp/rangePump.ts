/**
 * The request loop under every byte range (pipeline.ts): keeps a channel's outstanding requests full within its slots,
 * the connection's byte budget and the speed limits, re-requests short reads, and settles once the range is done,
 * failed or aborted.
 */
import type { RateGate } from './rateLimit';
import { COUNTER_BYTES, COUNTER_IN_FLIGHT, COUNTER_OUTSTANDING, type ChannelCounters } from './channelCounters';
import { pipeStats } from './pipeStats';
import type { InFlightBudget, RequestSlots } from './requestBudget';

/** What the request loop of one range needs (pipeline.ts RangeOptions adds the download's and upload's own). */
export interface PumpOptions {
  /** Bytes per SSH_FXP_READ/WRITE; must not exceed the server's limits@openssh.com max read/write length. */
  chunkSize: number;
  /** The channel's outstanding-request budget. */
  slots: RequestSlots;
  /** Channel counters to update (optional). */
  counters?: ChannelCounters;
  /** Called with each completed chunk's byte count. */
  onBytes?: (n: number) => void;
  /** Stops the range: it rejects with an AbortError once the local reads or writes already started have ended. */
  signal?: AbortSignal;
  /** At most this many of the channel's requests for this range at once (default: as many as the slots allow). */
  maxInFlight?: number;
  /** Bytes in flight shared with the connection's other ranges (uploads), if any. */
  budget?: InFlightBudget;
  /** Speed limits (rateLimit.ts): a request goes out only while they have tokens, and is charged its bytes. */
  rate?: RateGate;
}

/** Error raised when the remote file ends before the requested range does. */
export class ShortFileError extends Error {
  constructor(readonly position: number) {
    super(`file ended at byte ${position}, earlier than expected (was it changed during the transfer?)`);
  }
}

export function abortError(): Error {
  const e = new Error('transfer aborted');
  e.name = 'AbortError';
  return e;
}

interface PumpState {
  next: number;
  readonly end: number;
  readonly retry: Array<[number, number]>;
  inflight: number;
  /** Local file reads or writes running (their buffers and file descriptor are in use). */
  local: number;
  failed: Error | null;
  aborted: boolean;
  settled: boolean;
  waiting: boolean;
}

/** Brackets one request's local file operation, so an abort waits for it but not for the server. */
export interface LocalOp {
  begin(): void;
  end(): void;
}

/** Performs one request of `len` bytes at `pos`; calls `done` with the bytes completed (0: premature EOF). */
export type IssueRequest = (
  pos: number,
  len: number,
  done: (err: Error | null, n: number) => void,
  local: LocalOp,
) => void;

/** Takes the next range to request: a short-read remainder first, then fresh bytes. */
function takeRange(s: PumpState, chunk: number): [number, number] | null {
  const r = s.retry.pop();
  if (r) return r;
  if (s.next >= s.end) return null;
  const len = Math.min(chunk, s.end - s.next);
  const pos = s.next;
  s.next += len;
  return [pos, len];
}

/** Brackets one request's local file operation (s.local, pipeStats); `onAbortedEnd` runs if it ends after an abort. */
function localOpOf(s: PumpState, onAbortedEnd: () => void): LocalOp {
  let running = false;
  const begin = () => {
    running = true;
    s.local++;
    pipeStats.localOps++;
  };
  const end = () => {
    if (!running) return;
    running = false;
    s.local--;
    pipeStats.localOps--;
    if (s.aborted) onAbortedEnd();
  };
  return { begin, end };
}

/** One range's request loop; runPipeline creates it and settles its promise through `resolve`/`reject`. */
class RangePump {
  private readonly s: PumpState;
  private bytes = 0;
  private readonly maxInFlight: number;

  constructor(
    start: number,
    end: number,
    private readonly o: PumpOptions,
    private readonly issue: IssueRequest,
    private readonly resolve: (bytes: number) => void,
    private readonly reject: (err: Error) => void,
  ) {
    this.s = {
      next: start,
      end,
      retry: [],
      inflight: 0,
      local: 0,
      failed: null,
      aborted: false,
      settled: false,
      waiting: false,
    };
    this.maxInFlight = o.maxInFlight ?? Infinity;
  }

  /** Settles once nothing is left to wait for: no request in flight, or after an abort no local operation running. */
  readonly finishIfIdle = (): void => {
    const s = this.s;
    if (s.settled || (s.aborted ? s.local > 0 : s.inflight > 0)) return;
    if (!s.failed && (s.retry.length > 0 || s.next < s.end)) return;
    s.settled = true;
    this.o.signal?.removeEventListener('abort', this.onAbort);
    this.o.rate?.offReady(this.pump);
    if (s.failed) this.reject(s.failed);
    else this.resolve(this.bytes);
  };

  readonly onAbort = (): void => {
    this.s.failed ??= abortError();
    this.s.aborted = true;
    this.finishIfIdle();
  };

  /** Sends requests until the range is all requested, it failed, or a limit makes it wait (then `pump` runs again). */
  readonly pump = (): void => {
    const s = this.s;
    s.waiting = false;
    while (!s.failed && (s.retry.length > 0 || s.next < s.end) && s.inflight < this.maxInFlight) {
      const sent = this.sendOne();
      if (sent === 'wait') return;
      if (sent === 'none') break;
    }
    this.finishIfIdle();
  };

  /** Calls `subscribe(pump)` unless the pump already waits for a limit. */
  private waitOn(subscribe: (ready: () => void) => void): 'wait' {
    if (!this.s.waiting) {
      this.s.waiting = true;
      subscribe(this.pump);
    }
    return 'wait';
  }

  /** Sends one request if the speed limit, a channel slot and the byte budget allow it. */
  private sendOne(): 'sent' | 'wait' | 'none' {
    const { s, o } = this;
    const { rate, budget } = o;
    if (rate && !rate.ready()) return this.waitOn((ready) => rate.onReady(ready)); // speed limit
    if (!o.slots.tryAcquire()) return this.waitOn((ready) => o.slots.onFree(ready));
    const range = takeRange(s, o.chunkSize);
    if (!range) {
      o.slots.release();
      return 'none';
    }
    const [pos, len] = range;
    if (budget && !budget.tryAcquire(len)) {
      s.retry.push(range);
      o.slots.release();
      return this.waitOn((ready) => budget.onFree(ready));
    }
    rate?.charge(len);
    s.inflight++;
    const c = o.counters;
    if (c) {
      c[COUNTER_IN_FLIGHT] += len;
      c[COUNTER_OUTSTANDING]++;
    }
    const local = localOpOf(s, this.finishIfIdle);
    this.issue(pos, len, (err, n) => this.onReply(pos, len, local, err, n), local);
    return 'sent';
  }

  /** Counts one request's outcome, frees its slot and budget, then settles or sends more. */
  private onReply(pos: number, len: number, local: LocalOp, err: Error | null, n: number): void {
    const { s, o } = this;
    const c = o.counters;
    local.end();
    if (c) {
      c[COUNTER_IN_FLIGHT] -= len;
      c[COUNTER_OUTSTANDING]--;
    }
    if (err) s.failed ??= err;
    else if (n === 0) s.failed ??= new ShortFileError(pos);
    else {
      this.bytes += n;
      if (c) c[COUNTER_BYTES] += n;
      o.onBytes?.(n);
      if (n < len) s.retry.push([pos + n, len - n]);
    }
    // Account before releasing: release() may run a waiting pump that settles this pipeline.
    s.inflight--;
    o.budget?.release(len, !err);
    o.slots.release();
    if (s.failed || (s.retry.length === 0 && s.next >= s.end)) this.finishIfIdle();
    else this.pump();
  }
}

/**
 * Runs a pipelined range copy: keeps up to the channel's K requests outstanding, re-requests short
 * reads, and resolves with the byte count once every byte of [start, end) is done.
 * `issue` performs one request and calls back with the bytes completed (0 means premature EOF); it brackets
 * its local file operation with `local.begin()`/`local.end()` and starts none once `o.signal` is aborted.
 * An abort rejects as soon as no local operation runs: replies still on their way (up to K × chunk bytes,
 * seconds on a slow link) are not waited for; their callbacks still return the channel's slots.
 * @returns the bytes moved; rejects with `issue`'s first error, {@link ShortFileError} or an AbortError
 */
export function runPipeline(start: number, end: number, o: PumpOptions, issue: IssueRequest): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    if (o.signal?.aborted) {
      reject(abortError());
      return;
    }
    const pump = new RangePump(start, end, o, issue, resolve, reject);
    o.signal?.addEventListener('abort', pump.onAbort, { once: true });
    pump.pump();
  });
}
