/**
 * The plan stage's decisions for one file: its route (whole through one handle, or segments over every lane) and the
 * byte ranges (segments) that lanes take by work stealing.
 */
import { HEAVY_PER_LANE } from './scheduler';
import type { ByteRange } from './types';

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

/** Segments are not cut smaller than this (4 SSH_FXP_WRITEs of 255 KiB), except a file's last one. */
export const MIN_SEGMENT_BYTES = 1024 * 1024;

/**
 * The segments of a file's still-to-move `ranges` (planSegments over each), for `lanes` lanes that each run
 * HEAVY_PER_LANE segment tasks at once.
 * @param segmentSize largest segment, bytes (`--segment-size`)
 */
export function segmentsOf(ranges: readonly ByteRange[], lanes: number, segmentSize: number): Segment[] {
  const slots = lanes * HEAVY_PER_LANE;
  return ranges.flatMap(([from, to]) =>
    planSegments(to - from, slots, segmentSize, MIN_SEGMENT_BYTES).map(([a, b]) => [from + a, from + b] as const),
  );
}

/** What the route of one file depends on. */
export interface RouteFacts {
  /** Bytes. */
  size: number;
  /** `--segment-size`, bytes: a file up to this size goes whole unless resumed or sparse. */
  segmentSize: number;
  /** The planned lanes (connections × channels), not only those up now. */
  lanes: number;
  /** The job has a journal: a big file goes in segments even on one lane, each recorded when durable. */
  journalled: boolean;
  /** The journal holds durable ranges of this file: the ranges still missing go in segments. */
  resuming: boolean;
  /** A sparse source: its data ranges only, in segments (sparseUpload.ts). */
  sparse: boolean;
}

/** How one file moves, and why (for logs and tests). */
export interface Route {
  kind: 'whole' | 'segments';
  why: string;
}

/**
 * The route of one file, one return per reason, in the shape of rclone's doMultiThreadCopy
 * (fs/operations/multithread.go).
 * @param takesOutOfOrder whether the destination keeps writes sent out of order (a local file does; a server is asked
 *   once, outOfOrderProbe.ts, only when {@link wantsSegments})
 */
export function routeOf(f: RouteFacts, takesOutOfOrder: boolean): Route {
  if (!f.resuming && !f.sparse) {
    if (f.size <= f.segmentSize) return { kind: 'whole', why: 'it fits one segment' };
    if (f.lanes <= 1 && !f.journalled) return { kind: 'whole', why: 'one lane and no journal' };
  }
  if (!takesOutOfOrder) return { kind: 'whole', why: 'the destination does not take out-of-order writes' };
  if (f.resuming) return { kind: 'segments', why: 'the ranges still missing of a resumed file' };
  if (f.sparse) return { kind: 'segments', why: 'the data ranges of a sparse file' };
  if (f.lanes > 1) return { kind: 'segments', why: 'bigger than a segment, over several lanes' };
  return { kind: 'segments', why: 'bigger than a segment, each segment recorded in the journal' };
}

/** Whether {@link routeOf} would choose segments where the destination takes them: a server is then asked. */
export function wantsSegments(f: RouteFacts): boolean {
  return routeOf(f, true).kind === 'segments';
}
