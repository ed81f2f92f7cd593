/**
 * The one place that decides BrowserWindow options and web-contents hardening
 * (electronjs.org/docs/latest/tutorial/security, checklist items 2–4, 13–15, 17).
 */
import { BrowserWindow, shell, type BrowserWindowConstructorOptions, type WebContents } from 'electron';
import { APP_ORIGIN } from './protocol';

/**
 * External pages the app may open in the user's browser (exact origin + path prefix). Never server-provided strings.
 */
export const EXTERNAL_URL_ALLOWLIST: readonly string[] = ['https://github.com/sluice-sftp/sluice'];

/**
 * Options of the main window: sandboxed, context-isolated renderer without Node, web security on.
 * @param preloadPath absolute path of the compiled preload (dist/main/preload/preload.js)
 */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 800,
    minWidth: 800,
    minHeight: 500,
    show: false,
    title: 'Sluice',
    backgroundColor: '#1e1e1e',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
      disableBlinkFeatures: 'Auxclick',
    },
  };
}

/**
 * Creates the main window from {@link mainWindowOptions}. The security-critical flags are restated at the
 * constructor so that a static scanner (Electronegativity reads only the `new BrowserWindow` argument) sees
 * them, and so that no later edit of the factory can turn them off; the unit test checks both agree.
 */
export function createMainWindow(preloadPath: string): BrowserWindow {
  const options = mainWindowOptions(preloadPath);
  return new BrowserWindow({
    ...options,
    webPreferences: {
      ...options.webPreferences,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      disableBlinkFeatures: 'Auxclick',
    },
  });
}

/** True for an https URL under one of {@link EXTERNAL_URL_ALLOWLIST}'s prefixes (after URL normalisation). */
export function isAllowedExternalUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' || parsed.username || parsed.password) return false;
  return EXTERNAL_URL_ALLOWLIST.some((prefix) => parsed.href === prefix || parsed.href.startsWith(`${prefix}/`));
}

/** Opens an allowlisted URL in the user's browser; anything else is ignored. Returns whether it was opened. */
export function openExternalSafely(url: string): boolean {
  if (!isAllowedExternalUrl(url)) return false;
  void shell.openExternal(url);
  return true;
}

/**
 * Locks a web contents down: no navigation away from the app (links we ship go to the browser), no new
 * windows, no <webview>, every permission request and check denied.
 */
export function hardenWebContents(wc: WebContents): void {
  wc.on('will-navigate', (event, url) => {
    event.preventDefault();
    openExternalSafely(url);
  });
  wc.on('will-redirect', (event, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) event.preventDefault();
  });
  wc.on('will-attach-webview', (event) => event.preventDefault());
  wc.setWindowOpenHandler(({ url }) => {
    openExternalSafely(url);
    return { action: 'deny' };
  });
  wc.session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  wc.session.setPermissionCheckHandler(() => false);
}
