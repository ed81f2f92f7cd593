/** Byte ranges of a file, `[start, end)` in bytes: merging, gaps and sums (pure; used by the range journal). */
import { SluiceError } from '../errors';

/** The bytes `start` (inclusive) to `end` (exclusive) of a file. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Checks one range: integers, `0 <= start <= end`.
 * @throws SluiceError INVALID_REQUEST otherwise
 */
export function checkRange(r: ByteRange): void {
  if (!Number.isSafeInteger(r.start) || !Number.isSafeInteger(r.end) || r.start < 0 || r.end < r.start) {
    throw new SluiceError('INVALID_REQUEST', `Not a byte range: [${r.start}, ${r.end})`);
  }
}

/**
 * Sorted, disjoint ranges covering exactly the bytes of `ranges`; overlapping and adjacent ranges are merged and
 * empty ones dropped. The input is not modified.
 */
export function coalesce(ranges: readonly ByteRange[]): ByteRange[] {
  const sorted = ranges.filter((r) => r.end > r.start).sort((a, b) => a.start - b.start);
  const out: ByteRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ start: r.start, end: r.end });
  }
  return out;
}

/**
 * The parts of `[0, size)` not covered by `done` (sorted, disjoint): what is left to send. Bytes of `done` past
 * `size` are ignored.
 * @param done ranges in any order, overlapping or not
 * @param size the file's size in bytes
 */
export function gaps(done: readonly ByteRange[], size: number): ByteRange[] {
  const out: ByteRange[] = [];
  let at = 0;
  for (const r of coalesce(done)) {
    if (r.start >= size) break;
    if (r.start > at) out.push({ start: at, end: r.start });
    at = Math.max(at, r.end);
  }
  if (at < size) out.push({ start: at, end: size });
  return out;
}

/** Bytes covered by `ranges` (overlaps counted once). */
export function coveredBytes(ranges: readonly ByteRange[]): number {
  return coalesce(ranges).reduce((n, r) => n + (r.end - r.start), 0);
}
