/** The file manager's remote delete: a file, an empty folder, or a folder with everything below it. */
import { SluiceError } from '../errors';
import type { Session } from '../ssh/session';

/**
 * Removes `path` on the server: a file or link by SSH_FXP_REMOVE, a folder by SSH_FXP_RMDIR, its contents first
 * when `recursive` (depth first, one request at a time). The path itself is not followed (LSTAT).
 * @throws SluiceError NO_SUCH_FILE when nothing is there; the server's refusal of any request, naming its path
 */
export async function removeRemote(session: Session, path: string, recursive = false): Promise<void> {
  const st = await session.call('stat', { path, follow: false });
  if (!st) throw new SluiceError('NO_SUCH_FILE', `${path}: no such file or folder`);
  if (st.type !== 'dir') return session.call('remove', { path });
  if (recursive) {
    for (const e of await session.list(path)) await removeRemote(session, `${path.replace(/\/$/, '')}/${e.name}`, true);
  }
  return session.call('rmdir', { path });
}
