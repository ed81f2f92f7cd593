/**
 * WAL mode for Sluice's SQLite files (queue.db, sluice.db, hostkeys.db), which the app and any number of `sluice`
 * processes open at the same time.
 */
import type Database from 'better-sqlite3';

/** Blocks the thread for `ms` (the stores' APIs are synchronous, as better-sqlite3's is). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Puts the database in WAL mode (https://sqlite.org/wal.html: the mode is kept in the file, so a later open only reads
 * it). The conversion needs exclusive access and SQLite does not run the busy handler for it: while another
 * connection holds a write lock (a second process creating the same file) it fails SQLITE_BUSY at once. So it is
 * retried with backoff (5 ms doubling to 100 ms) for up to `timeoutMs`.
 * @param timeoutMs how long to keep trying, ms (the connection's busy timeout; better-sqlite3's default 5000)
 * @throws better-sqlite3's error: SQLITE_BUSY once `timeoutMs` has passed, any other at once
 */
export function enableWal(db: Database.Database, timeoutMs = 5000): void {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return;
      db.pragma('journal_mode = WAL');
      return;
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw e;
      sleepSync(Math.min(wait, Math.max(1, deadline - Date.now())));
    }
  }
}
