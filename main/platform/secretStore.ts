/**
 * SecretStore over Electron `safeStorage` (OS keychain / DPAPI / libsecret / kwallet): site passwords are
 * encrypted and kept in `<home>/secrets.json` (mode 0600) as base64 ciphertext, keyed by site id.
 * On Linux `safeStorage` may fall back to `basic_text` (a hard-coded key: no real protection); then
 * saving is refused with INSECURE_SECRET_STORAGE unless the user agreed (Settings), with a warning.
 */
import { safeStorage } from 'electron';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SecretStore } from '../../app/node/stores/sites';
import { renameSyncRetrying } from '../../app/node/sys/renameRetry';
import { SluiceError } from '../../app/common/errors';

export interface SafeStorageSecretStoreOptions {
  /** The JSON file holding ciphertexts, e.g. `<home>/secrets.json`. */
  file: string;
  /** Whether the user agreed to store secrets although the backend is `basic_text`. */
  allowInsecure: () => boolean;
  /** Receives a warning when secrets are (or would be) stored without real encryption. */
  warn?: (message: string) => void;
}

export class SafeStorageSecretStore implements SecretStore {
  constructor(private readonly opts: SafeStorageSecretStoreOptions) {}

  /** `backend`: the Linux backend name, or `keychain` / `dpapi`; `secure` false for `basic_text` or none. */
  status(): { backend: string; secure: boolean } {
    if (!safeStorage.isEncryptionAvailable()) return { backend: 'unavailable', secure: false };
    if (process.platform === 'linux') {
      const backend = safeStorage.getSelectedStorageBackend();
      return { backend, secure: backend !== 'basic_text' && backend !== 'unknown' };
    }
    return { backend: process.platform === 'darwin' ? 'keychain' : 'dpapi', secure: true };
  }

  async get(siteId: string): Promise<string | undefined> {
    let all: Record<string, string>;
    try {
      all = this.read();
    } catch (e) {
      // Reported, and the password is asked for; set() and delete() refuse to write over the file.
      this.opts.warn?.((e as Error).message);
      return undefined;
    }
    const stored = all[siteId];
    if (stored === undefined || !safeStorage.isEncryptionAvailable()) return undefined;
    try {
      return safeStorage.decryptString(Buffer.from(stored, 'base64'));
    } catch {
      return undefined; // encrypted under another key (profile moved): ask again
    }
  }

  async set(siteId: string, secret: string): Promise<void> {
    const { secure, backend } = this.status();
    if (backend === 'unavailable')
      throw new SluiceError('INSECURE_SECRET_STORAGE', 'The OS offers no secret storage; the password was not saved');
    if (!secure) {
      if (!this.opts.allowInsecure()) {
        this.opts.warn?.(`Refusing to save a password: secret storage backend is ${backend} (not encrypted)`);
        throw new SluiceError(
          'INSECURE_SECRET_STORAGE',
          `Passwords would be stored without encryption (${backend}); agree in Settings first`,
        );
      }
      this.opts.warn?.(`Saving a password with the ${backend} backend (not encrypted), as agreed in Settings`);
    }
    const all = this.read();
    all[siteId] = safeStorage.encryptString(secret).toString('base64');
    this.write(all);
  }

  async delete(siteId: string): Promise<void> {
    const all = this.read();
    if (!(siteId in all)) return;
    delete all[siteId];
    this.write(all);
  }

  /**
   * The file's entries; {} when it does not exist yet.
   * @throws SluiceError LOCAL_IO naming the file when it cannot be read or is not a JSON object of strings: read as
   *   empty, the next save would replace every other saved password with one entry.
   */
  private read(): Record<string, string> {
    let text: string;
    try {
      text = fs.readFileSync(this.opts.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new SluiceError(
        'LOCAL_IO',
        `Cannot read the saved passwords file ${this.opts.file}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw this.corrupt(`not JSON (${(e as Error).message})`);
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw this.corrupt('not a JSON object');
    const bad = Object.entries(data).find(([, v]) => typeof v !== 'string');
    if (bad) throw this.corrupt(`the entry of ${bad[0]} is not a string`);
    return data as Record<string, string>;
  }

  private corrupt(why: string): SluiceError {
    return new SluiceError(
      'LOCAL_IO',
      `The saved passwords file ${this.opts.file} is damaged: ${why}. It was left as it is; move it aside to start a new one (its passwords are then asked for again)`,
    );
  }

  /** Temporary file, fsync, rename, fsync of the folder: after a crash the file is the old one or the new one. */
  private write(all: Record<string, string>): void {
    const dir = path.dirname(this.opts.file);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${this.opts.file}.${process.pid}.tmp`;
    try {
      const fd = fs.openSync(tmp, 'w', 0o600);
      try {
        fs.writeFileSync(fd, JSON.stringify(all));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      renameSyncRetrying(tmp, this.opts.file);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw new SluiceError(
        'LOCAL_IO',
        `Cannot write the saved passwords file ${this.opts.file}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    syncFolder(dir);
  }
}

/** fsync of a folder makes a rename in it durable (POSIX); Windows cannot open a folder for it. */
function syncFolder(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
