/**
 * Keep-up's uploads (sync/keepUp.ts): the files written that settled together go to the engine as ONE transfer of the
 * files as listed (TransferRequest.files, as sync/runBatch.ts sends a sync's copies): overwrite, times kept, pipelined
 * over the pool's channels, so "sync first" of a large folder is not one round trip chain per file.
 */
import path from 'node:path';
import { isTransient } from '../../common/retry';
import { SluiceError } from '../errors';
import type { SyncEngine } from './runBatch';

/** A local file to upload: relative path (`/`-separated), absolute local path, size (bytes), mtime (ms). */
export interface FileToSend {
  rel: string;
  full: string;
  size: number;
  mtimeMs: number;
}

let sends = 0;

/**
 * Uploads `files` below `remoteRoot` (their folders must exist there) as one transfer; each file that arrived goes to
 * `onDone`, each that failed for good to `onFailed` with the server's or the disk's message.
 * @throws SluiceError the transfer's own failure, or a file's transient one (a lost connection: the caller reconnects
 *   and catches up) or ABORTED
 */
export async function sendFiles(
  engine: SyncEngine,
  files: readonly FileToSend[],
  o: {
    remoteRoot: string;
    signal: AbortSignal;
    onDone(f: FileToSend): void;
    onFailed(f: FileToSend, message: string): void;
  },
): Promise<void> {
  if (files.length === 0) return;
  const bySource = new Map(files.map((f) => [f.full, f]));
  const report = await engine.transfer(
    {
      id: `watch-${++sends}`,
      direction: 'put',
      sources: files.map((f) => f.full),
      dest: o.remoteRoot,
      recursive: false,
      files: files.map((f) => ({
        src: f.full,
        dst: path.posix.join(o.remoteRoot, f.rel),
        size: f.size,
        mtimeMs: f.mtimeMs,
      })),
      conflict: 'overwrite',
      preserveTimes: true,
    },
    {
      signal: o.signal,
      onEvent: (e) => {
        const f = e.type === 'file' && e.state === 'done' ? bySource.get(e.path) : undefined;
        if (f) o.onDone(f);
      },
    },
  );
  const lost = report.failed.find((f) => isTransient(f.code) || f.code === 'ABORTED');
  if (lost) throw new SluiceError(lost.code as never, lost.message);
  for (const failure of report.failed) {
    const f = bySource.get(failure.path);
    if (f) o.onFailed(f, failure.message);
  }
}
