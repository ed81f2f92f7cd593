/**
 * The service's side of the Properties dialog (#26 item 2): `remote.stat` (LSTAT with owner and group, a symlink's
 * target by SSH_FXP_READLINK and what it names by STAT) and `remote.chmod` (SSH_FXP_SETSTAT, recursively through
 * engine/remoteChmod.ts with many requests in flight, FileZilla's "files only / folders only" as a filter).
 */
import type { InvokeRequests, InvokeResponses } from '../../common/ipc/contract';
import type { ModeChange } from '../../common/fileMode';
import type { ChmodReport, ChmodScope, RemoteProps } from '../../common/ipc/remoteProps';
import { remoteFilesOf } from '../engine/engine';
import { chmodRemote } from '../engine/remoteChmod';
import type { RemoteFiles } from '../engine/remoteFiles';
import { SluiceError, displayText } from '../errors';
import type { SiteSessions } from './sessions';

/**
 * What `p` is, as the server says: the entry itself (LSTAT), and for a symlink the path it names and what is there.
 * @throws SluiceError NO_SUCH_FILE naming `p`; the server's refusal
 */
export async function remoteProps(files: RemoteFiles, p: string): Promise<RemoteProps> {
  const own = await files.stat(p, false);
  if (!own)
    throw new SluiceError('NO_SUCH_FILE', `cannot show the properties of ${displayText(p)}: no such file or folder`);
  const props: RemoteProps = { path: p, type: own.type, size: own.size, mtimeMs: own.mtimeMs, mode: own.mode & 0o7777 };
  if (own.uid !== undefined) props.uid = own.uid;
  if (own.gid !== undefined) props.gid = own.gid;
  if (own.type !== 'symlink') return props;
  const target = await files.readlink(p);
  const to = await files.stat(p, true).catch(() => null);
  if (!to) return { ...props, link: { target } };
  return {
    ...props,
    size: to.size,
    mtimeMs: to.mtimeMs,
    mode: to.mode & 0o7777,
    link: { target, targetType: to.type },
  };
}

/** The change a chmod of `mode` makes to one entry: entries the scope leaves out keep their bits. */
export function scopedMode(mode: number, scope: ChmodScope = 'all'): ModeChange {
  return (current, isDir) =>
    (scope === 'files' && isDir) || (scope === 'folders' && !isDir) ? current & 0o7777 : mode & 0o7777;
}

/**
 * Sets the mode of `p` (a symlink: of what it names, as chmod(1)); with `recurse`, of everything below a folder too,
 * the scope choosing files, folders or both (the folder `p` itself included).
 * @throws SluiceError naming the operation, `p` and the server's own message when any SETSTAT was refused
 */
export async function chmodProps(
  files: RemoteFiles,
  p: string,
  mode: number,
  recurse?: ChmodScope,
): Promise<ChmodReport> {
  const outcome = await chmodRemote(files, p, scopedMode(mode, recurse), { recursive: recurse !== undefined });
  const [first] = outcome.failed;
  if (first) {
    const more = outcome.failed.length > 1 ? ` (and ${outcome.failed.length - 1} more refused)` : '';
    // The worker names the request and the path (`SETSTAT /a/b: ...`); for `p` itself the user's words say so.
    const own = `SETSTAT ${displayText(p)}: `;
    const reason = first.message.startsWith(own) ? first.message.slice(own.length) : first.message;
    throw new SluiceError(first.code, `cannot change the mode of ${displayText(p)}: ${reason}${more}`, {
      cause: first,
    });
  }
  return { changed: outcome.changed, unchanged: outcome.unchanged, links: outcome.links };
}

type PropsChannel = 'remote.stat' | 'remote.chmod';
type PropsHandlers = { [C in PropsChannel]: (req: InvokeRequests[C]) => Promise<InvokeResponses[C]> };

/** The service's `remote.stat` and `remote.chmod` over the site's session (tried again after a reconnect). */
export function propsHandlers(sessions: SiteSessions): PropsHandlers {
  return {
    'remote.stat': async ({ siteId, path: p }) => sessions.browse(siteId, (e) => remoteProps(remoteFilesOf(e), p)),
    'remote.chmod': async ({ siteId, path: p, mode, recurse }) =>
      sessions.browse(siteId, (e) => chmodProps(remoteFilesOf(e), p, mode, recurse)),
  };
}
