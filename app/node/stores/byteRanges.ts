/** Byte ranges of a file, `[start, end)` in bytes: merging, gaps and sums (pure; used by the range journal). */
import { SluiceError } from '../errors';

/**
 * The bytes `start` (inclusive) to `end` (exclusive) of a file: the one range shape of the journal, the transfer
 * (transfer/types.ts re-exports it) and the pipelines.
 */
export type ByteRange = readonly [start: number, end: number];

/**
 * Checks one range: integers, `0 <= start <= end`.
 * @throws SluiceError INVALID_REQUEST otherwise
 */
export function checkRange([start, end]: ByteRange): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new SluiceError('INVALID_REQUEST', `Not a byte range: [${start}, ${end})`);
  }
}

/**
 * Sorted, disjoint ranges covering exactly the bytes of `ranges`; overlapping and adjacent ranges are merged and
 * empty ones dropped. The input is not modified.
 */
export function coalesce(ranges: readonly ByteRange[]): ByteRange[] {
  const sorted = ranges.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
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
  for (const [start, end] of coalesce(done)) {
    if (start >= size) break;
    if (start > at) out.push([at, start]);
    at = Math.max(at, end);
  }
  if (at < size) out.push([at, size]);
  return out;
}

/** Bytes covered by `ranges` (overlaps counted once). */
export function coveredBytes(ranges: readonly ByteRange[]): number {
  return coalesce(ranges).reduce((n, [start, end]) => n + (end - start), 0);
}
