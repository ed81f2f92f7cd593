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
    fs.writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    renameSyncRetrying(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw fromLocalError(e, file, 'write');
  }
  return true;
}
