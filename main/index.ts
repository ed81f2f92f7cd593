/**
 * Electron main process: single-instance lock, `app://` protocol, one hardened window, the service
 * (engine coordinator; its SSH connections run in worker threads), validated IPC and the menu.
 */
import { app, BrowserWindow, Menu } from 'electron';
import * as path from 'node:path';
import { SluiceService } from '../app/node/service';
import { dragCache } from '../app/node/service/dragOut';
import { resolveHome } from '../app/node/stores/sites';
import { applyAppUserModelId } from './appIdentity';
import { openInDefaultApp, QuitGuard } from './editing';
import { startDragOf } from './dragOut';
import { registerService, attachWindow } from './ipc/register';
import { menuTemplate } from './menu';
import { checkNativeModulesAtStart } from './nativeModules';
import { notifyFinishedBatches } from './notifications';
import { keepAwakeWhileTransferring } from './powerSave';
import { electronFileDialogs } from './platform/dialogs';
import { SafeStorageSecretStore } from './platform/secretStore';
import { APP_ORIGIN, handleAppProtocol, registerAppScheme } from './protocol';
import { createMainWindow, hardenWebContents } from './window';

/** dist/main/index.js -> repo (or asar) root. */
const ROOT = path.join(__dirname, '..', '..');
const RENDERER_DIR = path.join(ROOT, 'renderer', 'dist');
const PRELOAD = path.join(__dirname, 'preload', 'preload.js');

let mainWindow: BrowserWindow | null = null;
let service: SluiceService | null = null;
/** Quitting or closing the window with an edited file's save not uploaded asks first (main/editing.ts). */
const quitGuard = new QuitGuard(
  () => service?.pendingEdits() ?? [],
  () => mainWindow,
);

function createWindow(svc: SluiceService): BrowserWindow {
  const win = createMainWindow(PRELOAD);
  attachWindow(svc, win.webContents);
  win.once('ready-to-show', () => win.show());
  // Closing the last window quits, except on macOS (the service, and its uploads, go on there).
  win.on('close', (event) => {
    if (process.platform !== 'darwin' && !quitGuard.mayQuit(() => app.quit())) event.preventDefault();
  });
  win.on('closed', () => {
    mainWindow = null;
    // Keep remote up to date shows itself only in the window's status bar: it stops with the window (macOS stays up).
    void svc.stopKeepUps();
  });
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}

async function start(): Promise<void> {
  // A native module built for the wrong runtime is a dialog naming it and the fix, not a crash (main/nativeModules.ts).
  if (!checkNativeModulesAtStart(ROOT)) {
    app.exit(1);
    return;
  }
  handleAppProtocol(RENDERER_DIR);
  const home = resolveHome();
  const secrets = new SafeStorageSecretStore({
    file: path.join(home, 'secrets.json'),
    allowInsecure: () => service?.insecureSecretStorageAllowed() ?? false,
    warn: (m) => console.warn(`[sluice] ${m}`),
  });
  const dialogs = electronFileDialogs(() => mainWindow);
  const startDrag = startDragOf(() => mainWindow, dragCache(home));
  service = new SluiceService({
    home,
    secrets,
    dialogs,
    openPath: openInDefaultApp,
    startDrag: (f) => void startDrag(f),
  });
  registerService(service);
  notifyFinishedBatches(service);
  keepAwakeWhileTransferring(service);
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(process.platform, !app.isPackaged)));
  mainWindow = createWindow(service);
}

registerAppScheme();
// Windows attributes notifications and taskbar buttons by this ID (the installer's shortcut carries the same).
applyAppUserModelId(app);
// Every web contents (windows, and anything a bug might create) is hardened before it loads anything.
app.on('web-contents-created', (_event, wc) => hardenWebContents(wc));

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (service && BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow(service);
  });
  let closing = false;
  app.on('before-quit', (event) => {
    if (!service || closing) return;
    event.preventDefault();
    if (!quitGuard.mayQuit(() => app.quit())) return;
    closing = true;
    void service.close().finally(() => app.quit());
  });
  app
    .whenReady()
    .then(start)
    .catch((e: unknown) => {
      console.error('[sluice] failed to start:', e);
      app.exit(1);
    });
}
