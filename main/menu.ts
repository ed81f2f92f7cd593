/**
 * The application menu: the usual roles and shortcuts (Electron `role` items carry platform accelerators). Ctrl+W (⌘W)
 * is the renderer's: it closes the shown remote tab (views/RemoteTabs.tsx), so the window's Close takes Ctrl+Shift+W
 * (⌘⇧W), as in browsers; a menu accelerator would be handled before the page sees the key.
 */
import type { MenuItemConstructorOptions } from 'electron';
import { openExternalSafely } from './window';

export const PROJECT_URL = 'https://github.com/sluice-sftp/sluice';

/** Closing the window; Ctrl+W / ⌘W closes a remote tab. */
export const CLOSE_WINDOW = 'CmdOrCtrl+Shift+W';

/**
 * @param platform `process.platform`; macOS gets the app menu and Cmd-based window roles
 * @param devTools whether to offer Toggle Developer Tools (unpackaged builds only)
 */
export function menuTemplate(platform: NodeJS.Platform, devTools: boolean): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [];
  if (mac) template.push({ role: 'appMenu' });
  template.push(
    { label: 'File', submenu: [mac ? { role: 'close', accelerator: CLOSE_WINDOW } : { role: 'quit' }] },
    {
      label: 'Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    {
      label: 'View',
      submenu: [
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
        ...(devTools
          ? [{ type: 'separator' } as const, { role: 'reload' } as const, { role: 'toggleDevTools' } as const]
          : []),
      ],
    },
    // Electron's windowMenu role has Close on Ctrl+W outside macOS: spelled out to move it.
    mac
      ? { role: 'windowMenu' }
      : {
          label: 'Window',
          submenu: [{ role: 'minimize' }, { role: 'zoom' }, { role: 'close', accelerator: CLOSE_WINDOW }],
        },
    {
      role: 'help',
      submenu: [
        {
          label: 'Sluice on GitHub',
          click: () => {
            openExternalSafely(PROJECT_URL);
          },
        },
      ],
    },
  );
  return template;
}
