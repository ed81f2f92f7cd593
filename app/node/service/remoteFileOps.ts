/**
 * The remote pane's other file operations (#26 item 6) over a site's session: a move (posix-rename@openssh.com where
 * offered for a replace, else SSH_FXP_RENAME: engine/remoteFiles.ts move), a duplicate (the server's `copy-data` where
 * offered, else through the queue: a download into `<home>/copies/<id>/` then an upload of it under the copy's name,
 * two journalled queued jobs), an empty file (SSH_FXP_OPEN CREAT|EXCL, CLOSE) and a symlink (SSH_FXP_SYMLINK in
 * OpenSSH's argument order: ssh/worker/fileOps.ts).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyName, type DuplicateResult } from '../../common/ipc/fileOps';
import type { Engine } from '../engine/engine';
import { remoteFilesOf } from '../engine/engine';
import type { RemoteFiles } from '../engine/remoteFiles';
import { SluiceError, displayText } from '../errors';
import { errorInfo } from './results';
import type { JobEnd } from '../edit/ports';
import type { BatchSettings } from './queuePorts';
import { insideItself } from './localFileOps';

/** What a duplicate through the queue needs of the service. */
export interface CopyQueue {
  /** The app's data folder: the cache is `<home>/copies/`. */
  home: string;
  enqueue(
    req: { siteId: string; direction: 'upload' | 'download'; sources: string[]; dest: string },
    own?: BatchSettings,
  ): string[];
  settled(jobId: string): Promise<JobEnd>;
  log(level: 'info' | 'warn' | 'error', message: string, siteId?: string): void;
}

/**
 * `remote.rename` as a move: `from` to the full path `to`; an existing target refused (EXISTS) unless `overwrite`; a
 * folder into itself or below itself refused (USAGE) before anything is sent.
 */
export async function moveRemote(files: RemoteFiles, from: string, to: string, overwrite = false): Promise<void> {
  if (insideItself(from, to, '/'))
    throw new SluiceError('USAGE', `Cannot move ${displayText(from)} into itself (${displayText(to)})`);
  await files.move(from, to, overwrite);
}

/** The first "(copy)" name beside `p` that nothing on the server has (one LSTAT per name tried). */
async function freeRemoteCopy(files: RemoteFiles, p: string, isDir: boolean): Promise<string> {
  const dir = path.posix.dirname(p);
  const base = path.posix.basename(p);
  for (let n = 1; n < 1000; n++) {
    const candidate = path.posix.join(dir, copyName(base, n, isDir));
    if (!(await files.stat(candidate, false))) return candidate;
  }
  throw new SluiceError('EXISTS', `Cannot duplicate ${displayText(p)}: no free copy name`);
}

/**
 * `remote.duplicate`: a file by `copy-data` where the server offers it; a folder, or a file on a server without it,
 * through the queue ({@link duplicateThroughQueue}).
 */
export async function duplicateRemote(
  engine: Engine,
  siteId: string,
  p: string,
  queue: CopyQueue,
): Promise<DuplicateResult> {
  const files = remoteFilesOf(engine);
  const st = await files.stat(p, false);
  if (!st) throw new SluiceError('NO_SUCH_FILE', `Cannot duplicate ${displayText(p)}: no such file or folder`);
  const copy = await freeRemoteCopy(files, p, st.type === 'dir');
  if (st.type === 'file' && files.copiesData) {
    await files.copyData(p, copy);
    return { path: copy, via: 'copy-data' };
  }
  if (st.type === 'symlink') {
    await files.symlink(await files.readlink(p), copy);
    return { path: copy, via: 'link' };
  }
  return { path: copy, via: 'queue', jobIds: duplicateThroughQueue(queue, siteId, p, copy) };
}

/**
 * The duplicate of a server without `copy-data`: a queued download of `p` into `<home>/copies/<id>/down/`, then (once
 * it is done) the copy renamed to its new name in `<home>/copies/<id>/up/` and a queued upload into `p`'s folder (the
 * conflict rule `rename`: never over a file that appeared meanwhile); the cache folder removed when the upload ends.
 * Both are normal journalled jobs (paused, resumed, retried in the queue view); a restart between the two leaves the
 * download done and the upload not queued (docs/app.md says so).
 * @returns the download's job ids
 */
function duplicateThroughQueue(queue: CopyQueue, siteId: string, p: string, copy: string): string[] {
  const cache = path.join(queue.home, 'copies', randomUUID());
  const down = path.join(cache, 'down');
  const up = path.join(cache, 'up');
  fs.mkdirSync(down, { recursive: true, mode: 0o700 });
  fs.mkdirSync(up, { recursive: true, mode: 0o700 });
  const jobIds = queue.enqueue({ siteId, direction: 'download', sources: [p], dest: down }, { conflict: 'overwrite' });
  const cleanUp = () => fs.promises.rm(cache, { recursive: true, force: true }).catch(() => undefined);
  void (async () => {
    const got = await queue.settled(jobIds[0]);
    if (got.state !== 'done') {
      queue.log('error', `Duplicate ${displayText(p)}: the download into the cache ended ${got.state}`, siteId);
      return cleanUp();
    }
    const staged = path.join(up, path.posix.basename(copy));
    await fs.promises.rename(path.join(down, path.posix.basename(p)), staged);
    const [upload] = queue.enqueue(
      { siteId, direction: 'upload', sources: [staged], dest: path.posix.dirname(copy) },
      { conflict: 'rename' },
    );
    const sent = await queue.settled(upload);
    queue.log(
      sent.state === 'done' ? 'info' : 'error',
      `Duplicate ${displayText(p)} → ${displayText(copy)}: ${sent.state}`,
      siteId,
    );
    await cleanUp();
  })().catch((e: unknown) => {
    queue.log('error', `Duplicate ${displayText(p)} failed: ${errorInfo(e).message}`, siteId);
    void cleanUp();
  });
  return jobIds;
}
