/**
 * The persistent transfer queue's database (issue #14): one SQLite file, `<data folder>/queue.db`, shared by the
 * app and any number of CLI processes at once. WAL (readers never block the writer), `busy_timeout` (a writer waits
 * for another's short transaction instead of failing), `synchronous = NORMAL` (a killed process loses nothing it
 * committed; a power cut may lose the last commits but never corrupts the file — every table here can fall
 * behind the truth without harm: a range journal that says less is resent, see rangeJournal.ts) and foreign keys
 * (deleting a job deletes its files, ranges and lease). Schema changes are the {@link QUEUE_MIGRATIONS} list,
 * applied in order under `PRAGMA user_version`.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { SluiceError } from '../errors';
import { resolveHome } from './dataDir';
import { enableWal } from './sqliteWal';

/** The file name inside the data folder. */
export const QUEUE_DB_FILE = 'queue.db';

/** How long a statement waits for another process's write transaction before failing with SQLITE_BUSY (ms). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

const JOB_STATES_SQL = "('queued', 'running', 'paused', 'done', 'failed', 'cancelled')";
const FILE_STATES_SQL = "('planned', 'moving', 'verifying', 'committed', 'skipped', 'failed')";

/**
 * Schema migrations: applying `QUEUE_MIGRATIONS[v]` takes `user_version` from v to v + 1. Append only; never edit
 * a released entry (a database in the field is at any older version).
 */
export const QUEUE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE jobs (
     seq INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     batch_id TEXT NOT NULL,
     target TEXT NOT NULL,
     direction TEXT NOT NULL CHECK (direction IN ('upload', 'download')),
     source TEXT NOT NULL,
     dest TEXT NOT NULL,
     state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ${JOB_STATES_SQL}),
     priority INTEGER NOT NULL DEFAULT 0,
     position INTEGER NOT NULL,
     conflict TEXT NOT NULL CHECK (conflict IN ('ask', 'overwrite', 'skip', 'rename')),
     options TEXT NOT NULL DEFAULT '{}',
     bytes_done INTEGER NOT NULL DEFAULT 0,
     bytes_total INTEGER NOT NULL DEFAULT 0,
     files_done INTEGER NOT NULL DEFAULT 0,
     files_total INTEGER NOT NULL DEFAULT 0,
     error_code TEXT,
     error_message TEXT,
     created_at INTEGER NOT NULL,
     started_at INTEGER,
     finished_at INTEGER
   );
   CREATE INDEX jobs_order ON jobs (priority DESC, position, seq);
   CREATE INDEX jobs_runnable ON jobs (state, priority DESC, position, seq);
   CREATE INDEX jobs_position ON jobs (position);
   CREATE INDEX jobs_batch ON jobs (batch_id);
   CREATE INDEX jobs_key ON jobs (source, dest, direction, target);

   CREATE TABLE job_files (
     id INTEGER PRIMARY KEY,
     job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
     source TEXT NOT NULL,
     target TEXT NOT NULL,
     size INTEGER NOT NULL CHECK (size >= 0),
     mtime_ms INTEGER,
     fingerprint TEXT,
     temp_name TEXT NOT NULL,
     state TEXT NOT NULL DEFAULT 'planned' CHECK (state IN ${FILE_STATES_SQL}),
     error_code TEXT,
     error_message TEXT,
     UNIQUE (job_id, source)
   );

   CREATE TABLE file_ranges (
     file_id INTEGER NOT NULL REFERENCES job_files (id) ON DELETE CASCADE,
     start INTEGER NOT NULL CHECK (start >= 0),
     end INTEGER NOT NULL CHECK (end > start),
     PRIMARY KEY (file_id, start)
   ) WITHOUT ROWID;

   CREATE TABLE leases (
     job_id TEXT PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
     token TEXT NOT NULL,
     pid INTEGER NOT NULL,
     host TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     acquired_at INTEGER NOT NULL,
     heartbeat_at INTEGER NOT NULL
   );`,
];

/** Where and how to open the queue database. */
export interface QueueDbOptions {
  /** Data folder (created with mode 0700); default {@link resolveHome}() (`SLUICE_HOME` overrides). */
  home?: string;
  /** A database file path instead of `<home>/queue.db` (tests), or `':memory:'`. */
  file?: string;
  /** See {@link DEFAULT_BUSY_TIMEOUT_MS}. */
  busyTimeoutMs?: number;
  /** The migration list (tests give a prefix to build older versions); default {@link QUEUE_MIGRATIONS}. */
  migrations?: readonly string[];
}

/** An open queue database: the better-sqlite3 handle (for the stores/ modules only) and its transactions. */
export interface QueueDb {
  readonly db: Database.Database;
  /** The database file (`':memory:'` for an in-memory one). */
  readonly file: string;
  /** `PRAGMA user_version` after migrating. */
  readonly schemaVersion: number;
  /**
   * Runs `fn` in a `BEGIN IMMEDIATE` transaction (the write lock is taken first, waiting up to the busy timeout,
   * so a read-then-write never fails on a lock upgrade); nested calls become savepoints. Keep `fn` short: every
   * other writer of the queue waits for it.
   */
  write<T>(fn: () => T): T;
  /** Runs `fn` in a deferred (read) transaction: one consistent snapshot across its statements. */
  read<T>(fn: () => T): T;
  /** The prepared statement for `sql`, prepared once per connection. */
  stmt(sql: string): Database.Statement;
  close(): void;
}

/** Applies the pending migrations, each in its own immediate transaction that re-reads the version first. */
function migrate(db: Database.Database, migrations: readonly string[], file: string): number {
  const version = (): number => db.pragma('user_version', { simple: true }) as number;
  for (;;) {
    const v = db
      .transaction(() => {
        const current = version();
        if (current > migrations.length) {
          throw new SluiceError(
            'INVALID_STATE',
            `${file} has queue schema version ${current}, newer than this Sluice knows (${migrations.length}); update Sluice`,
          );
        }
        if (current === migrations.length) return current;
        db.exec(migrations[current]);
        db.pragma(`user_version = ${current + 1}`);
        return current + 1;
      })
      .immediate();
    if (v === migrations.length) return v;
  }
}

/**
 * Runs `fn`, turning a database failure (SQLITE_BUSY after the busy timeout, SQLITE_FULL, SQLITE_IOERR, a
 * constraint) into a LOCAL_IO {@link SluiceError} naming the file; a SluiceError passes unchanged.
 */
function guarded<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SluiceError) throw e;
    const code = (e as { code?: unknown }).code;
    const reason = code === 'SQLITE_FULL' ? 'DISK_FULL' : 'LOCAL_IO';
    throw new SluiceError(
      reason,
      `Queue database ${file}: ${(e as Error).message}${typeof code === 'string' ? ` (${code})` : ''}`,
      { cause: e },
    );
  }
}

/**
 * Opens (creating if needed) the queue database and brings its schema up to date.
 * @throws SluiceError INVALID_STATE when the file's schema is newer than this build's; LOCAL_IO when the folder or
 *   file cannot be created or opened (better-sqlite3's error as the cause)
 */
export function openQueueDb(opts: QueueDbOptions = {}): QueueDb {
  const file = opts.file ?? path.join(opts.home ?? resolveHome(), QUEUE_DB_FILE);
  let db: Database.Database;
  const busyTimeoutMs = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  try {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    db = new Database(file, { timeout: busyTimeoutMs });
  } catch (e) {
    throw new SluiceError('LOCAL_IO', `Cannot open the queue database ${file}: ${(e as Error).message}`, { cause: e });
  }
  try {
    const schemaVersion = guarded(file, () => {
      enableWal(db, busyTimeoutMs);
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      return migrate(db, opts.migrations ?? QUEUE_MIGRATIONS, file);
    });
    const prepared = new Map<string, Database.Statement>();
    // One transaction function for every call (fn is its argument): better-sqlite3 builds four wrappers per
    // db.transaction(), which cost more than the statements of a small write (thousands per sync batch).
    const tx = db.transaction(<T>(fn: () => T): T => fn());
    return {
      db,
      file,
      schemaVersion,
      stmt: (sql: string): Database.Statement => {
        let st = prepared.get(sql);
        if (!st) prepared.set(sql, (st = guarded(file, () => db.prepare(sql))));
        return st;
      },
      write: <T>(fn: () => T): T => guarded(file, () => tx.immediate(fn) as T),
      read: <T>(fn: () => T): T => guarded(file, () => tx.deferred(fn) as T),
      close: () => db.close(),
    };
  } catch (e) {
    db.close();
    throw e;
  }
}
