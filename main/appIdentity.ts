/**
 * The app's identity on Windows: the Application User Model ID (AUMID). Windows groups taskbar buttons and attributes
 * toast notifications by it; a notification from a process whose AUMID matches no Start-menu shortcut is dropped
 * silently. electron-builder's NSIS installer writes `appId` into the shortcut it creates, so the two must be equal
 * (main/appIdentity.test.ts reads electron-builder.yml). Source: Electron's "Notifications" tutorial (Windows) and
 * Microsoft's "Application User Model IDs".
 */
import type { App } from 'electron';

/** electron-builder.yml `appId`: reverse-DNS, as the NSIS shortcut and the macOS bundle identifier carry it. */
export const APP_USER_MODEL_ID = 'io.github.sluice-sftp.sluice';

/**
 * Sets the AUMID on Windows, before the first window or notification; elsewhere nothing (macOS and Linux take the
 * bundle identifier and the .desktop file instead). Returns whether it was set.
 */
export function applyAppUserModelId(
  app: Pick<App, 'setAppUserModelId'>,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform !== 'win32') return false;
  app.setAppUserModelId(APP_USER_MODEL_ID);
  return true;
}
