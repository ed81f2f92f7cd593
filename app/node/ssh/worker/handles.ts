/**
 * Closing remote handles held beyond one operation (the connection keeps them: WorkerConn.segmentHandles,
 * WorkerConn.handlesAhead).
 */
import type fs from 'node:fs';
import type { SFTPWrapper } from 'ssh2';
import type { SegmentHandle } from '../../sftp/segmentHandles';
import type { WorkerConn } from './conn';
import { closeRemote } from './sftpCalls';

/**
 * Closes a remote handle, waiting for the reply unless the task was aborted: then the SSH_FXP_CLOSE may queue
 * behind replies still on their way (seconds on a slow link), and the user asked to stop.
 */
export async function closeUnlessAborted(
  s: SFTPWrapper,
  h: Buffer,
  remotePath: string,
  signal?: AbortSignal,
): Promise<void> {
  const closing = closeRemote(s, h, remotePath).catch(() => undefined);
  if (!signal?.aborted) await closing;
}

/**
 * Closes kept handle pairs: the SSH_FXP_CLOSEs go out together (one round trip); errors are ignored.
 * `awaitRemote: false` returns once the local handles are closed (read handles of a finished download: every
 * byte is here, and later requests on the channel queue behind the CLOSE).
 */
export async function closeSegmentHandles(
  conn: WorkerConn,
  list: Array<SegmentHandle<fs.promises.FileHandle>>,
  remotePath: string,
  awaitRemote = true,
): Promise<void> {
  await Promise.all(
    list.map(async (h) => {
      await h.local.close().catch(() => undefined);
      if (conn.closedError) return;
      const closing = closeRemote(conn.sftpOf(h.channel), h.remote, remotePath).catch(() => undefined);
      if (awaitRemote) await closing;
    }),
  );
}
