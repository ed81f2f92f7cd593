/**
 * The local pane's path rules, by the local file system's separator (which the engine reports with each listing,
 * from its platform: `\` on Windows, `/` elsewhere). On Windows the top level is "This PC" ({@link DRIVES_PATH}):
 * the drives and the UNC shares (`\\server\share`) visited, each opened at its root; Up from `C:\` or from a share's
 * root goes there, never to the process's working folder.
 */

/** A local file system's separator. */
export type LocalSep = '/' | '\\';

/** The top level of a Windows computer (not a real path: `:` cannot start one there). */
export const DRIVES_PATH = ':drives';

/** How the top level is named. */
export const DRIVES_LABEL = 'This PC';

/**
 * The root of a Windows path: `C:\` for a drive path (`C:`, `C:\x`, `c:/x`), `\\server\share\` for a UNC path, else
 * undefined (a relative path, or the top level).
 */
export function windowsRoot(p: string): string | undefined {
  const drive = /^([A-Za-z]):(?:[\\/]|$)/.exec(p);
  if (drive) return `${drive[1].toUpperCase()}:\\`;
  const unc = /^[\\/]{2}([^\\/?.][^\\/]*)[\\/]+([^\\/]+)/.exec(p);
  return unc ? `\\\\${unc[1]}\\${unc[2]}\\` : undefined;
}

/** The folder above `p`; the top itself at the top (`/`, or {@link DRIVES_PATH} on Windows). */
export function parentLocal(p: string, sep: LocalSep): string {
  if (sep === '/') {
    const trimmed = p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
    const i = trimmed.lastIndexOf('/');
    return i <= 0 ? '/' : trimmed.slice(0, i);
  }
  const root = windowsRoot(p);
  if (p === DRIVES_PATH || root === undefined) return DRIVES_PATH;
  const rest = p
    .slice(root.length)
    .split(/[\\/]+/)
    .filter(Boolean);
  return rest.length <= 1 ? (rest.length === 0 ? DRIVES_PATH : root) : root + rest.slice(0, -1).join('\\');
}

/** `name` inside `dir`; at the Windows top level `name` is a drive (`C:`) or a share (`\\server\share`). */
export function joinLocal(dir: string, name: string, sep: LocalSep): string {
  if (sep === '\\' && dir === DRIVES_PATH) return windowsRoot(name) ?? name;
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

/** True where the pane shows the Windows top level: nothing can be created, renamed or removed there. */
export function isDrivesPath(p: string | null | undefined): boolean {
  return p === DRIVES_PATH;
}

/** One clickable breadcrumb: the label shown and the path it opens. */
export interface LocalCrumb {
  label: string;
  path: string;
}

/** Breadcrumbs of a Windows path, the top level first: This PC, `C:` (or `\\server\share`), then each folder. */
export function windowsCrumbs(p: string): LocalCrumb[] {
  const top = { label: DRIVES_LABEL, path: DRIVES_PATH };
  const root = windowsRoot(p);
  if (root === undefined) return [top];
  const crumbs = [top, { label: root.slice(0, -1), path: root }];
  let acc = root.slice(0, -1);
  for (const part of p
    .slice(root.length)
    .split(/[\\/]+/)
    .filter(Boolean)) {
    acc = `${acc}\\${part}`;
    crumbs.push({ label: part, path: acc });
  }
  return crumbs;
}
