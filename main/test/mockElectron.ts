/**
 * A fake `electron` module for unit tests of main/ (the Electron binary is not installed here).
 * Installing it makes every later `require('electron')` return {@link electronMock}; tests then load the
 * module under test with `require()` and inspect what it registered. Pattern: electron/fiddle tests/setup.ts.
 */
import Module from 'node:module';
import { EventEmitter } from 'node:events';

type Handler = (event: unknown, ...args: unknown[]) => unknown;

/** A minimal webContents: an EventEmitter plus the calls hardenWebContents and attachWindow make. */
export class FakeWebContents extends EventEmitter {
  windowOpenHandler?: (details: { url: string }) => { action: string };
  permissionRequestHandler?: (
    wc: unknown,
    permission: string,
    callback: (granted: boolean) => void,
    details?: unknown,
  ) => void;
  permissionCheckHandler?: (...args: unknown[]) => boolean;
  sent: Array<{ channel: string; payload: unknown }> = [];
  destroyed = false;
  readonly session = {
    setPermissionRequestHandler: (h: FakeWebContents['permissionRequestHandler']) => {
      this.permissionRequestHandler = h;
    },
    setPermissionCheckHandler: (h: FakeWebContents['permissionCheckHandler']) => {
      this.permissionCheckHandler = h;
    },
  };
  setWindowOpenHandler(h: FakeWebContents['windowOpenHandler']): void {
    this.windowOpenHandler = h;
  }
  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

export const electronMock = {
  ipcMain: {
    handlers: new Map<string, Handler>(),
    handle(channel: string, fn: Handler): void {
      if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      this.handlers.set(channel, fn);
    },
    removeHandler(channel: string): void {
      this.handlers.delete(channel);
    },
  },
  ipcRenderer: {
    invoked: [] as Array<{ channel: string; payload: unknown }>,
    listeners: new EventEmitter(),
    invoke(channel: string, payload: unknown): Promise<unknown> {
      this.invoked.push({ channel, payload });
      return Promise.resolve({ ok: true, value: channel });
    },
    on(channel: string, fn: (...a: unknown[]) => void): void {
      this.listeners.on(channel, fn);
    },
    removeListener(channel: string, fn: (...a: unknown[]) => void): void {
      this.listeners.removeListener(channel, fn);
    },
  },
  contextBridge: {
    exposed: new Map<string, unknown>(),
    exposeInMainWorld(key: string, api: unknown): void {
      this.exposed.set(key, api);
    },
  },
  webUtils: {
    getPathForFile: (file: { path?: string }): string => file.path ?? '',
  },
  shell: {
    opened: [] as string[],
    openExternal(url: string): Promise<void> {
      this.opened.push(url);
      return Promise.resolve();
    },
    /** Files given to openPath, and what it answers ('' = opened, else the OS's error). */
    openedPaths: [] as string[],
    openPathAnswer: '',
    openPath(file: string): Promise<string> {
      this.openedPaths.push(file);
      return Promise.resolve(this.openPathAnswer);
    },
  },
  safeStorage: {
    available: true,
    backend: 'gnome_libsecret' as string,
    isEncryptionAvailable(): boolean {
      return this.available;
    },
    getSelectedStorageBackend(): string {
      return this.backend;
    },
    encryptString(s: string): Buffer {
      return Buffer.from(`enc:${Buffer.from(s).toString('hex')}`);
    },
    decryptString(b: Buffer): string {
      const text = b.toString();
      if (!text.startsWith('enc:')) throw new Error('bad ciphertext');
      return Buffer.from(text.slice(4), 'hex').toString();
    },
  },
  protocol: {
    registered: [] as unknown[],
    handlers: new Map<string, (req: { url: string; method: string }) => Promise<unknown>>(),
    registerSchemesAsPrivileged(schemes: unknown[]): void {
      this.registered.push(...schemes);
    },
    handle(scheme: string, fn: (req: { url: string; method: string }) => Promise<unknown>): void {
      this.handlers.set(scheme, fn);
    },
  },
  powerSaveBlocker: {
    next: 1,
    active: new Map<number, string>(),
    start(type: string): number {
      const id = this.next++;
      this.active.set(id, type);
      return id;
    },
    stop(id: number): void {
      this.active.delete(id);
    },
  },
  Notification: class {
    static supported = true;
    static shown: Array<{ title: string; body: string }> = [];
    static isSupported(): boolean {
      return this.supported;
    }
    constructor(readonly options: { title: string; body: string }) {}
    show(): void {
      (this.constructor as unknown as { shown: unknown[] }).shown.push(this.options);
    }
  },
  BrowserWindow: class {
    static created: unknown[] = [];
    constructor(readonly options: unknown) {
      (this.constructor as unknown as { created: unknown[] }).created.push(options);
    }
  },
};

let installed = false;

/** Routes `require('electron')` to {@link electronMock} for the rest of the process. Idempotent. */
export function installElectronMock(): typeof electronMock {
  if (installed) return electronMock;
  installed = true;
  const mod = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown };
  const original = mod._load;
  mod._load = function load(request: string, parent: unknown, isMain: boolean): unknown {
    if (request === 'electron') return electronMock;
    return original.call(this, request, parent, isMain);
  };
  return electronMock;
}
