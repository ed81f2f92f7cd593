/**
 * The stored listing of a two-way sync (twoWay.ts): what both sides held after the last completed run of one pair of
 * folders on one server, kept as a JSON file in the data folder, `<data folder>/sync-state/<key>.json`, where the key
 * is a hash of the server (user@host:port), the local folder and the remote folder. The file is replaced whole (a
 * temporary file renamed over it), so a run killed while writing it leaves the previous one; it is written only after
 * a run completed (every copy and deletion done, every listing complete).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SluiceError, fromLocalError } from '../errors';
import type { SideState, StoredEntry } from './twoWay';

/** The pair a stored listing belongs to. */
export interface SyncPairKey {
  /** user@host:port (stores/queueRows.ts formatTarget). */
  server: string;
  /** Absolute. */
  localRoot: string;
  /** Absolute on the server (`~` expanded). */
  remoteRoot: string;
}

const VERSION = 1;

/** On disk: entries as `[path, kind, localSize, localMtime, remoteSize, remoteMtime]` (a folder: the first two). */
interface StateFile extends SyncPairKey {
  version: number;
  savedAt: string;
  entries: Array<[string, 'f' | 'd', ...number[]]>;
}

/** The file holding the stored listing of `key` below the data folder `home`. */
export function syncStatePath(home: string, key: SyncPairKey): string {
  const h = createHash('sha256')
    .update(JSON.stringify([key.server, key.localRoot, key.remoteRoot]))
    .digest('hex');
  return path.join(home, 'sync-state', `${h.slice(0, 32)}.json`);
}

/**
 * Reads the stored listing of `key`.
 * @returns undefined when there is none (a first run), the entries by path otherwise
 * @throws SluiceError LOCAL_IO when the file exists but cannot be read or is not a listing of this pair (it is not
 *   silently taken as a first run: that would copy everything back)
 */
export function readSyncState(home: string, key: SyncPairKey): Map<string, StoredEntry> | undefined {
  const file = syncStatePath(home, key);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fromLocalError(e, file);
  }
  let doc: StateFile;
  try {
    doc = JSON.parse(text) as StateFile;
  } catch (e) {
    throw new SluiceError('LOCAL_IO', `the stored listing ${file} is damaged (${(e as Error).message}): remove it`);
  }
  if (
    doc.version !== VERSION ||
    doc.server !== key.server ||
    doc.localRoot !== key.localRoot ||
    doc.remoteRoot !== key.remoteRoot ||
    !Array.isArray(doc.entries)
  )
    throw new SluiceError('LOCAL_IO', `the stored listing ${file} is not one of this pair of folders: remove it`);
  const out = new Map<string, StoredEntry>();
  for (const [p, k, ls, lm, rs, rm] of doc.entries) {
    const st = (size?: number, mtimeMs?: number): SideState | undefined =>
      size === undefined || mtimeMs === undefined ? undefined : { size, mtimeMs };
    out.set(p, k === 'd' ? { kind: 'dir' } : { kind: 'file', local: st(ls, lm), remote: st(rs, rm) });
  }
  return out;
}

/**
 * Replaces the stored listing of `key` with `entries` (atomically: a temporary file renamed over it).
 * @returns the file's path
 * @throws SluiceError LOCAL_IO / DISK_FULL when it cannot be written
 */
export function writeSyncState(home: string, key: SyncPairKey, entries: ReadonlyMap<string, StoredEntry>): string {
  const file = syncStatePath(home, key);
  const rows: StateFile['entries'] = [];
  for (const [p, e] of entries) {
    if (e.kind === 'dir') rows.push([p, 'd']);
    else if (e.local && e.remote) rows.push([p, 'f', e.local.size, e.local.mtimeMs, e.remote.size, e.remote.mtimeMs]);
  }
  const doc: StateFile = { version: VERSION, ...key, savedAt: new Date().toISOString(), entries: rows };
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(tmp, JSON.stringify(doc));
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw fromLocalError(e, file);
  }
  return file;
}
