import fs from 'node:fs';
import type { SFTPWrapper } from 'ssh2';
import { patched } from '../ssh2x';
import type { RateGate } from './rateLimit';
import { RangeCheckpointer, type RangeCheckpoints } from './rangeCheckpoints';
import { SLOW_WRITES_MS, burnForTest, pipeStats, slowWriteDelay } from './pipeStats';
import type { InFlightBudget, RequestSlots } from './requestBudget';

/**
 * Live counters of one channel, written by pipelines and read by the progress sampler.
 * Index 0: bytes transferred, 1: bytes in flight, 2: outstanding requests. Backed by a SharedArrayBuffer
 * so the coordinating thread can sample without a message per packet.
 */
export type ChannelCounters = Float64Array;
export const COUNTER_BYTES = 0;
export const COUNTER_IN_FLIGHT = 1;
export const COUNTER_OUTSTANDING = 2;
export const COUNTERS_PER_CHANNEL = 3;

export interface RangeOptions {
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
  /**
   * Downloads: `end` is where the file ends. One more SSH_FXP_READ at `end`, sent right behind the range's last data
   * READ (no round trip of its own), must answer SSH_FX_EOF, else the range fails with {@link LongerFileError}.
   */
  expectEof?: boolean;
  /** Durable prefixes reported while the range moves (rangeCheckpoints.ts), for a journal. */
  checkpoints?: RangeCheckpoints;
}

/** Runs a download's `move` with its checkpoints, if any; it ends once their local fsyncs did (the fd stays open). */
function withLocalCheckpoints(start: number, o: RangeOptions,
  move: (cp?: RangeCheckpointer) => Promise<number>): Promise<number> {
  if (!o.checkpoints) return move();
  const cp = new RangeCheckpointer(start, o.checkpoints, false);
  return move(cp).then(
    async (n) => { await cp.stop(); return n; },
    async (e: unknown) => { await cp.stop(); throw e; },
  );
}

/** An SFTP error annotated with the request that failed (read by the worker's error mapping). */
export interface TaggedSftpError extends Error {
  sftpOp?: string;
  offset?: number;
}

/** Marks a server's error with the request and file offset it answered; returns it. */
function tagRemote(err: Error, op: 'READ' | 'WRITE', offset: number): TaggedSftpError {
  return Object.assign(err, { sftpOp: op, offset });
}

/** Error raised when the remote file ends before the requested range does. */
export class ShortFileError extends Error {
  constructor(readonly position: number) {
    super(`file ended at byte ${position}, earlier than expected (was it changed during the transfer?)`);
  }
}

/** Error raised when a READ at the expected end of a remote file returns data: the file is longer than said. */
export class LongerFileError extends Error {
  constructor(readonly position: number) {
    super(`the server has data past byte ${position}, the size it gave for the file`);
  }
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
interface LocalOp {
  begin(): void;
  end(): void;
}

export function abortError(): Error {
  const e = new Error('transfer aborted');
  e.name = 'AbortError';
  return e;
}

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
  const begin = () => { running = true; s.local++; pipeStats.localOps++; };
  const end = () => {
    if (!running) return;
    running = false; s.local--; pipeStats.localOps--;
    if (s.aborted) onAbortedEnd();
  };
  return { begin, end };
}

/**
 * Runs a pipelined range copy: keeps up to the channel's K requests outstanding, re-requests short
 * reads, and resolves with the byte count once every byte of [start, end) is done.
 * `issue` performs one request and calls back with the bytes completed (0 means premature EOF); it brackets
 * its local file operation with `local.begin()`/`local.end()` and starts none once `o.signal` is aborted.
 * An abort rejects as soon as no local operation runs: replies still on their way (up to K × chunk bytes,
 * seconds on a slow link) are not waited for; their callbacks still return the channel's slots.
 */
function runPipeline(
  start: number,
  end: number,
  o: RangeOptions,
  issue: (pos: number, len: number, done: (err: Error | null, n: number) => void, local: LocalOp) => void,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const s: PumpState = { next: start, end, retry: [], inflight: 0, local: 0, failed: null, aborted: false, settled: false, waiting: false };
    let bytes = 0;
    const c = o.counters;
    const maxInFlight = o.maxInFlight ?? Infinity;
    const finishIfIdle = () => {
      if (s.settled || (s.aborted ? s.local > 0 : s.inflight > 0)) return;
      if (!s.failed && (s.retry.length > 0 || s.next < s.end)) return;
      s.settled = true;
      o.signal?.removeEventListener('abort', onAbort);
      o.rate?.offReady(pump);
      if (s.failed) reject(s.failed);
      else resolve(bytes);
    };
    const onAbort = () => { s.failed ??= abortError(); s.aborted = true; finishIfIdle(); };
    if (o.signal) {
      if (o.signal.aborted) { reject(abortError()); return; }
      o.signal.addEventListener('abort', onAbort, { once: true });
    }
    const budget = o.budget;
    const pump = (): void => {
      s.waiting = false;
      while (!s.failed && (s.retry.length > 0 || s.next < s.end) && s.inflight < maxInFlight) {
        if (o.rate && !o.rate.ready()) { if (!s.waiting) { s.waiting = true; o.rate.onReady(pump); } return; } // speed limit
        if (!o.slots.tryAcquire()) {
          if (!s.waiting) { s.waiting = true; o.slots.onFree(pump); }
          return;
        }
        const range = takeRange(s, o.chunkSize);
        if (!range) { o.slots.release(); break; }
        const [pos, len] = range;
        if (budget && !budget.tryAcquire(len)) {
          s.retry.push(range);
          o.slots.release();
          if (!s.waiting) { s.waiting = true; budget.onFree(pump); }
          return;
        }
        o.rate?.charge(len);
        s.inflight++;
        if (c) { c[COUNTER_IN_FLIGHT] += len; c[COUNTER_OUTSTANDING]++; }
        const local = localOpOf(s, finishIfIdle);
        issue(pos, len, (err, n) => {
          local.end();
          if (c) { c[COUNTER_IN_FLIGHT] -= len; c[COUNTER_OUTSTANDING]--; }
          if (err) s.failed ??= err;
          else if (n === 0) s.failed ??= new ShortFileError(pos);
          else {
            bytes += n;
            if (c) c[COUNTER_BYTES] += n;
            o.onBytes?.(n);
            if (n < len) s.retry.push([pos + n, len - n]);
          }
          // Account before releasing: release() may run a waiting pump that settles this pipeline.
          s.inflight--;
          budget?.release(len, !err);
          o.slots.release();
          if (s.failed || (s.retry.length === 0 && s.next >= s.end)) finishIfIdle();
          else pump();
        }, local);
      }
      finishIfIdle();
    };
    pump();
  });
}

/** A small free list of chunk buffers, reused instead of allocated per request. */
class BufferPool {
  private readonly free: Buffer[] = [];
  /** @param size bytes per buffer; @param maxFree buffers kept for reuse, beyond which returned ones are dropped */
  constructor(private readonly size: number, private readonly maxFree: number) {}
  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(this.size);
  }
  give(b: Buffer): void {
    if (this.free.length < this.maxFree) this.free.push(b);
  }
}

/**
 * Download buffers shared by every range of this thread, per chunk size. A reply's buffer is taken when its
 * SSH_FXP_DATA arrives and given back once written locally, so a few buffers serve every outstanding request and
 * stay hot in cache: a buffer per request (10 channels × K = 64 × 255 KiB) meant fresh, page-faulting memory for
 * nearly every reply.
 */
const downloadPools = new Map<number, BufferPool>();
/** Free buffers a download pool keeps (4 MiB at 255 KiB): the thread holds them as long as it lives. */
const DOWNLOAD_POOL_FREE = 16;

function downloadPool(chunkSize: number): BufferPool {
  let pool = downloadPools.get(chunkSize);
  if (!pool) downloadPools.set(chunkSize, (pool = new BufferPool(chunkSize, DOWNLOAD_POOL_FREE)));
  return pool;
}


/**
 * Downloads the byte range [start, end) of an open remote file into a local file descriptor at the same
 * offsets, with K outstanding SSH_FXP_READ requests (draft-ietf-secsh-filexfer-02 §6.4) and short reads
 * re-requested. Offsets are JS numbers (exact to 2^53 bytes), so files over 4 GiB work.
 *
 * @param sftp ssh2 SFTP channel
 * @param handle remote handle from SSH_FXP_OPEN
 * @param fd local file descriptor opened for writing
 * @param start first byte (inclusive)
 * @param end last byte (exclusive)
 * @returns bytes written; rejects with the SFTP error, a local fs error, {@link ShortFileError},
 *   {@link LongerFileError} (with `o.expectEof`) or an AbortError
 */
export function downloadRange(sftp: SFTPWrapper, handle: Buffer, fd: number, start: number, end: number,
  o: RangeOptions): Promise<number> {
  const pool = downloadPool(o.chunkSize);
  const take = () => pool.take();
  let eof: Promise<void> | undefined;
  const checkEof = () => {
    if (eof || !o.expectEof) return;
    eof = readsEof(sftp, handle, end, take, pool, o.signal);
    eof.catch(() => undefined); // awaited once the data is in; a failed range does not wait for it
  };
  const data = withLocalCheckpoints(start, o, (cp) => runPipeline(start, end, o, (pos, len, done, local) => {
    sendRead(pos, len, done, local, cp);
    if (pos + len === end) checkEof();
  }));
  if (!o.expectEof) return data;
  return data.then(async (n) => {
    checkEof();
    await eof;
    return n;
  });

  function sendRead(pos: number, len: number, done: (err: Error | null, n: number) => void, local: LocalOp,
    cp: RangeCheckpointer | undefined): void {
    patched(sftp).sluiceReadInto(handle, len, pos, take, (err, n, buf) => {
      pipeStats.readsDone++;
      burnForTest();
      if (err || !n || !buf) { if (buf) pool.give(buf); done(err ? tagRemote(err, 'READ', pos) : null, 0); return; }
      // After an abort the file descriptor may already be closed: late replies are dropped.
      if (o.signal?.aborted) { pool.give(buf); done(abortError(), 0); return; }
      local.begin();
      const write = () => fs.write(fd, buf, 0, n, pos, (werr) => {
        pool.give(buf);
        if (!werr) cp?.done.complete(pos, pos + n);
        done(werr, n);
      });
      if (SLOW_WRITES_MS > 0) setTimeout(write, slowWriteDelay());
      else write();
    });
  }
}

/**
 * One SSH_FXP_READ of a byte at `end`: resolves on SSH_FX_EOF (draft-ietf-secsh-filexfer-02 §6.4), rejects with
 * {@link LongerFileError} when data comes, with the server's error, or with an AbortError on `signal`.
 */
function readsEof(sftp: SFTPWrapper, handle: Buffer, end: number, take: () => Buffer, pool: BufferPool,
  signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) { reject(abortError()); return; }
    const onAbort = () => reject(abortError());
    signal?.addEventListener('abort', onAbort, { once: true });
    patched(sftp).sluiceReadInto(handle, 1, end, take, (err, n, buf) => {
      signal?.removeEventListener('abort', onAbort);
      if (buf) pool.give(buf);
      if (err) reject(tagRemote(err, 'READ', end));
      else if (n > 0) reject(new LongerFileError(end));
      else resolve();
    });
  });
}


/** Sent WRITE packets an upload range keeps for reuse: its requests in flight (UPLOAD_MAX_IN_FLIGHT) and some. */
const SPARE_WRITE_PACKETS = 16;

/**
 * Uploads the byte range [start, end) of a local file to an open remote handle at the same offsets,
 * with K outstanding SSH_FXP_WRITE requests (draft-ietf-secsh-filexfer-02 §6.4). Writes are sent in
 * increasing offset order even though local reads complete in any order; the server may answer in any order.
 *
 * @param fd local file descriptor opened for reading
 * @param handle remote handle opened for writing
 * @returns bytes written; rejects on an SFTP or fs error, a local file shorter than expected, or abort
 */
export function uploadRange(sftp: SFTPWrapper, handle: Buffer, fd: number, start: number, end: number,
  o: RangeOptions): Promise<number> {
  const s = patched(sftp);
  // Packets the server has answered (so ssh2 no longer holds them), reused for this handle's next full-size chunks.
  const spare: Buffer[] = [];
  const packetFor = (len: number): Buffer => (len === o.chunkSize ? spare.pop() : undefined) ?? s.sluiceWriteBuffer(handle, len);
  // Local reads finish in any order (libuv thread pool); writes go out in offset order all the same,
  // since servers that only accept sequential writes exist (rclone: "many SFTP servers only accept
  // sequential writes").
  const reads: Array<{ pos: number; len: number; out: Buffer; n: number; err: Error | null; ready: boolean; done: (err: Error | null, n: number) => void }> = [];
  const cp = o.checkpoints && new RangeCheckpointer(start, o.checkpoints, true);
  const sendReady = () => {
    while (reads.length && reads[0].ready) {
      const r = reads.shift()!;
      if (r.err || !r.n) { r.done(r.err, 0); continue; }
      if (o.signal?.aborted) { r.done(abortError(), 0); continue; }
      let out = r.out;
      if (r.n < r.len) {
        // A short local read (the file shrank): the packet's length fields say len, so the n bytes move to one
        // that says n; the pipeline re-requests the rest, and fails if it reads nothing.
        out = s.sluiceWriteBuffer(handle, r.n);
        r.out.copy(out, out.length - r.n, r.out.length - r.len, r.out.length - r.len + r.n);
      }
      const reusable = out === r.out && r.len === o.chunkSize;
      s.sluiceSendWrite(out, r.pos, (err) => {
        pipeStats.writesDone++;
        burnForTest();
        // The server answers a WRITE only after receiving all of it, so ssh2 has copied every byte into SSH packets
        // (whether it sent the packet at once or queued it behind a full channel window).
        if (!err && reusable && spare.length < SPARE_WRITE_PACKETS) spare.push(out);
        if (!err) cp?.done.complete(r.pos, r.pos + r.n);
        r.done(err ? tagRemote(err, 'WRITE', r.pos) : null, r.n);
      });
      cp?.sent.complete(r.pos, r.pos + r.n);
    }
  };
  const moving = runPipeline(start, end, o, (pos, len, done, local) => {
    let out: Buffer;
    try {
      out = packetFor(len);
    } catch (e) {
      done(e as Error, 0); // a chunk above this channel's limits@openssh.com write length: refused, never split
      return;
    }
    const r = { pos, len, out, n: 0, err: null as Error | null, ready: false, done };
    reads.push(r);
    local.begin();
    fs.read(fd, out, out.length - len, len, pos, (rerr, n) => {
      local.end();
      r.ready = true;
      r.err = rerr;
      r.n = n;
      sendReady();
    });
  });
  // An fsync still on its way is not waited for: its reply only comes after the WRITEs sent before it.
  return cp ? moving.finally(() => { void cp.stop(); }) : moving;
}
