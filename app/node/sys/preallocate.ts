/**
 * Preallocation of a download's temporary file: its blocks reserved before data arrives (no ENOSPC half-way, less
 * fragmentation), its size unchanged (a partial file reads as long as what was written, which resume relies on).
 * Through the native/ addon: Linux fallocate(FALLOC_FL_KEEP_SIZE), macOS fcntl(F_PREALLOCATE), Windows
 * SetFileInformationByHandle(FileAllocationInfo). JavaScript fallback: none — Node has no fallocate, and writing
 * zeros would write every byte twice; the free-space check before the download (transfer/localSpace.ts) still
 * refuses a file that cannot fit. Not on a memory-backed file system (Linux tmpfs, ramfs): there fallocate zero-fills
 * and commits every page before the first byte arrives (`npm run bench`'s big-down on /dev/shm: +0.75 s of CPU for
 * 1 GiB) and there is no fragmentation to avoid.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fromLocalError } from '../errors';
import { nativeAddon } from './native';

/** statfs f_type of Linux's memory-backed file systems (linux/magic.h TMPFS_MAGIC, RAMFS_MAGIC). */
const MEMORY_FS_TYPES = new Set([0x01021994, 0x858458f6]);

/** Whether `p` lives on tmpfs or ramfs (Linux); false where that cannot be told. */
function onMemoryFs(p: string): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return MEMORY_FS_TYPES.has(Number(fs.statfsSync(path.dirname(p)).type));
  } catch {
    return false;
  }
}

/** What became of a preallocation; `failed`: the addon's call failed, not for want of space (the download goes on). */
export type Preallocation = 'reserved' | 'unsupported' | 'no-addon' | 'memory-fs' | 'failed';

/** The errors that mean the space is not there: the download must fail now (DISK_FULL). */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/**
 * Reserves `bytes` for the open file `fd` (from offset 0) without changing its size.
 * @param fd an open, writable file descriptor
 * @param bytes the file's final size, bytes
 * @returns `reserved`; `unsupported` when the file system cannot preallocate; `no-addon` without the addon
 * @throws Error with `code` ENOSPC / EDQUOT / EFBIG (map it with errors.ts fromLocalError) when the space is not there
 */
export function preallocate(fd: number, bytes: number): Preallocation {
  const addon = nativeAddon();
  if (!addon) return 'no-addon';
  return addon.preallocate(fd, bytes) ? 'reserved' : 'unsupported';
}

/**
 * Preallocates an open download file; a file system that cannot, or a missing addon, is not an error.
 * @param p the file's path (the user's or its temporary name), named by the error
 * @returns as {@link preallocate}, `memory-fs` (tmpfs, ramfs: nothing reserved, see above), or `failed` when the
 *   addon's call failed for another reason (EBADF from a handle lookup, EINVAL…): the file is written without a
 *   reservation, as without the addon
 * @throws SluiceError DISK_FULL (ENOSPC, EDQUOT, EFBIG from fallocate) naming `p`
 */
export function reserveSpace(fd: number, bytes: number, p: string): Preallocation {
  if (onMemoryFs(p)) return 'memory-fs';
  try {
    return preallocate(fd, bytes);
  } catch (e) {
    if (!NO_SPACE.has(String((e as NodeJS.ErrnoException).code))) return 'failed';
    throw fromLocalError(e, p, `reserve ${bytes} bytes for`);
  }
}

/**
 * Gives back the disk a preallocation reserved for a partial download that is kept for a later run (interrupted,
 * connection lost): the file is cut after `keep` bytes, its last byte a journal recorded as durably written. The blocks
 * reserved beyond (FALLOC_FL_KEEP_SIZE or F_PREALLOCATE, and the unwritten tail of a file created at full length) are
 * freed; bytes written after the last record are not trusted by the next run anyway (it sends every range the journal
 * lacks, and refuses a partial copy shorter than its records). What stays reserved are the holes below `keep` that
 * segments moving in parallel at the interrupt left (at most about channels × segment size). Call it only once no
 * range of the file can be recorded any more. A file gone, or one that cannot be opened, is left as it is.
 * @param p the kept temporary file
 * @param keep bytes to keep (the end of its last recorded range); 0 or less: nothing is done
 */
export async function releaseReservation(p: string, keep: number): Promise<void> {
  if (keep <= 0) return;
  let fh: fs.promises.FileHandle | undefined;
  try {
    fh = await fs.promises.open(p, 'r+');
    const { size } = await fh.stat();
    // Even to the same size: ext4 and XFS free the blocks reserved past the end on any truncate.
    await fh.truncate(Math.min(size, keep));
  } catch {
    // gone or unwritable: nothing to give back
  } finally {
    await fh?.close().catch(() => undefined);
  }
}
