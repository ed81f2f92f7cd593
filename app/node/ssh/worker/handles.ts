/**
 * Remote handles held beyond one operation: opened ahead of their task, or kept between a file's segments.
 */
import fs from 'node:fs';
import type { SFTPWrapper } from 'ssh2';
import { HandlesAhead } from '../../sftp/handlesAhead';
import { SegmentHandles, type SegmentHandle } from '../../sftp/segmentHandles';
import { closeRemote } from './sftpCalls';
import { sftpOf, state } from './state';

/** Handles kept open between segments of a file on a channel; closed by `releaseFile` or `finishUpload`. */
export const segmentHandles = new SegmentHandles<fs.promises.FileHandle>();

/**
 * Handles opened before their task: a single download's read handle behind each channel's INIT (`prefetch.read`),
 * an upload's write handles while the probe runs (`openAhead`). A segment or getFile on that channel takes its
 * handle; the rest are closed once the path turns out not to be a file, or its transfer is over (getFile,
 * releaseFile). A file the job skips keeps them until the connection closes.
 */
export const handlesAhead = new HandlesAhead<SFTPWrapper>((s, h, p) => closeRemote(s, h, p));

/**
 * Closes a remote handle, waiting for the reply unless the task was aborted: then the SSH_FXP_CLOSE may queue
 * behind replies still on their way (seconds on a slow link), and the user asked to stop.
 */
export async function closeUnlessAborted(s: SFTPWrapper, h: Buffer, remotePath: string, signal?: AbortSignal): Promise<void> {
  const closing = closeRemote(s, h, remotePath).catch(() => undefined);
  if (!signal?.aborted) await closing;
}

/**
 * Closes kept handle pairs: the SSH_FXP_CLOSEs go out together (one round trip); errors are ignored.
 * `awaitRemote: false` returns once the local handles are closed (read handles of a finished download: every
 * byte is here, and later requests on the channel queue behind the CLOSE).
 */
export async function closeSegmentHandles(list: Array<SegmentHandle<fs.promises.FileHandle>>, remotePath: string,
  awaitRemote = true): Promise<void> {
  await Promise.all(list.map(async (h) => {
    await h.local.close().catch(() => undefined);
    if (state.closedError) return;
    const closing = closeRemote(sftpOf(h.channel), h.remote, remotePath).catch(() => undefined);
    if (awaitRemote) await closing;
  }));
}
