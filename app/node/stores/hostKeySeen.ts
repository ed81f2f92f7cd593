/**
 * First seen / last seen per host key: a side table next to known_hosts, which has no dates
 * (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"). Kept in `<data folder>/hostkeys.db` (SQLite), its own file so that
 * no other store's migrations are involved. Rows are keyed by the known_hosts host name (`host` or
 * `[host]:port`, see knownHostsName), the key type and the SHA256 fingerprint.
 *
 * - A key Sluice saves (accept and save, replace, add, learned) gets first seen = last seen = now.
 * - A key verified from known_hosts gets last seen = now; if Sluice never saw it saved (written by `ssh`,
 *   by hand, or before this table existed) its first seen stays unknown (`null`).
 *
 * Times are milliseconds since the epoch. Failures to write are the caller's to ignore: dates are informational.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { enableWal } from './sqliteWal';

/** The dates recorded for one key; `null` = unknown. */
export interface HostKeySeenDates {
  firstSeen: number | null;
  lastSeen: number | null;
}

/** One key: known_hosts host name, key type (`ssh-ed25519`), `SHA256:` fingerprint. */
export interface SeenKeyId {
  name: string;
  keyType: string;
  fingerprint: string;
}

/** File name of the side table inside the data folder. */
export const HOSTKEYS_DB = 'hostkeys.db';

const SCHEMA = `CREATE TABLE IF NOT EXISTS seen (
  name TEXT NOT NULL, key_type TEXT NOT NULL, fingerprint TEXT NOT NULL,
  first_seen INTEGER, last_seen INTEGER,
  PRIMARY KEY (name, key_type, fingerprint))`;

/** The first/last-seen table. Synchronous (better-sqlite3); one instance per service or CLI run. */
export class HostKeySeen {
  private constructor(
    private readonly db: Database.Database,
    private readonly clock: () => number,
  ) {}

  /**
   * Opens (creating when missing) `<home>/hostkeys.db`.
   * @param home the data folder; @param clock milliseconds since the epoch (tests pass a fake)
   * @throws Error when the folder cannot be created or the file is not a SQLite database
   */
  static open(home: string, clock: () => number = Date.now): HostKeySeen {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    const db = new Database(path.join(home, HOSTKEYS_DB), { timeout: 5000 });
    try {
      enableWal(db, 5000);
      db.exec(SCHEMA);
    } catch (err) {
      db.close();
      throw err;
    }
    return new HostKeySeen(db, clock);
  }

  /** Records that Sluice saved this key now: first seen (unless already known) and last seen = now. */
  saved(k: SeenKeyId): void {
    const now = this.clock();
    this.db
      .prepare(
        `INSERT INTO seen (name, key_type, fingerprint, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (name, key_type, fingerprint) DO UPDATE SET first_seen = COALESCE(first_seen, excluded.first_seen),
      last_seen = excluded.last_seen`,
      )
      .run(k.name, k.keyType, k.fingerprint, now, now);
  }

  /** Records that this key was verified now (last seen); a key new to the table keeps first seen unknown. */
  verified(k: SeenKeyId): void {
    this.db
      .prepare(
        `INSERT INTO seen (name, key_type, fingerprint, first_seen, last_seen) VALUES (?, ?, ?, NULL, ?)
      ON CONFLICT (name, key_type, fingerprint) DO UPDATE SET last_seen = excluded.last_seen`,
      )
      .run(k.name, k.keyType, k.fingerprint, this.clock());
  }

  /** The dates of one key; both `null` when the table has no row for it. */
  get(k: SeenKeyId): HostKeySeenDates {
    const row = this.db
      .prepare(
        'SELECT first_seen AS firstSeen, last_seen AS lastSeen FROM seen WHERE name = ? AND key_type = ? AND fingerprint = ?',
      )
      .get(k.name, k.keyType, k.fingerprint) as HostKeySeenDates | undefined;
    return row ?? { firstSeen: null, lastSeen: null };
  }

  /** The dates of every key with this fingerprint and type, whatever host name (hashed known_hosts lines hide it). */
  byFingerprint(keyType: string, fingerprint: string): Array<HostKeySeenDates & { name: string }> {
    return this.db
      .prepare(
        'SELECT name, first_seen AS firstSeen, last_seen AS lastSeen FROM seen WHERE key_type = ? AND fingerprint = ?',
      )
      .all(keyType, fingerprint) as Array<HostKeySeenDates & { name: string }>;
  }

  /** Forgets one key's dates (after its known_hosts line was removed). */
  forget(k: SeenKeyId): void {
    this.db
      .prepare('DELETE FROM seen WHERE name = ? AND key_type = ? AND fingerprint = ?')
      .run(k.name, k.keyType, k.fingerprint);
  }

  close(): void {
    this.db.close();
  }
}
