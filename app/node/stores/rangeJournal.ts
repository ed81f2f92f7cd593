/**
 * The range journal (issue #14): per file of a job, the byte ranges durably done, kept coalesced in `file_ranges`
 * (sorted, disjoint, never adjacent), so that a resumed transfer sends only {@link RangeJournal.missingRanges}.
 *
 * Contract: a caller records a range only once its bytes are durable on the target — a download's local file
 * fsynced, an upload's remote file fsynced (`fsync@openssh.com`) or, on a server without it, at least closed — so
 * the journal never says more than the target holds. It may say less (ranges not yet flushed by the recorder,
 * rangeRecorder.ts, or lost with a power cut under `synchronous = NORMAL`): those bytes are sent again, which is
 * harmless.
 */
import { checkRange, coalesce, gaps, type ByteRange } from './byteRanges';

/** A row of file_ranges. */
interface RangeRow {
  start: number;
  end: number;
}
import type { QueueDb } from './queueDb';

/** The durable byte ranges of job files. Synchronous; one instance per open {@link QueueDb}. */
export class RangeJournal {
  constructor(private readonly q: QueueDb) {}

  /**
   * Records ranges of one file as done, merged with what is stored, in one transaction.
   * @throws SluiceError INVALID_REQUEST for a malformed range; LOCAL_IO / DISK_FULL from the database
   */
  record(fileId: number, ranges: readonly ByteRange[]): void {
    this.recordMany([[fileId, ranges]]);
  }

  /**
   * Records ranges of several files in one transaction (all or none). Ranges of a file that no longer exists (its
   * job was deleted meanwhile) are dropped.
   * @throws SluiceError INVALID_REQUEST for a malformed range; LOCAL_IO / DISK_FULL from the database
   */
  recordMany(entries: Iterable<readonly [number, readonly ByteRange[]]>): void {
    const list = [...entries].map(([fileId, ranges]) => {
      ranges.forEach(checkRange);
      return [fileId, coalesce(ranges)] as const;
    });
    this.q.write(() => {
      for (const [fileId, ranges] of list) {
        if (ranges.length === 0 || !this.q.stmt('SELECT 1 FROM job_files WHERE id = ?').get(fileId)) continue;
        for (const r of ranges) this.merge(fileId, r);
      }
    });
  }

  /**
   * Merges one range into the stored ones. Stored ranges are disjoint and not adjacent, so the ones it touches are
   * the last starting at or before r's start (if it reaches it) and those starting inside r's `(start, end]`.
   */
  private merge(fileId: number, r: ByteRange): void {
    let [start, end] = r;
    const left = this.q
      .stmt('SELECT start, end FROM file_ranges WHERE file_id = ? AND start <= ? ORDER BY start DESC LIMIT 1')
      .get(fileId, start) as RangeRow | undefined;
    if (left && left.end >= start) {
      if (left.end >= end) return;
      start = left.start;
    }
    const right = this.q
      .stmt('SELECT MAX(end) AS e FROM file_ranges WHERE file_id = ? AND start > ? AND start <= ?')
      .get(fileId, r[0], end) as { e: number | null };
    end = Math.max(end, right.e ?? end);
    this.q.stmt('DELETE FROM file_ranges WHERE file_id = ? AND start >= ? AND start <= ?').run(fileId, start, r[1]);
    this.q.stmt('INSERT INTO file_ranges (file_id, start, end) VALUES (?, ?, ?)').run(fileId, start, end);
  }

  /** The stored ranges of a file: sorted, disjoint, not adjacent. */
  ranges(fileId: number): ByteRange[] {
    const rows = this.q
      .stmt('SELECT start, end FROM file_ranges WHERE file_id = ? ORDER BY start')
      .all(fileId) as RangeRow[];
    return rows.map((row) => [row.start, row.end]);
  }

  /**
   * What is left to send of a file of `size` bytes: the gaps of `[0, size)` (all of it when nothing is recorded).
   */
  missingRanges(fileId: number, size: number): ByteRange[] {
    return gaps(this.ranges(fileId), size);
  }

  /** Bytes recorded as done for a file. */
  doneBytes(fileId: number): number {
    return (
      this.q.stmt('SELECT COALESCE(SUM(end - start), 0) AS n FROM file_ranges WHERE file_id = ?').get(fileId) as {
        n: number;
      }
    ).n;
  }

  /** Forgets a file's ranges (its partial file was discarded). */
  clear(fileId: number): void {
    this.q.write(() => this.q.stmt('DELETE FROM file_ranges WHERE file_id = ?').run(fileId));
  }
}
