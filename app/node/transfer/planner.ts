/**
 * Cuts a big file into the byte ranges (segments) that lanes take by work stealing.
 */

/** A segment: bytes [start, end) of the file. */
export type Segment = readonly [start: number, end: number];

/**
 * Plans the segments of a `size`-byte file by guided self-scheduling (Polychronopoulos & Kuck, IEEE Trans.
 * Computers 36(12), 1987): each segment is 1/`slots` of the bytes not yet planned, clamped to
 * [`minBytes`, `maxBytes`]. The first segments are big (few per-segment costs), the last ones small, so that lanes
 * finish together: with equal segments, a few lanes carried the last ones alone while the others idled (at 50 ms
 * RTT, 4 of 10 channels for the last ~200 ms of a 128 MiB upload).
 *
 * Lanes take segments in the order returned, which is by offset.
 *
 * @param size file size in bytes (> 0)
 * @param slots segment tasks that run at once (lanes × heavy tasks per lane), ≥ 1
 * @param maxBytes largest segment in bytes (the `--segment-size` setting)
 * @param minBytes smallest segment in bytes, except a last one that is what remains
 * @returns contiguous segments covering [0, size), sizes never increasing except for the last
 */
export function planSegments(size: number, slots: number, maxBytes: number, minBytes: number): Segment[] {
  const lo = Math.max(1, Math.min(minBytes, maxBytes));
  const out: Segment[] = [];
  for (let start = 0; start < size;) {
    const share = Math.ceil((size - start) / Math.max(1, slots));
    const len = Math.min(size - start, Math.max(lo, Math.min(maxBytes, share)));
    out.push([start, start + len]);
    start += len;
  }
  return out;
}
