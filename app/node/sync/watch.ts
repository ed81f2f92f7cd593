/**
 * The local side of `sync --watch`: a folder watched with chokidar, each change reported once the file stopped
 * growing (awaitWriteFinish: its size unchanged for {@link SETTLE_MS}), as the edited-file watcher does
 * (edit/saveWatcher.ts).
 */
import { watch } from 'chokidar';

/** How long a file's size must stay the same before its change is reported (ms). */
export const SETTLE_MS = 300;

/** A running watch of a folder tree. */
export interface FolderWatch {
  /** Resolves once every folder is watched (changes before may be missed). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** What an `add` or `change` event saw of the file: size (bytes), modification time (ms), inode (0 when none). */
export interface SeenFile {
  size: number;
  mtimeMs: number;
  ino: number;
}

/**
 * Watches `root` and below; `onChange` gets chokidar's event (`add`, `change`, `unlink`, `addDir`, `unlinkDir`), the
 * full path and, for a file added or changed, its stat (chokidar's alwaysStat). A watcher error (out of inotify
 * watches) goes to `onError`.
 */
export function watchFolder(
  root: string,
  onChange: (event: string, full: string, seen?: SeenFile) => void,
  onError: (e: Error) => void,
): FolderWatch {
  const watcher = watch(root, {
    ignoreInitial: true,
    alwaysStat: true,
    awaitWriteFinish: { stabilityThreshold: SETTLE_MS, pollInterval: 50 },
  });
  watcher.on('all', (event, p, st) =>
    onChange(event, p, st && { size: st.size, mtimeMs: Math.trunc(st.mtimeMs), ino: st.ino }),
  );
  watcher.on('error', (e) => onError(e instanceof Error ? e : new Error(String(e))));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  let closing: Promise<void> | undefined;
  return { ready, close: () => (closing ??= watcher.close()) };
}
