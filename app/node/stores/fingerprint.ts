/**
 * A source file's fingerprint (issue #14): SHA-256 of its first and last MiB, stored per file of a queued job so a
 * resume can tell that the source is still the one whose ranges were sent (with size and mtime). Cheap at any file
 * size (at most 2 MiB read); it does not see a change in the middle of a large file that keeps size and mtime.
 *
 * Definition (the same for a remote source, read over SFTP): the bytes {@link fingerprintRanges}(size) in order —
 * `[0, min(1 MiB, size))`, then `[max(1 MiB, size - 1 MiB), size)` when that is not empty — hashed with SHA-256,
 * as lowercase hex. A file of up to 2 MiB is hashed whole, each byte once.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fromLocalError, SluiceError } from '../errors';
import type { ByteRange } from './byteRanges';

/** Bytes taken from each end of the file. */
export const FINGERPRINT_EDGE_BYTES = 1024 * 1024;

/** The byte ranges a fingerprint hashes, in order, for a file of `size` bytes. */
export function fingerprintRanges(size: number): ByteRange[] {
  const head: ByteRange = [0, Math.min(FINGERPRINT_EDGE_BYTES, size)];
  const tail: ByteRange = [Math.max(FINGERPRINT_EDGE_BYTES, size - FINGERPRINT_EDGE_BYTES), size];
  return [head, tail].filter(([start, end]) => end > start);
}

/** The fingerprint of the bytes of {@link fingerprintRanges}, given in order. */
export function fingerprintOf(chunks: readonly Uint8Array[]): string {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return h.digest('hex');
}

/** A local file's identity at one moment: size in bytes, mtime in ms since the epoch, fingerprint. */
export interface LocalFileIdentity {
  size: number;
  mtimeMs: number;
  fingerprint: string;
}

async function readExactly(fh: fs.promises.FileHandle, r: ByteRange, file: string): Promise<Buffer> {
  const [start, end] = r;
  const buf = Buffer.alloc(end - start);
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
    if (bytesRead === 0) throw new SluiceError('LOCAL_IO', `Local file ${file} shrank while its fingerprint was taken`);
    got += bytesRead;
  }
  return buf;
}

/**
 * Size, mtime and fingerprint of a local file, from one open handle (the size and mtime are those of the
 * `fstat` the reads follow).
 * @param file local path
 * @throws SluiceError LOCAL_IO (missing, unreadable, not a regular file, shrank while read)
 */
export async function localFingerprint(file: string): Promise<LocalFileIdentity> {
  let fh: fs.promises.FileHandle | undefined;
  try {
    fh = await fs.promises.open(file, 'r');
    const st = await fh.stat();
    if (!st.isFile()) throw new SluiceError('LOCAL_IO', `Local file ${file} is not a regular file`);
    const chunks: Buffer[] = [];
    for (const r of fingerprintRanges(st.size)) chunks.push(await readExactly(fh, r, file));
    return { size: st.size, mtimeMs: Math.floor(st.mtimeMs), fingerprint: fingerprintOf(chunks) };
  } catch (e) {
    throw fromLocalError(e, file, 'fingerprint');
  } finally {
    await fh?.close();
  }
}
