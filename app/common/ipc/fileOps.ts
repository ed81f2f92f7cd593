/**
 * The panes' other file operations (#26 item 6): duplicate, new empty file, new symlink, open with the default
 * application, and a duplicate's name ("name (copy).ext", "name (copy 2).ext", as GNOME Files and Dolphin name them).
 * Moves are `remote.rename` / `local.rename` with `overwrite` (contract.ts).
 */
import { z } from 'zod';

const id = z.string().min(1).max(200);
const path = z.string().min(1).max(4096);

/** The channels (spread into contract.ts invokeSchemas); their answers: {@link FileOpResponses}. */
export const fileOpSchemas = {
  /** A copy beside the file or folder, named by {@link freeCopyName}: `copy-data` where offered, else the queue. */
  'remote.duplicate': z.strictObject({ siteId: id, path }),
  /** An empty file (SSH_FXP_OPEN CREAT|EXCL, CLOSE); EXISTS when the name is taken. */
  'remote.newFile': z.strictObject({ siteId: id, path }),
  /** SSH_FXP_SYMLINK: a link at `path` naming `target`, stored as given (relative or absolute). */
  'remote.symlink': z.strictObject({ siteId: id, target: path, path }),
  'local.duplicate': z.strictObject({ path }),
  /** open(2) with O_CREAT|O_EXCL ('wx'). */
  'local.newFile': z.strictObject({ path }),
  'local.symlink': z.strictObject({ target: path, path }),
  /** The system's default application for a local file (Electron shell.openPath; the e2e harness records it). */
  'local.open': z.strictObject({ path }),
  /**
   * Remote rows dragged out of the window (#26 item 7): a small selection fetched into the app's cache and handed to
   * the OS drag (Electron webContents.startDrag), a larger one queued into a folder the user picks.
   */
  'drag.out': z.strictObject({ siteId: id, paths: z.array(path).min(1).max(100_000) }),
} as const;

/** What each of {@link fileOpSchemas} answers. */
export interface FileOpResponses {
  'remote.duplicate': DuplicateResult;
  'remote.newFile': void;
  'remote.symlink': void;
  'local.duplicate': DuplicateResult;
  'local.newFile': void;
  'local.symlink': void;
  'local.open': void;
  'drag.out': DragOutResult;
}

/** What a drag out did: the files handed to the OS drag, a queued download (too large), or nothing (cancelled). */
export type DragOutResult =
  | { kind: 'files'; files: string[]; bytes: number; count: number }
  | { kind: 'queued'; jobIds: string[]; dest: string }
  | { kind: 'cancelled' };

/**
 * What a duplicate made: the copy's path, and how (the server's `copy-data`, the queue, a local copy, or a symlink's
 * copy: a new link naming the same target).
 */
export interface DuplicateResult {
  path: string;
  via: 'copy-data' | 'queue' | 'local' | 'link';
  /** `queue`: the download into the app's cache that starts it (the upload follows when it is done). */
  jobIds?: string[];
}

/** `name (copy).ext` for n = 1, `name (copy N).ext` after; a folder's or a dot-file's name keeps no extension. */
export function copyName(name: string, n: number, isDir = false): string {
  const tag = n <= 1 ? ' (copy)' : ` (copy ${n})`;
  const dot = isDir ? -1 : name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}${tag}${name.slice(dot)}` : `${name}${tag}`;
}

/** The first copy name that `taken` does not hold (at most 10,000 tried). */
export function freeCopyName(name: string, taken: (candidate: string) => boolean, isDir = false): string {
  for (let n = 1; n < 10_000; n++) {
    const candidate = copyName(name, n, isDir);
    if (!taken(candidate)) return candidate;
  }
  throw new Error(`no free copy name for ${name}`);
}

/**
 * Why `name` cannot be one entry's name, or null: empty, `.`/`..`, a `/` (or a `\` where the side's separator is one:
 * Windows), NUL, over 255 characters.
 */
export function nameProblem(name: string, sep: '/' | '\\' = '/'): string | null {
  if (name.trim() === '') return 'Name is required';
  if (name === '.' || name === '..') return 'Name cannot be . or ..';
  if (name.includes('\0')) return 'Name cannot contain a NUL character';
  if (name.includes('/')) return 'Name cannot contain /';
  if (sep === '\\' && name.includes('\\')) return 'Name cannot contain \\';
  if (name.length > 255) return 'Name is too long (255 characters at most)';
  return null;
}
