/**
 * The system's file dialogs for the service (`dialog.openFile`, the site form's Browse… for a key file): Electron's
 * `dialog.showOpenDialog`, modal to the main window when there is one.
 */
import { dialog, type BrowserWindow, type OpenDialogOptions } from 'electron';
import type { FileDialogs, OpenFileRequest } from '../../app/node/service';

/**
 * File dialogs over Electron's.
 * @param parent the window the dialog is modal to (null: none, e.g. while the window is closed)
 */
export function electronFileDialogs(parent: () => BrowserWindow | null): FileDialogs {
  return {
    async openFile(request: OpenFileRequest): Promise<string | null> {
      const options: OpenDialogOptions = {
        title: request.title,
        defaultPath: request.defaultPath,
        properties: [
          ...(request.folder ? (['openDirectory', 'createDirectory'] as const) : (['openFile'] as const)),
          'dontAddToRecent',
          ...(request.showHidden ? (['showHiddenFiles'] as const) : []),
        ],
      };
      const win = parent();
      const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
      return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0];
    },
  };
}
