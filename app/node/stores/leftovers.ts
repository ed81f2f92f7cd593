/**
 * Remote files Sluice knows it left behind, to be dealt with on the next connection to that server: an upload's
 * temporary file whose removal could not be sent (the connection was lost), and the old copy of a target moved aside
 * by a commit on a server without `posix-rename@openssh.com` (recorded before the move, so a kill between the two
 * renames is recovered: the old copy goes back under its name if the new file never arrived).
 *
 * One small JSON file per entry under `<data folder>/leftovers/`, named by a hash of the server, so concurrent runs
 * (the app and the CLI) never rewrite each other's entries.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A remote file left behind: a temporary file to remove, or a target's old copy moved aside (`aside`). */
export interface Leftover {
  kind: 'temp' | 'aside';
  /** Remote path of the leftover file. */
  path: string;
  /** For `aside`: the target it was moved away from. */
  target?: string;
}

/** The server (and login) a journal speaks for. */
export interface ServerKey {
  host: string;
  port: number;
  user: string;
}

/**
 * The leftovers recorded for one server. Every method is best effort: a journal that cannot be written loses nothing.
 */
export class LeftoverJournal {
  private readonly folder: string;
  private readonly prefix: string;
  readonly dataDir: string;

  /**
   * @param dataDir the data folder (stores/dataDir.ts resolveHome), its `leftovers/` folder is created on first record
   * @param server host, port and user of the connection
   */
  constructor(dataDir: string, server: ServerKey) {
    this.dataDir = dataDir;
    this.folder = path.join(dataDir, 'leftovers');
    this.prefix = createHash('sha256')
      .update(`${server.user}@${server.host}:${server.port}`)
      .digest('hex')
      .slice(0, 16);
  }

  /**
   * Records `entry` durably (written and fsynced) before the remote operation that may leave it.
   * @returns the entry's id for {@link forget}, or null when it could not be written
   */
  record(entry: Leftover): string | null {
    const id = `${this.prefix}-${randomBytes(6).toString('hex')}.json`;
    try {
      fs.mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      const fd = fs.openSync(path.join(this.folder, id), 'wx', 0o600);
      try {
        fs.writeSync(fd, JSON.stringify(entry));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      return id;
    } catch {
      return null;
    }
  }

  /** Drops an entry once its file was dealt with. */
  forget(id: string | null): void {
    if (id) fs.rmSync(path.join(this.folder, id), { force: true });
  }

  /** The entries recorded for this server (unreadable ones are dropped). */
  pending(): Array<{ id: string; entry: Leftover }> {
    let names: string[];
    try {
      names = fs.readdirSync(this.folder).filter((n) => n.startsWith(`${this.prefix}-`) && n.endsWith('.json'));
    } catch {
      return [];
    }
    return names.flatMap((id) => {
      try {
        const entry = JSON.parse(fs.readFileSync(path.join(this.folder, id), 'utf8')) as Leftover;
        if ((entry.kind === 'temp' || entry.kind === 'aside') && typeof entry.path === 'string') return [{ id, entry }];
      } catch {
        // a half-written entry (killed while recording): its rename had not started
      }
      this.forget(id);
      return [];
    });
  }
}

/** The remote operations {@link cleanLeftovers} needs (a ConnectionPool provides them). */
export interface LeftoverRemote {
  exists(path: string): Promise<boolean>;
  remove(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

/**
 * Deals with every leftover recorded for this server: temporary files are removed; an old copy moved aside is
 * removed when its target exists (the commit finished), else renamed back (the new file never arrived). An entry is
 * forgotten once done, or when its file is already gone; one that fails stays for the next connection.
 * @returns how many entries were dealt with
 */
export async function cleanLeftovers(journal: LeftoverJournal, remote: LeftoverRemote): Promise<number> {
  let done = 0;
  for (const { id, entry } of journal.pending()) {
    try {
      if (!(await remote.exists(entry.path))) {
        journal.forget(id);
        continue;
      }
      if (entry.kind === 'aside' && entry.target && !(await remote.exists(entry.target)))
        await remote.rename(entry.path, entry.target);
      else await remote.remove(entry.path);
      journal.forget(id);
      done++;
    } catch {
      // kept for the next connection
    }
  }
  return done;
}
