/**
 * Buffered writes to the range journal (rangeJournal.ts): a transfer records every durable range as it happens,
 * and the recorder writes them in one transaction every {@link DEFAULT_FLUSH_BYTES} of new ranges or
 * {@link DEFAULT_FLUSH_MS} after the first unwritten one, whichever comes first, or on {@link RangeRecorder.flush}.
 * A crash loses at most the unwritten ranges, which are then sent again.
 *
 * Same contract as the journal: record a range only once its bytes are durable on the target (fsync). Call
 * `close()` (or `flush()`) before the process exits: the timer does not keep Node alive.
 */
import type { ByteRange } from './byteRanges';
import { checkRange, coalesce } from './byteRanges';
import type { RangeJournal } from './rangeJournal';
import { nodeTimers, type StoreTimers } from './storeTimers';

/** 64 MiB of new ranges. */
export const DEFAULT_FLUSH_BYTES = 64 * 1024 * 1024;
/** 2 s after the first unwritten range. */
export const DEFAULT_FLUSH_MS = 2000;

/** Options of a {@link RangeRecorder}. */
export interface RecorderOptions {
  /** Flush once this many bytes of ranges are unwritten (default {@link DEFAULT_FLUSH_BYTES}). */
  flushBytes?: number;
  /** Flush this many ms after the first unwritten range (default {@link DEFAULT_FLUSH_MS}). */
  flushMs?: number;
  timers?: StoreTimers;
  /** After each successful write: how many files and bytes it recorded. */
  onFlush?: (info: { files: number; bytes: number }) => void;
  /** A timer-driven flush that failed (the ranges stay pending and are written by the next flush). */
  onError?: (e: unknown) => void;
}

/** Collects ranges in memory and writes them to the journal in batches. Not shared between processes. */
export class RangeRecorder {
  private pending = new Map<number, ByteRange[]>();
  private bytes = 0;
  private timer: unknown;
  private readonly flushBytes: number;
  private readonly flushMs: number;
  private readonly timers: StoreTimers;

  constructor(
    private readonly journal: RangeJournal,
    private readonly opts: RecorderOptions = {},
  ) {
    this.flushBytes = opts.flushBytes ?? DEFAULT_FLUSH_BYTES;
    this.flushMs = opts.flushMs ?? DEFAULT_FLUSH_MS;
    this.timers = opts.timers ?? nodeTimers;
  }

  /** Bytes of ranges recorded but not yet written. */
  get pendingBytes(): number {
    return this.bytes;
  }

  /**
   * Notes `[start, end)` of a file as durably done. Writes synchronously when the unwritten ranges reach
   * `flushBytes` (and then throws what that write throws, keeping the ranges pending).
   * @throws SluiceError INVALID_REQUEST for a malformed range
   */
  record(fileId: number, start: number, end: number): void {
    const r: ByteRange = [start, end];
    checkRange(r);
    if (end === start) return;
    const list = this.pending.get(fileId);
    if (list) list.push(r);
    else this.pending.set(fileId, [r]);
    this.bytes += end - start;
    if (this.bytes >= this.flushBytes) this.flush();
    else if (this.timer === undefined) this.timer = this.timers.setTimeout(() => this.onTimer(), this.flushMs);
  }

  private onTimer(): void {
    this.timer = undefined;
    try {
      this.flush();
    } catch (e) {
      this.opts.onError?.(e);
    }
  }

  /**
   * Writes every pending range in one transaction. On failure the ranges stay pending (and the timer is armed
   * again) and the error is thrown.
   * @throws SluiceError LOCAL_IO / DISK_FULL from the database
   */
  flush(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    const bytes = this.bytes;
    for (const [id, list] of batch) batch.set(id, coalesce(list));
    this.pending = new Map();
    this.bytes = 0;
    try {
      this.journal.recordMany(batch);
    } catch (e) {
      this.restore(batch, bytes);
      throw e;
    }
    this.opts.onFlush?.({ files: batch.size, bytes });
  }

  /**
   * Puts a batch that could not be written back (the write is synchronous: nothing arrived since) and re-arms the
   * timer.
   */
  private restore(batch: Map<number, ByteRange[]>, bytes: number): void {
    this.pending = batch;
    this.bytes = bytes;
    if (this.timer === undefined) this.timer = this.timers.setTimeout(() => this.onTimer(), this.flushMs);
  }

  /** Writes what is pending and stops the timer. @throws like {@link flush} */
  close(): void {
    this.flush();
  }
}
