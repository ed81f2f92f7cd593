/**
 * Watches an edited file's private folder for saves. The folder is watched, not the file's inode: an editor that
 * saves by writing a new file and renaming it over the old one (vim, many IDEs) replaces the inode, and a watch on
 * the old one would see nothing more. chokidar's `atomic` folds an unlink followed by an add into one change, and
 * `awaitWriteFinish` reports a save only once the file's size has stopped changing (the debounce).
 */
import * as path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

/** How long a file's size must stay the same before a save is reported (ms), and how often it is polled. */
export const SETTLE_MS = 300;
const POLL_MS = 50;

/** A running watch; `close` stops it (idempotent). */
export interface SaveWatch {
  close(): Promise<void>;
  /** Resolves once chokidar has read the folder (saves before it may be missed). */
  ready: Promise<void>;
}

/**
 * Calls `onSave` after each settled write of `file` (created, changed, or renamed over); other files of its folder
 * (an editor's swap and backup files, temporaries) are ignored.
 * @param onError a watcher failure (the folder removed, out of inotify watches)
 */
export function watchSaves(file: string, onSave: () => void, onError: (e: Error) => void): SaveWatch {
  const dir = path.dirname(file);
  const watcher: FSWatcher = watch(dir, {
    ignoreInitial: true,
    depth: 0,
    atomic: true,
    awaitWriteFinish: { stabilityThreshold: SETTLE_MS, pollInterval: POLL_MS },
  });
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  watcher.on('all', (event, changed) => {
    if ((event === 'add' || event === 'change') && path.resolve(changed) === path.resolve(file)) onSave();
  });
  watcher.on('error', (e) => onError(e instanceof Error ? e : new Error(String(e))));
  let closing: Promise<void> | undefined;
  return { ready, close: () => (closing ??= watcher.close()) };
}
