/**
 * Entries the platform's file manager hides by a flag rather than by a leading dot (#30 item 11): Windows' hidden and
 * system attributes (desktop.ini, Thumbs.db, $RECYCLE.BIN, pagefile.sys …) and macOS's UF_HIDDEN (`chflags hidden`,
 * ~/Library). Node exposes neither, so the native/ addon reads them; without it they are shown as ordinary entries.
 */
import { nativeAddon, type NativeAddon } from './native';

/**
 * Whether `full` is hidden by a flag: always false on Linux (no such flag) and without the addon; a failing call is
 * false too (the entry is shown).
 */
export function isHiddenByFlag(
  full: string,
  platform: NodeJS.Platform = process.platform,
  addon: Pick<NativeAddon, 'isHidden'> | undefined = nativeAddon(),
): boolean {
  if (platform !== 'win32' && platform !== 'darwin') return false;
  try {
    return addon?.isHidden?.(full) === true;
  } catch {
    return false;
  }
}
