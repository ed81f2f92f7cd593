/** The local side of the file browser: list, create, rename and remove in the user's own folders. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FsEntry } from '../../common/ipc/contract';
import { SluiceError, fromLocalError } from '../errors';

export function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return p;
}

export async function exists(p: string): Promise<boolean> {
  try {
    await fs.promises.lstat(p);
    return true;
  } catch {
    return false;
  }
}

/** Lists a local folder; symlinks report their target's type (`symlink` only when dangling) and `link`. */
export async function listLocal(p: string): Promise<{ path: string; entries: FsEntry[] }> {
  const dir = path.resolve(p);
  const names = await fs.promises.readdir(dir).catch((e) => { throw fromLocalError(e, dir, 'list'); });
  const entries = await Promise.all(names.map(async (name): Promise<FsEntry | null> => {
    const full = path.join(dir, name);
    try {
      let st = await fs.promises.lstat(full);
      let type: FsEntry['type'] = 'other';
      let link: FsEntry['link'];
      if (st.isSymbolicLink()) {
        const target = await fs.promises.readlink(full).catch(() => '');
        try {
          st = await fs.promises.stat(full);
          link = { target, broken: false };
        } catch {
          return { name, type: 'symlink', size: 0, mtimeMs: st.mtimeMs, mode: st.mode, link: { target, broken: true } };
        }
      }
      if (st.isDirectory()) type = 'dir';
      else if (st.isFile()) type = 'file';
      return { name, type, size: st.size, mtimeMs: st.mtimeMs, mode: st.mode, ...(link ? { link } : {}) };
    } catch {
      return null; // vanished between readdir and stat
    }
  }));
  return { path: dir, entries: entries.filter((e): e is FsEntry => e !== null) };
}

/** `local.mkdir`: a new folder (`~` is the home folder). */
export async function makeLocalFolder(p: string): Promise<void> {
  await fs.promises.mkdir(expandHome(p)).catch((e) => { throw fromLocalError(e, p, 'create folder'); });
}

/**
 * The local folders the app's pane listed (`local.list`): `local.rename` and `local.remove` act only on entries of
 * these, what the user was shown and chose, so that a compromised renderer cannot move or delete any path it names.
 * Bounded: the oldest folders are forgotten past {@link ListedFolders.MAX}.
 */
export class ListedFolders {
  static readonly MAX = 10_000;
  private readonly dirs = new Set<string>();

  /** Records a folder `local.list` returned (resolved). */
  add(dir: string): void {
    const d = path.resolve(dir);
    this.dirs.delete(d);
    this.dirs.add(d);
    if (this.dirs.size > ListedFolders.MAX) this.dirs.delete(this.dirs.values().next().value as string);
  }

  /**
   * `p` (`~` expanded, resolved) when it names an entry of a listed folder.
   * @throws SluiceError INVALID_REQUEST naming `op` and `p` otherwise (a folder root, `..` out of it, anywhere else)
   */
  entry(p: string, op: string): string {
    const full = path.resolve(expandHome(p));
    if (path.dirname(full) === full || !this.dirs.has(path.dirname(full))) {
      throw new SluiceError('INVALID_REQUEST', `Cannot ${op} ${p}: it is not in a folder the local pane has listed`);
    }
    return full;
  }
}

/** `local.rename`: refuses to replace an existing target. */
export async function renameLocal(from: string, to: string): Promise<void> {
  const target = expandHome(to);
  if (await exists(target)) throw new SluiceError('EXISTS', `Cannot rename to ${to}: already exists`);
  await fs.promises.rename(expandHome(from), target).catch((e) => { throw fromLocalError(e, from, 'rename'); });
}

/** `local.remove`: a file, an empty folder, or a folder with its contents when `recursive`. */
export async function removeLocal(p: string, recursive: boolean): Promise<void> {
  const full = expandHome(p);
  const st = await fs.promises.lstat(full).catch((e) => { throw fromLocalError(e, p, 'remove'); });
  const op = st.isDirectory()
    ? (recursive ? fs.promises.rm(full, { recursive: true }) : fs.promises.rmdir(full))
    : fs.promises.unlink(full);
  await op.catch((e) => { throw fromLocalError(e, p, 'remove'); });
}

/** `local.home`. */
export function localHome(): string {
  return os.homedir();
}
