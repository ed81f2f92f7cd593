/**
 * The local side of a sync: the synced folder walked with node:fs (walkTree in listing.ts), each entry's lstat; a
 * symlink as get/put take it (listing.ts linkEntry: a link to a file inside the folder is that file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SluiceError, fromLocalError } from '../errors';
import { linkEntry, walkTree, type Listing, type RawEntry, type WalkLimits } from './listing';

/** Entries lstat'ed at once within one folder. */
const STAT_BATCH = 64;

function kindOf(st: fs.Stats): RawEntry['kind'] {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

/** Reads one local folder: its names, each with its lstat; a name that vanished meanwhile is left out. */
async function readLocalFolder(
  root: string,
  realRoot: string,
  rel: string,
  onNames: (names: RawEntry[]) => void,
  signal: AbortSignal,
): Promise<void> {
  const dir = rel === '' ? root : path.join(root, ...rel.split('/'));
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (e) {
    throw fromLocalError(e, dir, 'list');
  }
  for (let i = 0; i < names.length; i += STAT_BATCH) {
    if (signal.aborted) throw new SluiceError('ABORTED', 'listing cancelled');
    const batch = await Promise.all(
      names.slice(i, i + STAT_BATCH).map(async (name): Promise<RawEntry | null> => {
        const full = path.join(dir, name);
        const st = await fs.promises.lstat(full).catch(() => null);
        if (st?.isSymbolicLink()) return localLink(name, full, realRoot);
        return st && { name, kind: kindOf(st), size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
      }),
    );
    onNames(batch.filter((e): e is RawEntry => e !== null));
  }
}

/** A local link as get/put's policy takes it (listing.ts linkEntry). */
async function localLink(name: string, full: string, realRoot: string): Promise<RawEntry> {
  const target = await fs.promises.stat(full).catch(() => null);
  const real = await fs.promises.realpath(full).catch(() => null);
  const inside = real !== null && real.startsWith(realRoot + path.sep);
  return linkEntry(
    name,
    target && { isDir: target.isDirectory(), size: target.size, mtimeMs: target.mtimeMs },
    real === null ? null : { path: real, inside },
  );
}

/**
 * Lists a local folder for a sync.
 * @param root the synced folder; when it does not exist the listing is empty with `rootExists` false
 * @throws SluiceError USAGE when `root` is not a folder, ABORTED when `limits.signal` fires
 */
export async function listLocalTree(root: string, limits: WalkLimits): Promise<Listing> {
  const st = await fs.promises.stat(root).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw fromLocalError(e, root);
  });
  if (st && !st.isDirectory()) throw new SluiceError('USAGE', `${root} is not a folder (sync works on folders)`);
  const realRoot = st ? await fs.promises.realpath(root) : root;
  return walkTree((rel, onNames, signal) => readLocalFolder(root, realRoot, rel, onNames, signal), limits, st !== null);
}
