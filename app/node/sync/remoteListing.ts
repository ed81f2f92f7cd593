/**
 * The remote side of a sync: the synced folder walked over SFTP (walkTree in listing.ts), each folder read with the
 * worker's streamed READDIR (ConnectionPool.listEach: names as each SSH_FXP_NAME answer brings them, cancelled at once
 * by the signal). Links are listed as links (SSH_FXP_READDIR's attributes are the link's own) and left out.
 */
import path from 'node:path';
import { SluiceError } from '../errors';
import type { RemoteEntry, RemoteStat } from '../ssh/workerProtocol';
import { walkTree, type Listing, type RawEntry, type WalkLimits } from './listing';

/** What the walk needs of a session (ssh/session.ts Session has both). */
export interface RemoteLister {
  listEach(
    path: string,
    onNames: (names: RemoteEntry[]) => Promise<void> | void,
    signal?: AbortSignal,
  ): Promise<number>;
  stat(path: string): Promise<RemoteStat | null>;
}

function remotePath(root: string, rel: string): string {
  return rel === '' ? root : path.posix.join(root, rel);
}

/**
 * Lists a remote folder for a sync.
 * @param root the synced folder, absolute or relative to the login folder (not `~`: expanded by the caller);
 *   when it does not exist the listing is empty with `rootExists` false
 * @throws SluiceError USAGE when `root` is not a folder, ABORTED when `limits.signal` fires, CONNECTION_* when
 *   the connection is lost; a folder the server refuses to list is a {@link Listing.errors} entry
 */
export async function listRemoteTree(lister: RemoteLister, root: string, limits: WalkLimits): Promise<Listing> {
  const st = await lister.stat(root);
  if (st && st.type !== 'dir')
    throw new SluiceError('USAGE', `${root} is not a folder on the server (sync works on folders)`);
  const read = async (rel: string, onNames: (names: RawEntry[]) => void, signal: AbortSignal): Promise<void> => {
    await lister.listEach(
      remotePath(root, rel),
      (names) => {
        onNames(names.map((e) => ({ name: e.name, kind: e.type, size: e.size, mtimeMs: e.mtimeMs })));
      },
      signal,
    );
  };
  // SFTP v3 times are whole seconds (draft-ietf-secsh-filexfer-02 §5: ATTR_ACMODTIME, uint32 seconds).
  return { ...(await walkTree(read, limits, st !== null)), timePrecisionMs: 1000 };
}
