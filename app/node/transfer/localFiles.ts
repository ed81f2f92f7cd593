/**
 * The local side of a download: its temporary file created, fsynced, given its source's attributes and committed under
 * the final name.
 */
import fs from 'node:fs';
import { SluiceError, fromLocalError } from '../errors';
import type { KeptAttributes } from '../ssh/workerProtocol';
import { reserveSpace } from '../sys/preallocate';
import { prepareSegmentedPart } from '../sys/sparsePart';

/**
 * Creates a download's local temporary file at its full size (segments write into it at their offsets), its blocks
 * preallocated where the native/ addon is built (sys/preallocate.ts); on Windows marked sparse first instead, so NTFS
 * does not zero-fill ahead of far segments (sys/sparsePart.ts).
 * @throws SluiceError DISK_FULL when the preallocation finds no room; LOCAL_IO for the open or truncate
 */
export async function createLocalTemp(p: string, size: number, mode: number): Promise<void> {
  try {
    const h = await fs.promises.open(p, 'w', mode || 0o644);
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
 * Gives a finished local temporary file its source's modification time (as its access time too, in seconds) and
 * permission bits, before its rename. Never rejects.
 * @returns undefined when done (or nothing to keep), else the failure naming the action and `p`
 */
export async function keepLocalAttributes(p: string, keep?: KeptAttributes): Promise<SluiceError | undefined> {
  try {
    if (keep?.mtime !== undefined) await fs.promises.utimes(p, keep.mtime, keep.mtime);
    if (keep?.mode !== undefined) await fs.promises.chmod(p, keep.mode);
    return undefined;
  } catch (e) {
    return fromLocalError(e, p, keep?.mode === undefined ? 'set the times of' : 'set the times and permissions of');
  }
}

/** Moves a verified local temporary file to its final name (no-clobber: link + unlink, atomic refusal). */
export async function localCommit(temp: string, target: string, mode: 'overwrite' | 'no-clobber'): Promise<void> {
  try {
    if (mode === 'overwrite') {
      await fs.promises.rename(temp, target);
      return;
    }
    try {
      await fs.promises.link(temp, target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new SluiceError('EXISTS', `${target} exists`);
      throw e;
    }
    await fs.promises.unlink(temp);
  } catch (e) {
    throw e instanceof SluiceError ? e : fromLocalError(e, target);
  }
}

