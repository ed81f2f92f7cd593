/**
 * Edits of a known_hosts file beyond appending (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"): removing lines and
 * replacing a host's key. Every edit rewrites the file safely: the new text goes to a temporary file in the same
 * folder, is fsynced, keeps the old file's mode, and is renamed over the old one; every line not removed is kept
 * byte for byte (line endings and comments included). Like `ssh-keygen -R`, a removed line goes whole, with every
 * host name on it. Edits of one file run one at a time (serializeKnownHostsWrite).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SluiceError } from '../errors';
import { isNullDevice } from '../sys/platformPaths';
import { renameRetrying } from '../sys/renameRetry';
import {
  KnownHosts,
  hashKnownHostsName,
  hostFieldMatches,
  keyTypeOf,
  knownHostsName,
  parseKnownHosts,
  serializeKnownHostsWrite,
  type KnownHostsEntry,
  type KnownHostsPaths,
} from './knownHosts';

/**
 * Every key line (all markers) of the files a known_hosts view over `paths` reads, in order: for managing the
 * files, never for a trust decision (the engine's policy decides those, app/node/ssh/hostKeys.ts).
 */
export async function readKnownHostsEntries(paths: KnownHostsPaths): Promise<readonly KnownHostsEntry[]> {
  return (await KnownHosts.load(paths)).all();
}

/**
 * Appends host key `keyBlob` for host:port to `paths.writePath` unless it is stored already (KnownHosts.add).
 * @returns whether a line was written
 */
export async function appendHostKey(
  paths: KnownHostsPaths,
  host: string,
  port: number,
  keyBlob: Buffer,
): Promise<boolean> {
  return (await KnownHosts.load(paths)).add(host, port, keyBlob);
}

/** The raw lines of a file, each with its line ending (`\n` or `\r\n`; the last may have none). */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The key entry of one raw line, if it is one. */
function entryOf(raw: string, file: string, line: number): KnownHostsEntry | undefined {
  const e = parseKnownHosts(raw.replace(/\r?\n$/, ''), file)[0];
  return e && { ...e, line };
}

async function readText(file: string): Promise<string> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/** Writes `text` to `file` through a temporary file + fsync + rename (and an fsync of the folder). */
async function replaceFile(file: string, text: string): Promise<void> {
  if (isNullDevice(file)) return; // `UserKnownHostsFile none`: never replace the device with a file
  const dir = path.dirname(file);
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  let mode = 0o600;
  try {
    mode = (await fs.promises.stat(file)).mode & 0o777;
  } catch {
    /* a new file */
  }
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await fs.promises.open(tmp, 'wx', mode);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    await renameRetrying(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  try {
    const d = await fs.promises.open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    /* some file systems cannot fsync a folder; the rename is done */
  }
}

/**
 * Rewrites `file` without the key lines `drop` selects, optionally appending one line.
 * @returns the removed entries (line numbers as they were before the edit)
 */
async function rewrite(
  file: string,
  drop: (e: KnownHostsEntry, all: KnownHostsEntry[]) => boolean,
  append?: (text: string, entries: KnownHostsEntry[]) => string,
): Promise<KnownHostsEntry[]> {
  const resolved = path.resolve(file);
  return serializeKnownHostsWrite(resolved, async () => {
    const text = await readText(resolved);
    const raws = splitLines(text);
    const entries = raws.map((r, i) => entryOf(r, resolved, i + 1));
    const all = entries.filter((e): e is KnownHostsEntry => e !== undefined);
    const removed: KnownHostsEntry[] = [];
    let out = '';
    raws.forEach((raw, i) => {
      const e = entries[i];
      if (e && drop(e, all)) removed.push(e);
      else out += raw;
    });
    if (append) {
      if (out.length > 0 && !out.endsWith('\n')) out += '\n';
      out += append(text, all);
    }
    if (removed.length > 0 || append) await replaceFile(resolved, out);
    return removed;
  });
}

/**
 * Removes one key line, provided it still holds the key the user saw (the file may have changed since).
 * @param file a known_hosts file; @param line 1-based line; @param fingerprint the `SHA256:` fingerprint listed
 * @throws SluiceError INVALID_STATE when that line no longer holds that key (nothing is changed)
 */
export async function removeKnownHostsLine(file: string, line: number, fingerprint: string): Promise<KnownHostsEntry> {
  const removed = await rewrite(file, (e) => e.line === line && e.fingerprint === fingerprint);
  if (removed.length === 0) {
    throw new SluiceError(
      'INVALID_STATE',
      `${file}:${line} no longer holds the key ${fingerprint}; the file changed, list it again`,
    );
  }
  return removed[0];
}

/**
 * Replaces the saved key of host:port with `keyBlob` in `file`: removes the host's plain key lines of the new key's
 * type (or, when it has none of that type, all of the host's plain key lines) and appends the new key, hashed when
 * the file already holds hashed names. `@revoked` and `@cert-authority` lines are left alone.
 * @returns the removed entries
 */
export async function replaceHostKey(
  file: string,
  host: string,
  port: number,
  keyBlob: Buffer,
): Promise<KnownHostsEntry[]> {
  const keyType = keyTypeOf(keyBlob);
  const name = knownHostsName(host, port);
  const mine = (e: KnownHostsEntry): boolean => e.marker === 'none' && hostFieldMatches(e.hosts, name);
  return rewrite(
    file,
    (e, all) => mine(e) && (e.keyType === keyType || !all.some((o) => mine(o) && o.keyType === keyType)),
    (_text, all) => {
      const hostField = all.some((e) => e.hosts.startsWith('|1|')) ? hashKnownHostsName(name) : name;
      return `${hostField} ${keyType} ${keyBlob.toString('base64')}\n`;
    },
  );
}
