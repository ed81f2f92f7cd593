/**
 * Where a local file holds data, so an upload of a sparse file (a VM image, a database file) sends only that and
 * skips its holes. Only a file with fewer blocks allocated than its size (`st_blocks * 512 < st_size`) is looked at;
 * any other file is one data range.
 *
 * Through the native/ addon: lseek(SEEK_DATA / SEEK_HOLE) on Linux and macOS, FSCTL_QUERY_ALLOCATED_RANGES on Windows.
 * JavaScript fallback (no addon, or a file system that cannot say): the file is read once and every all-zero
 * 64 KiB block counts as a hole. Either way a skipped range reads as zeros, so the copy is byte-identical once the
 * server's file has its full size (the caller writes the last byte).
 */
import fs from 'node:fs';
import { nativeAddon } from './native';

/** A byte range [start, end). */
export type DataRange = [number, number];

/** Holes shorter than this are sent as data (SFTP writes are up to 255 KiB; tiny skips save nothing). */
export const MIN_HOLE_BYTES = 64 * 1024;
/** The JavaScript scan's block: all zeros → a hole. */
const SCAN_BLOCK = 64 * 1024;
/** The JavaScript scan reads this much at a time. */
const SCAN_READ = 4 * 1024 * 1024;

/** Where the ranges came from: the addon, the zero-block scan, or the whole file (not sparse). */
export type DataRangesSource = 'native' | 'scan' | 'whole';

/** Joins ranges separated by less than MIN_HOLE_BYTES; drops empty ones. */
export function coalesce(ranges: readonly DataRange[]): DataRange[] {
  const out: DataRange[] = [];
  for (const [a, b] of ranges) {
    if (b <= a) continue;
    const last = out[out.length - 1];
    if (last && a - last[1] < MIN_HOLE_BYTES) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The zero-block scan over [0, size) of `fh`. */
async function scanForData(fh: fs.promises.FileHandle, size: number): Promise<DataRange[]> {
  const buf = Buffer.allocUnsafe(SCAN_READ);
  const zero = Buffer.alloc(SCAN_BLOCK);
  const out: DataRange[] = [];
  for (let pos = 0; pos < size;) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(SCAN_READ, size - pos), pos);
    if (bytesRead === 0) break;
    for (let off = 0; off < bytesRead; off += SCAN_BLOCK) {
      const n = Math.min(SCAN_BLOCK, bytesRead - off);
      if (buf.subarray(off, off + n).equals(zero.subarray(0, n))) continue;
      const last = out[out.length - 1];
      if (last && last[1] === pos + off) last[1] += n;
      else out.push([pos + off, pos + off + n]);
    }
    pos += bytesRead;
  }
  return out;
}

/**
 * The data ranges of a local file, coalesced (holes under MIN_HOLE_BYTES count as data).
 * @param file the local path (the user's)
 * @param size the size the job planned for it, bytes
 * @returns ranges in file order within [0, size), and where they came from; [[0, size]] `whole` for a file that is
 *   not sparse
 * @throws the fs error of the open, stat or read (map it with errors.ts fromLocalError)
 */
export async function dataRanges(
  file: string,
  size: number,
): Promise<{ ranges: DataRange[]; source: DataRangesSource }> {
  const whole = { ranges: size > 0 ? [[0, size] as DataRange] : [], source: 'whole' as const };
  const fh = await fs.promises.open(file, 'r');
  try {
    const st = await fh.stat();
    if (st.blocks * 512 + MIN_HOLE_BYTES > size) return whole;
    let native: DataRange[] | null | undefined;
    // A failing addon call (a handle lookup, an unexpected errno) falls back to the scan like a missing addon.
    try {
      native = nativeAddon()?.dataRanges(fh.fd, size);
    } catch {
      native = undefined;
    }
    if (native) return { ranges: coalesce(native), source: 'native' };
    return { ranges: coalesce(await scanForData(fh, size)), source: 'scan' };
  } finally {
    await fh.close();
  }
}
