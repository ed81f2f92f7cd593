/**
 * The private copies of edited files: `<data folder>/edits/<editId>/` (mode 0700) holds the file under its remote
 * base name and `edit.json`, what Sluice must remember of the edit across a restart (the site, the remote path, the
 * version last seen on the server, the hash of the content last uploaded or downloaded).
 */
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RemoteVersion } from '../../common/model/edit';
import { SluiceError } from '../errors';

/** What `edit.json` keeps. */
export interface EditRecord {
  editId: string;
  siteId: string;
  remotePath: string;
  /** The private copy's name in the folder (the remote base name at open; it stays after "save under another name"). */
  localName: string;
  /** The remote version the next upload expects (opened, or left by our last upload); null until downloaded. */
  expected: RemoteVersion | null;
  /** sha256 (hex) of the content the server has from us (downloaded or uploaded); null until downloaded. */
  syncedHash: string | null;
  uploadedAt?: number;
}

const META = 'edit.json';

/** The folder holding every edit's private folder. */
export function editsRoot(home: string): string {
  return path.join(home, 'edits');
}

/**
 * Makes a new private folder for an edit of `remotePath` (mode 0700, its parent too).
 * @returns the edit's id, its folder and the local path the file will have (the remote base name inside it)
 */
export function makePrivateFolder(
  home: string,
  remotePath: string,
): { editId: string; dir: string; localPath: string } {
  const name = path.posix.basename(remotePath);
  if (name === '' || name === '.' || name === '..' || /[\\\0]/.test(name)) {
    throw new SluiceError('UNSAFE_NAME', `Cannot edit ${remotePath}: its name cannot be a local file's name`);
  }
  const root = editsRoot(home);
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  fs.chmodSync(root, 0o700);
  const editId = randomUUID();
  const dir = path.join(root, editId);
  fs.mkdirSync(dir, { mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  return { editId, dir, localPath: path.join(dir, name) };
}

/** Writes `edit.json` (temporary name, then rename: a crash leaves the old record or the new one). */
export function saveRecord(dir: string, record: EditRecord): void {
  const tmp = path.join(dir, `.${META}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(record), { mode: 0o600 });
  fs.renameSync(tmp, path.join(dir, META));
}

/** The edits a previous run left: each private folder with a readable `edit.json` (others are skipped). */
export function loadRecords(home: string): Array<{ dir: string; record: EditRecord }> {
  const root = editsRoot(home);
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  const out: Array<{ dir: string; record: EditRecord }> = [];
  for (const name of names.slice(0, 10_000)) {
    const dir = path.join(root, name);
    try {
      const record = JSON.parse(fs.readFileSync(path.join(dir, META), 'utf8')) as EditRecord;
      if (record.editId === name && typeof record.remotePath === 'string') out.push({ dir, record });
    } catch {
      /* not an edit folder, or one whose download never finished */
    }
  }
  return out;
}

/** Removes an edit's private folder and everything in it. */
export function removePrivateFolder(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** sha256 (hex) of a local file's content; null when it does not exist. */
export async function hashFile(file: string): Promise<string | null> {
  try {
    return createHash('sha256')
      .update(await fs.promises.readFile(file))
      .digest('hex');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
