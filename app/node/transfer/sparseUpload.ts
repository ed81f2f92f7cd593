/**
 * Uploads of sparse local files (VM images, database files): only the data ranges are written, the holes are not
 * sent — the server's file reads them as zeros, as the source does — and the file's last byte is always written,
 * so the server's file gets its full size from that last write even when the source ends in a hole (no SETSTAT
 * size: some servers refuse it). The copy is byte-identical; `--verify sha256` hashes it whole.
 * Where the ranges come from: sys/sparse.ts (SEEK_DATA/SEEK_HOLE through the native/ addon, else a zero-block scan).
 */
import { dataRanges } from '../sys/sparse';
import type { ByteRange, EventSink } from './types';

/** A sparse upload is planned only when its holes add up to this much; below, the file goes as usual. */
export const MIN_SKIPPED_BYTES = 1024 * 1024;

/** The ranges to send (data ranges, and the last byte) and the bytes the holes skip. */
export interface SparsePlan {
  ranges: ByteRange[];
  holeBytes: number;
}

/**
 * Plans the upload of `f` as its data ranges when its holes add up to MIN_SKIPPED_BYTES or more.
 * @param clearTemp given for a fresh start with a journal: the temporary name may be an earlier run's (resume.ts),
 *   whose bytes would show through the holes, so it is removed first (never on a resume: its recorded ranges are
 *   kept); it resolves false when the file could not be removed
 * @returns the plan, or undefined for a file that is sent whole (not sparse, its ranges could not be read — the
 *   upload's own read then reports the error — or an earlier temporary file could not be removed)
 * @param events the job's event sink (the plan is said as an `info` log line)
 */
export async function planSparseUpload(
  f: { src: string; size: number },
  clearTemp: (() => Promise<boolean>) | undefined,
  events: EventSink,
): Promise<SparsePlan | undefined> {
  // A file smaller than that cannot have that many holes: not even opened.
  if (f.size <= MIN_SKIPPED_BYTES) return undefined;
  const found = await dataRanges(f.src, f.size).catch(() => undefined);
  if (!found || found.source === 'whole') return undefined;
  const ranges: ByteRange[] = found.ranges.map(([a, b]) => [a, b] as const);
  const last = ranges[ranges.length - 1];
  if (!last || last[1] < f.size) ranges.push([f.size - 1, f.size]);
  const sent = ranges.reduce((n, [a, b]) => n + b - a, 0);
  const holeBytes = f.size - sent;
  if (holeBytes < MIN_SKIPPED_BYTES) return undefined;
  // A temporary file that cannot be removed goes whole: its OPEN truncates it.
  if (clearTemp && !(await clearTemp())) return undefined;
  events({
    type: 'log',
    level: 'info',
    message: `${f.src} is sparse: sending its ${ranges.length} data ${ranges.length === 1 ? 'range' : 'ranges'}, ${sent} of ${f.size} bytes (holes found by ${found.source === 'native' ? 'SEEK_DATA/SEEK_HOLE' : 'a zero-block scan'})`,
  });
  return { ranges, holeBytes };
}

/**
 * A resumed sparse upload: of the ranges the journal says are missing, only the parts that hold data (the holes in
 * them read as zeros at the earlier run's temporary file, which only ever got this source's bytes).
 * @param missing the journal's missing ranges, in order; @param data the plan's ranges (data and the last byte)
 * @returns the ranges to send (at least the file's last byte, so the file has a segment that commits it) and the
 *   missing bytes that are holes
 */
export function dataWithin(missing: readonly ByteRange[], data: readonly ByteRange[], size: number): SparsePlan {
  const ranges: ByteRange[] = [];
  for (const [a, b] of missing) {
    for (const [c, d] of data) {
      const from = Math.max(a, c);
      const to = Math.min(b, d);
      if (from < to) ranges.push([from, to]);
    }
  }
  if (!ranges.length) ranges.push([size - 1, size]);
  const total = (rs: readonly ByteRange[]) => rs.reduce((n, [a, b]) => n + b - a, 0);
  return { ranges, holeBytes: Math.max(0, total(missing) - total(ranges)) };
}
