/** The local side of the file browser: list, create, rename and remove in the user's own folders. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FsEntry } from '../../common/ipc/contract';
import { SluiceError, fromLocalError } from '../errors';

/**
 * A local path as the user wrote it, `~` read as their home folder (os.homedir(): USERPROFILE on Windows, not HOME):
 * `~`, `~/x`, and on Windows `~\x` too (where `\` separates). Other paths (`~user`, relative ones) are returned as
 * they are.
 */
export function expandHome(p: string, platform: NodeJS.Platform = process.platform, home = os.homedir()): string {
  if (p === '~') return home;
  const sep = p.startsWith('~/') || (platform === 'win32' && p.startsWith('~\\'));
  return sep ? (platform === 'win32' ? path.win32 : path.posix).join(home, p.slice(2)) : p;
}

/**
 * A queue request's local side with `~` expanded (expandHome): a download's destination, an upload's sources. A
 * site's local folder `~/x` reached the transfer as written and became `/~/x` under an app started from the Finder.
 */
export function withLocalHome<T extends { direction: 'upload' | 'download'; sources: string[]; dest: string }>(
  req: T,
): T {
  return req.direction === 'download'
    ? { ...req, dest: expandHome(req.dest) }
    : { ...req, sources: req.sources.map((s) => expandHome(s)) };
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
