/**
 * main/'s part of dragging remote rows out of the window (#26 item 7; the engine's part is
 * app/node/service/dragOut.ts): the files the service fetched into its drag cache handed to the OS drag,
 * `webContents.startDrag({ file, files, icon })` (Electron: the files must exist, the icon must not be empty on macOS:
 * the system's icon of the first file, from `app.getFileIcon`). Only files inside the cache folder are given.
 */
import * as path from 'node:path';
import { app, type BrowserWindow } from 'electron';

/**
 * The service's `startDrag` (ServiceOptions): the main window's webContents starts an OS drag of `files`.
 * @param win the window the drag starts from (null: none, the call is ignored)
 * @param cacheRoot the service's drag cache (`<home>/drag-out`): a file anywhere else refuses the whole drag
 * @returns the function; its promise settles once startDrag was called (or refused: false)
 */
export function startDragOf(win: () => BrowserWindow | null, cacheRoot: string): (files: string[]) => Promise<boolean> {
  const root = path.resolve(cacheRoot) + path.sep;
  return async (files) => {
    if (files.length === 0 || !files.every((f) => path.resolve(f).startsWith(root))) return false;
    const icon = await app.getFileIcon(files[0], { size: 'normal' });
    const w = win();
    if (!w || w.isDestroyed()) return false;
    w.webContents.startDrag({ file: files[0], files, icon });
    return true;
  };
}
