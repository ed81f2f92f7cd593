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
    const stored = this.read()[siteId];
    if (stored === undefined || !safeStorage.isEncryptionAvailable()) return undefined;
    try {
      return safeStorage.decryptString(Buffer.from(stored, 'base64'));
    } catch {
      return undefined; // encrypted under another key (profile moved): ask again
    }
  }

  async set(siteId: string, secret: string): Promise<void> {
    const { secure, backend } = this.status();
    if (backend === 'unavailable') throw new SluiceError('INSECURE_SECRET_STORAGE', 'The OS offers no secret storage; the password was not saved');
    if (!secure) {
      if (!this.opts.allowInsecure()) {
        this.opts.warn?.(`Refusing to save a password: secret storage backend is ${backend} (not encrypted)`);
        throw new SluiceError('INSECURE_SECRET_STORAGE', `Passwords would be stored without encryption (${backend}); agree in Settings first`);
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

  private read(): Record<string, string> {
    try {
      const data = JSON.parse(fs.readFileSync(this.opts.file, 'utf8')) as unknown;
      return typeof data === 'object' && data !== null ? (data as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  private write(all: Record<string, string>): void {
    fs.mkdirSync(path.dirname(this.opts.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.opts.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    fs.renameSync(tmp, this.opts.file);
  }
}
