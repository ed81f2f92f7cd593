/**
 * The service's channels of the panes' file operations (#26 item 6): moves (`remote.rename` / `local.rename` with
 * `overwrite`), duplicate, new file, new symlink, open with the default application. Local paths are confined to
 * entries of folders the local pane listed (a move's target may also be inside a listed folder's subfolder: a drop on
 * a folder row).
 */
import * as path from 'node:path';
import type { InvokeRequests, InvokeResponses } from '../../common/ipc/contract';
import { remoteFilesOf } from '../engine/engine';
import { dragOut, type DragOutDeps } from './dragOut';
import { jobSettled } from './editPorts';
import type { Handlers, ServiceHub } from './hub';
import type { JobQueue } from './queue';
import { realFolder, type ListedFolders } from './localFs';
import { duplicateLocal, moveLocal, newLocalFile, newLocalSymlink, openLocal } from './localFileOps';
import { duplicateRemote, moveRemote, type CopyQueue } from './remoteFileOps';
import type { SiteSessions } from './sessions';

type FileOpChannel =
  | 'remote.rename'
  | 'local.rename'
  | 'remote.duplicate'
  | 'remote.newFile'
  | 'remote.symlink'
  | 'local.duplicate'
  | 'local.newFile'
  | 'local.symlink'
  | 'local.open'
  | 'drag.out';
type FileOpHandlers = { [C in FileOpChannel]: (req: InvokeRequests[C]) => Promise<InvokeResponses[C]> };

/** The queue as a duplicate without `copy-data` uses it: jobs with their own conflict rule, awaited to their end. */
export function copyQueue(
  home: string,
  queue: JobQueue,
  hub: ServiceHub,
  events: { subscribe: Parameters<typeof jobSettled>[0] },
): CopyQueue {
  return {
    home,
    enqueue: (req, own) => queue.enqueue(req, own),
    settled: (jobId) =>
      jobSettled(
        (l) => events.subscribe(l),
        () => queue.jobs(),
        jobId,
      ),
    log: (level, message, siteId) => hub.log(level, message, siteId),
  };
}

/** A move's target: an entry of a listed folder, or of a folder listed beside it (a drop onto a folder row). */
function moveTarget(listed: ListedFolders, to: string): string {
  try {
    return listed.entry(to, 'move to');
  } catch {
    const dir = path.dirname(path.resolve(to));
    listed.entry(dir, 'move to');
    return path.join(dir, path.basename(to));
  }
}

/** The handlers ({@link Handlers} entries) of the file operations. */
export function fileOpHandlers(
  sessions: SiteSessions,
  listed: ListedFolders,
  desktop: Omit<DragOutDeps, 'queue' | 'home'> & { openPath?: (file: string) => Promise<string> },
  queue: CopyQueue,
): FileOpHandlers & Partial<Handlers> {
  const { openPath } = desktop;
  // Changes are not sent twice: no try again after a reconnect (sessions.browse's), as `remote.mkdir` does.
  const files = async <T>(siteId: string, fn: (f: ReturnType<typeof remoteFilesOf>) => Promise<T>) =>
    fn(remoteFilesOf(await sessions.engineFor(siteId)));
  return {
    'remote.rename': async ({ siteId, from, to, overwrite }) =>
      files(siteId, (f) => moveRemote(f, from, to, overwrite)),
    'local.rename': async ({ from, to, overwrite }) => {
      realFolder(from, 'rename');
      await moveLocal(listed.entry(from, 'move'), moveTarget(listed, to), overwrite);
    },
    'remote.duplicate': async ({ siteId, path: p }) =>
      duplicateRemote(await sessions.engineFor(siteId), siteId, p, queue),
    'remote.newFile': async ({ siteId, path: p }) => files(siteId, (f) => f.createFile(p)),
    'remote.symlink': async ({ siteId, target, path: p }) => files(siteId, (f) => f.symlink(target, p)),
    'local.duplicate': async ({ path: p }) => duplicateLocal(listed.entry(p, 'duplicate')),
    'local.newFile': async ({ path: p }) => newLocalFile(listed.entry(p, 'create')),
    'local.symlink': async ({ target, path: p }) => newLocalSymlink(target, listed.entry(p, 'create')),
    'local.open': async ({ path: p }) => openLocal(listed.entry(p, 'open'), openPath),
    'drag.out': async ({ siteId, paths }) =>
      dragOut({ ...desktop, queue, home: queue.home }, await sessions.engineFor(siteId), siteId, paths),
  };
}
