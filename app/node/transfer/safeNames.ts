/**
 * Remote file names are untrusted (FIELD.md "Integrity rules"): a server may list `..`, `a/b`, `C:x`
 * or `CON` to make a download land outside the chosen folder or on a device. Every remote name is checked
 * here before it becomes a local path component, with the same rules on every platform, because a file
 * downloaded on Linux may later be synced to Windows.
 */
import * as path from 'node:path';
import { SluiceError, displayText } from '../errors';

/** NAME_MAX of ext4/XFS/APFS/NTFS (in bytes of UTF-8 on the POSIX ones). */
export const MAX_NAME_BYTES = 255;

/**
 * Windows reserved device names, also reserved with any extension (`con.txt`, `NUL.tar.gz`) and
 * case-insensitively. COM/LPT also include the superscript digits ¹²³ that Windows treats as digits.
 * Source: learn.microsoft.com "Naming Files, Paths, and Namespaces".
 */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/** Options for {@link unsafeNameReason}. */
export interface NameCheckOptions {
  /**
   * Also refuse what only Windows cannot store: any `:` (NTFS alternate data stream, `a.txt:s` writes a
   * hidden stream of `a.txt`) and `< > " | ? *`. Default: true on Windows. Kept off elsewhere because
   * names like `2026-01-01T12:00:00.log` are common on POSIX servers.
   */
  windows?: boolean;
}

/**
 * Why a remote name cannot be used as ONE local path component, or `null` when it is safe.
 * Refused on every platform: empty, `.`, `..`, `/`, `\`, control characters U+0000–U+001F, a drive
 * letter prefix (`C:`…), absolute paths, Windows reserved device names (CON, PRN, AUX, NUL, COM1–9,
 * LPT1–9, with or without an extension, any case), names ending in a dot or space, and names over
 * {@link MAX_NAME_BYTES} bytes of UTF-8. On Windows also see {@link NameCheckOptions.windows}.
 */
export function unsafeNameReason(name: string, opts: NameCheckOptions = {}): string | null {
  const windows = opts.windows ?? process.platform === 'win32';
  if (typeof name !== 'string') return 'the name is not a string';
  if (name.length === 0) return 'the name is empty';
  if (name === '.' || name === '..') return `"${name}" refers to a directory, not a file name`;
  if (name.includes('/')) return 'the name contains "/" (a path separator)';
  if (name.includes('\\')) return 'the name contains "\\" (a Windows path separator)';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(name)) return 'the name contains a control character';
  if (/^[a-z]:/i.test(name)) return 'the name starts with a drive letter';
  if (windows && name.includes(':'))
    return 'the name contains ":" (Windows forbids it: NTFS would write an alternate data stream)';
  if (windows && /[<>"|?*]/.test(name)) return 'the name contains a character Windows forbids (< > " | ? *)';
  if (path.isAbsolute(name) || path.win32.isAbsolute(name)) return 'the name is an absolute path';
  if (WINDOWS_RESERVED.test(name) || WINDOWS_RESERVED.test(name.replace(/[. ]+$/, ''))) {
    return 'the name is a reserved Windows device name';
  }
  if (/[. ]$/.test(name)) return 'the name ends in a dot or a space (Windows strips them)';
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) return `the name is longer than ${MAX_NAME_BYTES} bytes`;
  return null;
}

/** True when {@link unsafeNameReason} has no objection. */
export function isSafeName(name: string, opts?: NameCheckOptions): boolean {
  return unsafeNameReason(name, opts) === null;
}

/**
 * Joins validated components under `root`.
 * @param root the local folder chosen by the user (relative paths are resolved against the cwd)
 * @param components remote names, one path component each, outermost first
 * @param opts see {@link NameCheckOptions}
 * @returns the absolute local path
 * @throws SluiceError('UNSAFE_NAME') naming the offending component when one is unsafe, or when the
 *   result would not lie strictly inside `root` (checked with path.resolve + path.relative).
 */
export function safeLocalJoin(root: string, components: string[], opts?: NameCheckOptions): string {
  for (const c of components) {
    const reason = unsafeNameReason(c, opts);
    if (reason !== null) {
      throw new SluiceError('UNSAFE_NAME', `Refused remote name "${displayText(String(c), 120)}": ${reason}`);
    }
  }
  const base = path.resolve(root);
  const joined = path.resolve(base, ...components);
  const rel = path.relative(base, joined);
  if (
    components.length > 0 &&
    (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel))
  ) {
    throw new SluiceError(
      'UNSAFE_NAME',
      `Refused remote path "${displayText(components.join('/'), 120)}": it would land outside ${displayText(base)}`,
    );
  }
  return joined;
}
