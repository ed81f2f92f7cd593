/**
 * The local side of a download: its temporary file created, fsynced, given its source's attributes and committed under
 * the final name.
 */
import fs from 'node:fs';
import { SluiceError, fromLocalError } from '../errors';
import { tempFileMode, type KeptAttributes } from '../ssh/workerProtocol';
import { reserveSpace } from '../sys/preallocate';
import { renameRetrying } from '../sys/renameRetry';
import { prepareSegmentedPart } from '../sys/sparsePart';

/**
 * Creates a download's local temporary file at its full size (segments write into it at their offsets), its blocks
 * preallocated where the native/ addon is built (sys/preallocate.ts); on Windows marked sparse first instead, so NTFS
 * does not zero-fill ahead of far segments (sys/sparsePart.ts). Its mode is tempFileMode (the source's, which its
 * owner may read and write) until the commit gives it the source's.
 * @param sourceMode the remote file's mode (0 when unknown)
 * @throws SluiceError DISK_FULL when the preallocation finds no room; LOCAL_IO for the open or truncate
 */
export async function createLocalTemp(p: string, size: number, sourceMode: number): Promise<void> {
  try {
    const h = await fs.promises.open(p, 'w', tempFileMode(sourceMode));
    try {
      const sparse = prepareSegmentedPart(h.fd) === 'sparse';
      await h.truncate(size);
      if (!sparse) reserveSpace(h.fd, size, p);
    } finally {
      await h.close();
    }
  } catch (e) {
    throw fromLocalError(e, p);
  }
}

/** fsyncs a finished local temporary file and returns its size. */
export async function localFinish(p: string): Promise<number> {
  try {
    const h = await fs.promises.open(p, 'r+');
    try {
      await h.sync();
      return (await h.stat()).size;
    } finally {
      await h.close();
    }
  } catch (e) {
    throw fromLocalError(e, p);
  }
}

/**
 * The permission bits a download gets when its source's are not kept exactly (no `-p`): the source's, as a new file
 * created with them would have them after this process's umask (what `cp` does); 0644 when the server sent none.
 * @param sourceMode the remote file's mode (0 when unknown)
 */
export function downloadedFileMode(sourceMode: number): number {
  return (sourceMode & 0o777 || 0o644) & ~process.umask();
}

/**
 * Gives a finished local temporary file its source's modification time (as its access time too, in seconds) and
 * permission bits, before its rename: the bits kept exactly (`keep.mode`, `-p`), else `sourceMode` after the umask
 * (downloadedFileMode; a file system without permission bits, such as FAT, may refuse that: no warning, nobody asked).
 * Never rejects.
 * @param sourceMode the remote file's mode; undefined leaves the mode alone (a file written in place keeps its own)
 * @returns undefined when done (or nothing to keep), else the failure naming the action and `p`
 */
export async function keepLocalAttributes(
  p: string,
  keep?: KeptAttributes,
  sourceMode?: number,
): Promise<SluiceError | undefined> {
  try {
    if (keep?.mtime !== undefined) await fs.promises.utimes(p, keep.mtime, keep.mtime);
    if (keep?.mode !== undefined) await fs.promises.chmod(p, keep.mode);
    else if (sourceMode !== undefined && tempFileMode(sourceMode) !== (sourceMode & 0o777 || 0o644)) {
      // Created with owner read and write the source lacks (tempFileMode); a source that has them needs no chmod.
      await fs.promises.chmod(p, downloadedFileMode(sourceMode)).catch(() => undefined);
    }
    return undefined;
  } catch (e) {
    return fromLocalError(e, p, keep?.mode === undefined ? 'set the times of' : 'set the times and permissions of');
  }
}

/**
 * Errors of `link(2)` that mean the file system has no hard links: EPERM (Linux vfat, SMB), ENOTSUP / EOPNOTSUPP
 * (SMB/NAS mounts), EISDIR (Node on exFAT), ENOSYS; there the commit claims the name another way.
 */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'ENOSYS']);

/**
 * Moves a verified local temporary file to its final name.
 * - `overwrite`: rename(2), tried again while another program holds the file (sys/renameRetry.ts).
 * - `no-clobber`: never replaces a file that appeared meanwhile. link(2) + unlink of the temporary name, which fails
 *   atomically on an existing target; where the file system has no hard links (exFAT, FAT32, many SMB/NAS mounts),
 *   the name is claimed by an exclusive create (O_EXCL holds there too) and the file renamed over that empty claim.
 * @throws SluiceError EXISTS when a no-clobber target exists; LOCAL_IO (or the errno's code) naming `target`
 */
export async function localCommit(temp: string, target: string, mode: 'overwrite' | 'no-clobber'): Promise<void> {
  try {
    if (mode === 'overwrite') {
      await renameRetrying(temp, target);
      return;
    }
    try {
      await fs.promises.link(temp, target);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new SluiceError('EXISTS', `${target} exists`);
      if (code === undefined || !NO_HARD_LINKS.has(code)) throw e;
      await renameOverClaim(temp, target);
      return;
    }
    await fs.promises.unlink(temp);
  } catch (e) {
    throw e instanceof SluiceError ? e : fromLocalError(e, target);
  }
}

/**
 * The no-clobber commit without hard links: the target's name is created empty and exclusively (EEXIST: someone else
 * has it), then the temporary file renamed over that claim; a failed rename removes the claim again (only while it is
 * still the empty file this call made).
 */
async function renameOverClaim(temp: string, target: string): Promise<void> {
  let claim: fs.Stats;
  try {
    const h = await fs.promises.open(target, 'wx', 0o600);
    try {
      claim = await h.stat();
    } finally {
      await h.close();
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new SluiceError('EXISTS', `${target} exists`);
    throw e;
  }
  try {
    await renameRetrying(temp, target);
  } catch (e) {
    const now = await fs.promises.stat(target).catch(() => undefined);
    const ours = now !== undefined && now.size === 0 && now.ino === claim.ino && now.dev === claim.dev;
    if (ours) await fs.promises.unlink(target).catch(() => undefined);
    throw e;
  }
}
