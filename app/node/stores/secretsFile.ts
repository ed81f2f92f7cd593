/**
 * The desktop app's password file, `<data folder>/secrets.json`: site id -> the password encrypted by the OS keychain
 * through Electron's safeStorage (main/platform/secretStore.ts writes it; main/index.ts names it). Plain Node cannot
 * decrypt it; the command line only removes the entry of a site it deletes, so no orphan ciphertext stays behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fromLocalError } from '../errors';
import { renameSyncRetrying } from '../sys/renameRetry';

/** The file's name in the data folder. */
export const SECRETS_FILE = 'secrets.json';

/**
 * Removes a site's entry (its ciphertext, never decrypted) through a temporary file, keeping mode 0600.
 * @returns whether the file held one
 * @throws SluiceError LOCAL_IO when the file exists but cannot be rewritten
 */
export function forgetStoredSecret(home: string, siteId: string): boolean {
  const file = path.join(home, SECRETS_FILE);
  let all: Record<string, unknown>;
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return false;
  }
  if (typeof all !== 'object' || all === null || !(siteId in all)) return false;
  delete all[siteId];
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeDurably(tmp, JSON.stringify(all));
    renameSyncRetrying(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw fromLocalError(e, file, 'write');
  }
  syncFolder(home);
  return true;
}

/**
 * Writes `text` to a new file `p` (mode 0600) and fsyncs it before it is renamed over the old file: without it, a
 * crash soon after the rename can leave an empty secrets.json on ext4/XFS (the rename durable, the data not yet).
 */
function writeDurably(p: string, text: string): void {
  const fd = fs.openSync(p, 'w', 0o600);
  try {
    fs.writeFileSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** fsyncs a folder so that a rename in it is durable; some file systems cannot, and the rename is done anyway. */
function syncFolder(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* not supported here (Windows, some network file systems) */
  }
}
