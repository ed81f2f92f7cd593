/**
 * Saved sites (bookmarks) and app settings in SQLite (better-sqlite3, WAL), under the data folder.
 * Secrets never go into this database: passwords live in a {@link SecretStore} keyed by site id.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { normalizeFolder, type Site, type SiteInput } from '../../common/model/site';
import { SluiceError } from '../errors';
import { enableWal } from './sqliteWal';
import { SITE_BOOKMARKS_TABLE, SiteBookmarks } from './siteBookmarks';

/** Where passwords live; the app uses Electron safeStorage, tests and the e2e harness an in-memory map. */
export interface SecretStore {
  /** The stored secret of a site, or undefined. */
  get(siteId: string): Promise<string | undefined>;
  /** Stores (replaces) a site's secret; may throw `{code: 'INSECURE_SECRET_STORAGE'}` when refused. */
  set(siteId: string, secret: string): Promise<void>;
  /** Forgets a site's secret (no error when none). */
  delete(siteId: string): Promise<void>;
  /** Which backend holds secrets and whether it encrypts them (Linux `basic_text` does not). */
  status(): { backend: string; secure: boolean };
}

/** A {@link SecretStore} in process memory (tests, e2e harness): nothing touches disk. */
export class MemorySecretStore implements SecretStore {
  private readonly secrets = new Map<string, string>();
  async get(siteId: string): Promise<string | undefined> {
    return this.secrets.get(siteId);
  }
  async set(siteId: string, secret: string): Promise<void> {
    this.secrets.set(siteId, secret);
  }
  async delete(siteId: string): Promise<void> {
    this.secrets.delete(siteId);
  }
  status(): { backend: string; secure: boolean } {
    return { backend: 'memory', secure: true };
  }
}

export { resolveHome } from './dataDir';

/**
 * Schema migrations; index + 1 = the `user_version` after applying it (SQL, or a step over the open database). Append
 * only.
 */
const MIGRATIONS: ReadonlyArray<string | ((db: Database.Database) => void)> = [
  `CREATE TABLE folders (path TEXT PRIMARY KEY);
   CREATE TABLE sites (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     folder TEXT NOT NULL DEFAULT '',
     host TEXT NOT NULL,
     port INTEGER NOT NULL DEFAULT 22,
     user TEXT NOT NULL,
     auth_method TEXT NOT NULL CHECK (auth_method IN ('agent', 'key', 'password')),
     key_path TEXT, local_dir TEXT, remote_dir TEXT,
     connections INTEGER, channels INTEGER,
     ciphers TEXT,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX sites_folder ON sites(folder);
   CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  'ALTER TABLE sites ADD COLUMN speed_limit INTEGER;',
  'ALTER TABLE sites ADD COLUMN jump_host TEXT;',
  // 4 (#15): the site form's algorithm lists; the cipher lists of the old free-text field tidied (see tidyCipherLists).
  (db) => {
    db.exec(
      'ALTER TABLE sites ADD COLUMN kex TEXT; ALTER TABLE sites ADD COLUMN macs TEXT; ALTER TABLE sites ADD COLUMN host_key_algorithms TEXT;',
    );
    tidyCipherLists(db);
  },
  // 5 (#26 item 3): directory bookmarks per site.
  SITE_BOOKMARKS_TABLE,
];

/**
 * An algorithm list as stored: trimmed names, entries holding several (`"aes128-ctr, aes256-ctr"`) split, duplicates
 * dropped, order kept; null for none (the defaults).
 */
export function tidyAlgorithmList(value: unknown): string[] | null {
  if (!Array.isArray(value)) return null;
  const names = value.flatMap((v) => (typeof v === 'string' ? v.split(/[\s,]+/) : [])).filter((n) => n !== '');
  return names.length ? [...new Set(names)] : null;
}

/**
 * Rows written by the free-text cipher field (schema 3 and before): an empty list means the defaults (NULL now, as
 * the site form's lists store it), a list that is not JSON too; other lists are tidied ({@link tidyAlgorithmList}).
 */
function tidyCipherLists(db: Database.Database): void {
  const rows = db.prepare('SELECT id, ciphers FROM sites WHERE ciphers IS NOT NULL').all() as Array<{
    id: string;
    ciphers: string;
  }>;
  const update = db.prepare('UPDATE sites SET ciphers = ? WHERE id = ?');
  for (const r of rows) {
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(r.ciphers);
    } catch {
      /* not JSON: the defaults */
    }
    const list = tidyAlgorithmList(parsed);
    update.run(list ? JSON.stringify(list) : null, r.id);
  }
}

interface SiteRow {
  id: string;
  name: string;
  folder: string;
  host: string;
  port: number;
  user: string;
  auth_method: Site['authMethod'];
  key_path: string | null;
  local_dir: string | null;
  remote_dir: string | null;
  connections: number | null;
  channels: number | null;
  ciphers: string | null;
  speed_limit: number | null;
  jump_host: string | null;
  kex: string | null;
  macs: string | null;
  host_key_algorithms: string | null;
  created_at: number;
  updated_at: number;
}

/** A stored algorithm list (JSON), or undefined for the defaults. */
function listOf(column: string | null): string[] | undefined {
  if (column === null) return undefined;
  const list = tidyAlgorithmList(JSON.parse(column));
  return list ?? undefined;
}

/** An algorithm list to store: JSON, or null for none (absent or empty: the defaults). */
function listColumn(list: string[] | undefined): string | null {
  const tidy = tidyAlgorithmList(list);
  return tidy ? JSON.stringify(tidy) : null;
}

function rowToSite(r: SiteRow): Site {
  const site: Site = {
    id: r.id,
    name: r.name,
    folder: r.folder,
    host: r.host,
    port: r.port,
    user: r.user,
    authMethod: r.auth_method,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  if (r.key_path !== null) site.keyPath = r.key_path;
  if (r.local_dir !== null) site.localDir = r.local_dir;
  if (r.remote_dir !== null) site.remoteDir = r.remote_dir;
  if (r.connections !== null) site.connections = r.connections;
  if (r.channels !== null) site.channels = r.channels;
  const lists = {
    ciphers: listOf(r.ciphers),
    kex: listOf(r.kex),
    macs: listOf(r.macs),
    hostKeyAlgorithms: listOf(r.host_key_algorithms),
  };
  for (const [k, v] of Object.entries(lists)) if (v) site[k as keyof typeof lists] = v;
  if (r.speed_limit !== null) site.speedLimit = r.speed_limit;
  if (r.jump_host !== null) site.jumpHost = r.jump_host;
  return site;
}

/** Every ancestor of a folder path, itself included: `a/b/c` -> `a`, `a/b`, `a/b/c`. */
function withAncestors(folder: string): string[] {
  const parts = folder.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/')).filter((p) => p.length > 0);
}

/** The LOCAL_IO error for a failure of the sites database `file`, naming it (a SluiceError passes unchanged). */
function sitesDbError(file: string, e: unknown): SluiceError {
  if (e instanceof SluiceError) return e;
  const code = (e as { code?: unknown }).code;
  const sqlite = typeof code === 'string' ? ` (${code})` : '';
  return new SluiceError('LOCAL_IO', `Sites database ${file}: ${(e as Error).message}${sqlite}`, { cause: e });
}

function openSitesDb(file: string): Database.Database {
  try {
    return new Database(file);
  } catch (e) {
    throw sitesDbError(file, e);
  }
}

/** Sites, folders and settings in `<home>/sluice.db`. Synchronous (better-sqlite3); one instance per process. */
export class SitesStore {
  private readonly db: Database.Database;
  /** Unsaved sites (the app's quick connect): found by {@link get} until the store closes, never listed nor written. */
  private readonly transient = new Map<string, Site>();
  /** The saved sites' directory bookmarks (stores/siteBookmarks.ts). */
  readonly bookmarks: SiteBookmarks;

  /**
   * Opens (creating if needed) `<home>/sluice.db`, in WAL mode, and applies pending migrations.
   * @param home data folder, e.g. from {@link resolveHome}; created with mode 0700
   * @param clock milliseconds since the epoch (injected for tests)
   * @throws SluiceError LOCAL_IO naming the file when it cannot be opened or is not a database (a corrupt or
   *   foreign file: SQLite's own message and code, e.g. "file is not a database (SQLITE_NOTADB)"; better-sqlite3's
   *   error as the cause)
   */
  constructor(
    home: string,
    private readonly clock: () => number = Date.now,
  ) {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    const file = path.join(home, 'sluice.db');
    this.db = openSitesDb(file);
    try {
      enableWal(this.db);
      this.db.pragma('foreign_keys = ON');
      this.migrate();
    } catch (e) {
      this.db.close();
      throw sitesDbError(file, e);
    }
    this.bookmarks = new SiteBookmarks(this.db, clock);
  }

  /** Schema version (`PRAGMA user_version`). */
  get schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  private migrate(): void {
    const from = this.schemaVersion;
    for (let v = from; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        const step = MIGRATIONS[v];
        if (typeof step === 'string') this.db.exec(step);
        else step(this.db);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
  }

  /** All folders (explicit and implied by sites, with ancestors), sorted, and all sites sorted by folder then name. */
  list(): { folders: string[]; sites: Site[] } {
    const sites = (
      this.db.prepare('SELECT * FROM sites ORDER BY folder, name COLLATE NOCASE, created_at').all() as SiteRow[]
    ).map(rowToSite);
    const folders = new Set<string>();
    for (const { path: p } of this.db.prepare('SELECT path FROM folders').all() as Array<{ path: string }>) {
      for (const a of withAncestors(p)) folders.add(a);
    }
    for (const s of sites) for (const a of withAncestors(s.folder)) folders.add(a);
    return { folders: [...folders].sort(), sites };
  }

  /** Makes an unsaved site reachable by {@link get} (its id must not be a saved site's). */
  addTransient(site: Site): void {
    this.transient.set(site.id, site);
  }

  /** One site (saved, or unsaved through {@link addTransient}), or undefined. */
  get(id: string): Site | undefined {
    const t = this.transient.get(id);
    if (t) return t;
    const row = this.db.prepare('SELECT * FROM sites WHERE id = ?').get(id) as SiteRow | undefined;
    return row ? rowToSite(row) : undefined;
  }

  /**
   * Creates (no `id`) or updates (`id` of an existing site) a site. Optional fields left out are cleared.
   * @throws SluiceError NOT_FOUND when `id` names no site
   */
  save(input: SiteInput): Site {
    const now = this.clock();
    const folder = normalizeFolder(input.folder);
    const values = {
      name: input.name.trim(),
      folder,
      host: input.host.trim(),
      port: input.port,
      user: input.user.trim(),
      auth_method: input.authMethod,
      key_path: input.keyPath ?? null,
      local_dir: input.localDir ?? null,
      remote_dir: input.remoteDir ?? null,
      connections: input.connections ?? null,
      channels: input.channels ?? null,
      ciphers: listColumn(input.ciphers),
      kex: listColumn(input.kex),
      macs: listColumn(input.macs),
      host_key_algorithms: listColumn(input.hostKeyAlgorithms),
      speed_limit: input.speedLimit ?? null,
      jump_host: input.jumpHost?.trim() || null,
    };
    if (input.id) {
      const res = this.db
        .prepare(
          `UPDATE sites SET name=@name, folder=@folder, host=@host, port=@port, user=@user,
        auth_method=@auth_method, key_path=@key_path, local_dir=@local_dir, remote_dir=@remote_dir,
        connections=@connections, channels=@channels, ciphers=@ciphers, kex=@kex, macs=@macs, host_key_algorithms=@host_key_algorithms,
        speed_limit=@speed_limit, jump_host=@jump_host, updated_at=@now WHERE id=@id`,
        )
        .run({ ...values, now, id: input.id });
      if (res.changes === 0) throw new SluiceError('NOT_FOUND', `No site with id ${input.id}`);
      return this.get(input.id)!;
    }
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO sites (id, name, folder, host, port, user, auth_method, key_path, local_dir, remote_dir,
      connections, channels, ciphers, kex, macs, host_key_algorithms, speed_limit, jump_host, created_at, updated_at) VALUES (@id, @name, @folder,
      @host, @port, @user, @auth_method, @key_path, @local_dir, @remote_dir, @connections, @channels, @ciphers, @kex, @macs, @host_key_algorithms,
      @speed_limit, @jump_host, @now, @now)`,
      )
      .run({ ...values, id, now });
    return this.get(id)!;
  }

  /** Deletes a site; returns false when there was none. The caller forgets its secret. */
  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM sites WHERE id = ?').run(id).changes > 0;
  }

  /**
   * Copies a site and its bookmarks under a new id, named "<name> (copy)" (or "(copy 2)", … when taken in the same
   * folder).
   * @throws SluiceError NOT_FOUND
   */
  duplicate(id: string): Site {
    const site = this.get(id);
    if (!site) throw new SluiceError('NOT_FOUND', `No site with id ${id}`);
    const taken = new Set(
      (this.db.prepare('SELECT name FROM sites WHERE folder = ?').all(site.folder) as Array<{ name: string }>).map(
        (r) => r.name,
      ),
    );
    let name = `${site.name} (copy)`;
    for (let n = 2; taken.has(name) && n < 10_000; n++) name = `${site.name} (copy ${n})`;
    const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = site;
    const copy = this.save({ ...rest, name });
    this.bookmarks.copy(this.bookmarks.list(id), copy.id);
    return copy;
  }

  /** Creates an (empty) folder; creating an existing one is a no-op. Returns the normalised path. */
  createFolder(folder: string): string {
    const p = normalizeFolder(folder);
    if (!p) throw new SluiceError('INVALID_REQUEST', 'Folder name is empty');
    this.db.prepare('INSERT OR IGNORE INTO folders (path) VALUES (?)').run(p);
    return p;
  }

  /**
   * Deletes an empty folder.
   * @throws SluiceError FOLDER_NOT_EMPTY when a site or a subfolder is inside, NOT_FOUND when it does not exist
   */
  deleteFolder(folder: string): void {
    const p = normalizeFolder(folder);
    if (!this.list().folders.includes(p)) throw new SluiceError('NOT_FOUND', `No folder ${p}`);
    const prefix = `${p}/`;
    const used = this.db
      .prepare('SELECT 1 FROM sites WHERE folder = ? OR substr(folder, 1, ?) = ? LIMIT 1')
      .get(p, prefix.length, prefix);
    const sub = this.db
      .prepare('SELECT 1 FROM folders WHERE substr(path, 1, ?) = ? LIMIT 1')
      .get(prefix.length, prefix);
    if (used || sub) throw new SluiceError('FOLDER_NOT_EMPTY', `Folder ${p} is not empty`);
    this.db.prepare('DELETE FROM folders WHERE path = ?').run(p);
  }

  /** A setting's JSON value, or undefined. */
  getSetting<T>(key: string): T | undefined {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  /** Stores a setting as JSON. */
  setSetting(key: string, value: unknown): void {
    this.db
      .prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(key, JSON.stringify(value));
  }

  close(): void {
    this.db.close();
  }
}
