/**
 * Reading an import source: a file (its text decoded by its byte order mark: UTF-8, or UTF-16 as regedit and
 * `reg export` write), PuTTY's sessions folder (every regular file in it), or on Windows a registry key exported with
 * `reg export`; each format's usual place when no path is given; and the SHA-256 of what was read, so that an import
 * can refuse a source that changed since its preview.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ImportFormat } from '../../common/model/siteImport';
import { SluiceError, fromLocalError } from '../errors';
import { homeOf, pathFor } from '../sys/platformPaths';
import type { SourceData } from './parse';

/** Where the source was read from, what was read, and its digest. */
export interface ReadSource {
  /** The absolute path read, `(text)` for text given directly, or the registry key. */
  source: string;
  data: SourceData;
  /** SHA-256 (hex) over the text (for a folder: every file's name and text, in name order). */
  digest: string;
}

/** The largest source file read (a list of sites is far smaller). */
const MAX_SOURCE_BYTES = 16 * 1024 * 1024;

/** The registry keys read on Windows when no path is given. */
const REGISTRY_KEYS: Partial<Record<ImportFormat, string>> = {
  putty: 'HKCU\\Software\\SimonTatham\\PuTTY\\Sessions',
  winscp: 'HKCU\\Software\\Martin Prikryl\\WinSCP 2\\Sessions',
};

/** Bytes to text by their byte order mark: UTF-16 LE/BE, else UTF-8 (a UTF-8 BOM dropped). */
export function decodeText(buf: Buffer): string {
  if (buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString('utf16le');
  if (buf[0] === 0xfe && buf[1] === 0xff) {
    const le = Buffer.from(buf.subarray(2));
    le.swap16();
    return le.toString('utf16le');
  }
  const text = buf.toString('utf8');
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** `~` and `~/x` against the home folder; other paths resolved against the working folder. */
export function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') || p.startsWith('~\\') ? path.join(home, p.slice(2)) : path.resolve(p);
}

/**
 * The usual place of a format's file on this system.
 * @returns a path, or undefined when the format has none (Sluice exports; WinSCP off Windows) or lives in the
 *   registry (PuTTY and WinSCP on Windows: see {@link readSource})
 */
export function defaultSourcePath(
  format: ImportFormat,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const home = homeOf(env, platform);
  const p = pathFor(platform);
  const appData = env.APPDATA ?? p.join(home, 'AppData', 'Roaming');
  switch (format) {
    case 'openssh':
      return p.join(home, '.ssh', 'config');
    case 'filezilla':
      if (platform === 'win32') return p.join(appData, 'FileZilla', 'sitemanager.xml');
      return p.join(env.XDG_CONFIG_HOME ?? p.join(home, '.config'), 'filezilla', 'sitemanager.xml');
    case 'putty':
      return platform === 'win32' ? undefined : p.join(home, '.putty', 'sessions');
    case 'winscp':
      return undefined;
    case 'sluice':
      return undefined;
  }
}

function digestOf(parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
}

/** Every regular file of a folder (PuTTY's sessions), in name order. */
function readFolder(dir: string): Array<{ name: string; text: string }> {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort()
    .map((name) => ({ name, text: decodeText(fs.readFileSync(path.join(dir, name))) }));
}

/** A registry key exported with `reg export` into a temporary file (Windows only). */
async function exportRegistry(key: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-reg-'));
  const file = path.join(dir, 'export.reg');
  try {
    await promisify(execFile)('reg', ['export', key, file, '/y'], { windowsHide: true, timeout: 30_000 });
    return decodeText(fs.readFileSync(file));
  } catch (e) {
    throw new SluiceError('NOT_FOUND', `Could not read the registry key ${key}: ${(e as Error).message}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Reads a source.
 * @param req `text` (used as it is), else `path` (`~/` is the home folder; a folder only for PuTTY), else the format's
 *   usual place ({@link defaultSourcePath}; on Windows PuTTY's and WinSCP's registry keys via `reg export`)
 * @throws SluiceError LOCAL_IO when the file or folder does not exist or cannot be read; USAGE when the format has no
 *   usual place and no path was given; NOT_FOUND when the registry key cannot be exported
 */
export async function readSource(
  format: ImportFormat,
  req: { path?: string; text?: string },
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<ReadSource> {
  if (req.text !== undefined) return { source: '(text)', data: { text: req.text }, digest: digestOf([req.text]) };
  const home = homeOf(env, platform);
  const file = req.path !== undefined ? expandHome(req.path, home) : defaultSourcePath(format, env, platform);
  if (file === undefined) {
    const key = platform === 'win32' ? REGISTRY_KEYS[format] : undefined;
    if (key) {
      const text = await exportRegistry(key);
      return { source: key, data: { text }, digest: digestOf([text]) };
    }
    throw new SluiceError('USAGE', `A ${format} import needs the file's path`);
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    throw fromLocalError(e, file, 'read');
  }
  if (stat.isFile() && stat.size > MAX_SOURCE_BYTES)
    throw new SluiceError('USAGE', `${file} is too large for a list of sites (over 16 MiB)`);
  try {
    if (stat.isDirectory()) {
      const files = readFolder(file);
      return { source: file, data: { files }, digest: digestOf(files.flatMap((f) => [f.name, f.text])) };
    }
    const text = decodeText(fs.readFileSync(file));
    return { source: file, data: { text }, digest: digestOf([text]) };
  } catch (e) {
    throw fromLocalError(e, file, 'read');
  }
}
