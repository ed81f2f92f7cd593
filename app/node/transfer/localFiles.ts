/** The local side of a download: its temporary file created, fsynced and committed under the final name. */
import fs from 'node:fs';
import { SluiceError, fromLocalError } from '../errors';

/** Creates a download's local temporary file at its full size (segments write into it at their offsets). */
export async function createLocalTemp(p: string, size: number, mode: number): Promise<void> {
  try {
    const h = await fs.promises.open(p, 'w', mode || 0o644);
    try {
      await h.truncate(size);
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
