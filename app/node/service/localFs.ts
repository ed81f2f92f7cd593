/**
 * The local side of the file browser: list, create, rename and remove in the user's own folders. On Windows the top
 * level (app/common/localPaths.ts DRIVES_PATH) lists the drives and the UNC shares listed since the start.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FsEntry, Listing } from '../../common/ipc/contract';
import { DRIVES_PATH, windowsRoot } from '../../common/localPaths';
import { SluiceError, fromLocalError } from '../errors';
import { isHiddenByFlag } from '../sys/hiddenFlag';
import { expandTilde, homeOf } from '../sys/platformPaths';

/**
 * A local path as the user wrote it, `~` read as their home folder (sys/platformPaths.ts homeOf: USERPROFILE on
 * Windows): `~`, `~/x`, and on Windows `~\x` too. Other paths (`~user`, relative ones) are returned as they are.
 */
export function expandHome(
  p: string,
  platform: NodeJS.Platform = process.platform,
  home = homeOf(process.env, platform),
): string {
  return expandTilde(p, home, platform);
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

/** What the local listing needs of the machine; injected in tests of another platform. */
export interface LocalSystem {
  platform: NodeJS.Platform;
  /** The drive letters present (Windows), e.g. `['C', 'D']`. */
  drives(): Promise<string[]>;
  /** Lists one folder ({@link listLocal}). */
  list(p: string): Promise<Listing>;
}

/** A drive is present when its root can be stat'ed (no media, unmapped: not listed). */
async function presentDrives(): Promise<string[]> {
  const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
  const found = await Promise.all(
    letters.map((l) =>
      fs.promises.stat(`${l}:\\`).then(
        () => l,
        () => undefined,
      ),
    ),
  );
  return found.filter((l): l is string => l !== undefined);
}

export const nodeLocalSystem: LocalSystem = {
  platform: process.platform,
  drives: presentDrives,
  list: (p) => listLocal(p),
};

/** The UNC shares listed since the start (`\\server\share\`), shown at the top level beside the drives. */
const sharesSeen = new Set<string>();
const MAX_SHARES = 64;

function topLevel(drives: string[]): Listing {
  const dir = (name: string): FsEntry => ({ name, type: 'dir', size: 0, mtimeMs: 0 });
  const shares = [...sharesSeen].map((r) => r.slice(0, -1)).sort();
  return { path: DRIVES_PATH, sep: '\\', entries: [...drives.map((d) => dir(`${d}:`)), ...shares.map(dir)] };
}

/**
 * `local.list`: a folder, or on Windows the top level. A bare drive (`D:`) is its root, never that drive's working
 * folder; the listing carries the platform's separator.
 */
export async function listLocalAt(p: string, sys: LocalSystem = nodeLocalSystem): Promise<Listing> {
  if (sys.platform !== 'win32') return { ...(await sys.list(p)), sep: '/' };
  if (p === DRIVES_PATH) return topLevel(await sys.drives());
  const root = windowsRoot(p);
  const listing = await sys.list(/^[A-Za-z]:$/.test(p) ? `${p}\\` : p);
  if (root?.startsWith('\\\\') && sharesSeen.size < MAX_SHARES) sharesSeen.add(root);
  return { ...listing, sep: '\\' };
}

/** Refuses a create, rename or remove at the Windows top level (not a folder). */
export function realFolder(p: string, op: string): void {
  if (p === DRIVES_PATH || p.startsWith(`${DRIVES_PATH}\\`) || p.startsWith(`${DRIVES_PATH}/`)) {
    throw new SluiceError('USAGE', `Cannot ${op} in This PC: open a drive first`);
  }
}

export async function exists(p: string): Promise<boolean> {
  try {
    await fs.promises.lstat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lists a local folder; symlinks report their target's type (`symlink` only when dangling) and `link`; entries the
 * platform hides by a flag (Windows hidden/system, macOS UF_HIDDEN: sys/hiddenFlag.ts) are marked `hidden`.
 */
export async function listLocal(
  p: string,
  hiddenOf: (full: string) => boolean = (f) => isHiddenByFlag(f),
): Promise<{ path: string; entries: FsEntry[] }> {
  const dir = path.resolve(p);
  const names = await fs.promises.readdir(dir).catch((e) => {
    throw fromLocalError(e, dir, 'list');
  });
  const entries = await Promise.all(
    names.map(async (name): Promise<FsEntry | null> => {
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
            return {
              name,
              type: 'symlink',
              size: 0,
              mtimeMs: st.mtimeMs,
              mode: st.mode,
              link: { target, broken: true },
            };
          }
        }
        if (st.isDirectory()) type = 'dir';
        else if (st.isFile()) type = 'file';
        const hidden = hiddenOf(full) ? { hidden: true } : {};
        return { name, type, size: st.size, mtimeMs: st.mtimeMs, mode: st.mode, ...hidden, ...(link ? { link } : {}) };
      } catch {
        return null; // vanished between readdir and stat
      }
    }),
  );
  return { path: dir, entries: entries.filter((e): e is FsEntry => e !== null) };
}

/** `local.mkdir`: a new folder (`~` is the home folder). */
export async function makeLocalFolder(p: string): Promise<void> {
  realFolder(p, 'create a folder');
  await fs.promises.mkdir(expandHome(p)).catch((e) => {
    throw fromLocalError(e, p, 'create folder');
  });
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

/**
 * Whether `to` names the same file as `from` with only its case changed, as on a case-insensitive file system (NTFS,
 * APFS, FAT): the "existing" target is the file itself.
 */
export async function caseOnlyRename(
  from: string,
  to: string,
  lstat: (p: string) => Promise<fs.BigIntStats> = (p) => fs.promises.lstat(p, { bigint: true }),
): Promise<boolean> {
  if (from === to || from.toLowerCase() !== to.toLowerCase()) return false;
  try {
    const [a, b] = await Promise.all([lstat(from), lstat(to)]);
    // One file under two names differing in case (hard links) is not a case-insensitive file system.
    return a.dev === b.dev && a.ino === b.ino && (a.nlink === 1n || a.isDirectory());
  } catch {
    return false;
  }
}

/** `local.rename`: refuses to replace an existing target (a case-only rename of one file is no replacement). */
export async function renameLocal(from: string, to: string): Promise<void> {
  realFolder(from, 'rename');
  const target = expandHome(to);
  if ((await exists(target)) && !(await caseOnlyRename(expandHome(from), target))) {
    throw new SluiceError('EXISTS', `Cannot rename to ${to}: already exists`);
  }
  await fs.promises.rename(expandHome(from), target).catch((e) => {
    throw fromLocalError(e, from, 'rename');
  });
}

/** `local.remove`: a file, an empty folder, or a folder with its contents when `recursive`. */
export async function removeLocal(p: string, recursive: boolean): Promise<void> {
  realFolder(p, 'delete');
  const full = expandHome(p);
  const st = await fs.promises.lstat(full).catch((e) => {
    throw fromLocalError(e, p, 'remove');
  });
  const op = st.isDirectory()
    ? recursive
      ? fs.promises.rm(full, { recursive: true })
      : fs.promises.rmdir(full)
    : fs.promises.unlink(full);
  await op.catch((e) => {
    throw fromLocalError(e, p, 'remove');
  });
}

/** `local.home`. */
export function localHome(): string {
  return homeOf();
}
