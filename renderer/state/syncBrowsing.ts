/**
 * Synchronized browsing (FileZilla's, #26 item 3) as pure path arithmetic: switched on, it pairs the local and the
 * remote folder shown at that moment; a move on one side (into a sub-folder, up, or anywhere) is the same relative
 * move from the pair's folder on that side, made from the pair's folder on the other side. Where the other side has
 * no such folder (above its root, another drive) there is no counterpart: the caller says so and switches the mode
 * off, as FileZilla does.
 */

export type PathSep = '/' | '\\';

/** The folders paired when synchronized browsing was switched on. */
export interface SyncPair {
  local: string;
  localSep: PathSep;
  remote: string;
}

/** A path as its root (`/`, `C:\`, `\\server\share\`) and its folder names. */
interface Split {
  root: string;
  parts: string[];
}

const WINDOWS_ROOT = /^(?:[A-Za-z]:\\?|\\\\[^\\]+\\[^\\]+\\?)/;

function split(p: string, sep: PathSep): Split {
  if (sep === '/') return { root: '/', parts: p.split('/').filter((s) => s !== '' && s !== '.') };
  const root = WINDOWS_ROOT.exec(p)?.[0] ?? '';
  const parts = p
    .slice(root.length)
    .split(/[\\/]/)
    .filter((s) => s !== '' && s !== '.');
  return { root: root === '' || root.endsWith('\\') ? root : `${root}\\`, parts };
}

function join({ root, parts }: Split, sep: PathSep): string {
  return root + parts.join(sep);
}

/**
 * Where the other side goes when one side moved from `fromRoot` to `to`.
 * @param fromRoot the moving side's paired folder; `to` its new folder (both as the pane shows them)
 * @param toRoot the other side's paired folder
 * @returns the other side's folder, or null when it has none (the move climbs above its root, or `to` is on another
 *   drive than `fromRoot`)
 */
export function followPath(
  fromRoot: string,
  fromSep: PathSep,
  to: string,
  toRoot: string,
  toSep: PathSep,
): string | null {
  const from = split(fromRoot, fromSep);
  const dest = split(to, fromSep);
  if (from.root.toLowerCase() !== dest.root.toLowerCase()) return null;
  const same = (a: string, b: string) => (fromSep === '\\' ? a.toLowerCase() === b.toLowerCase() : a === b);
  let common = 0;
  while (common < from.parts.length && common < dest.parts.length && same(from.parts[common], dest.parts[common]))
    common++;
  const ups = from.parts.length - common;
  const base = split(toRoot, toSep);
  if (ups > base.parts.length) return null;
  const parts = [...base.parts.slice(0, base.parts.length - ups), ...dest.parts.slice(common)];
  return join({ root: base.root, parts }, toSep);
}

/** The local folder matching the remote pane's new folder `remote`, or null (no counterpart). */
export function localFor(pair: SyncPair, remote: string): string | null {
  return followPath(pair.remote, '/', remote, pair.local, pair.localSep);
}

/** The remote folder matching the local pane's new folder `local`, or null (no counterpart). */
export function remoteFor(pair: SyncPair, local: string): string | null {
  return followPath(pair.local, pair.localSep, local, pair.remote, '/');
}
