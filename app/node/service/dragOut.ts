/**
 * Remote rows dragged out of the window to the OS (#26 item 7). Electron's `webContents.startDrag` hands the OS files
 * that exist locally, so a small selection (at most {@link DRAG_OUT_MAX_BYTES} and {@link DRAG_OUT_MAX_FILES}) is
 * fetched first into `<home>/drag-out/<id>/` as a queued download (a normal get: its row in the queue shows the
 * progress), then given to `startDrag` (main/dragOut.ts; the e2e harness records it); a larger one asks for a folder
 * (the system's folder dialog) and becomes a queued, journalled download there. The cache is bounded
 * ({@link DRAG_CACHE_MAX_BYTES}: the oldest fetches removed first) and cleared when the service closes (the app quits).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DragOutResult } from '../../common/ipc/fileOps';
import type { RemoteFiles } from '../engine/remoteFiles';
import { remoteChild } from '../engine/remoteFiles';
import { remoteFilesOf, type Engine } from '../engine/engine';
import { SluiceError, displayText } from '../errors';
import type { CopyQueue } from './remoteFileOps';
import type { FileDialogs } from './siteHandlers';
import { localHome } from './localFs';

/** A selection fetched before the OS drag: at most this many bytes (64 MiB) … */
export const DRAG_OUT_MAX_BYTES = 64 * 1024 * 1024;
/** … and this many files. */
export const DRAG_OUT_MAX_FILES = 500;
/** The drag cache keeps at most this many bytes (the oldest fetches removed first). */
export const DRAG_CACHE_MAX_BYTES = 512 * 1024 * 1024;

/** What a drag out needs of the service. */
export interface DragOutDeps {
  home: string;
  queue: CopyQueue;
  dialogs?: FileDialogs;
  /** Electron's webContents.startDrag of these local files (main/dragOut.ts); absent: no desktop to drag to. */
  startDrag?: (files: string[]) => void;
}

/** The cache folder of drags out. */
export const dragCache = (home: string): string => path.join(home, 'drag-out');

/** What a selection holds, counted until it is over the bounds: files and bytes (links followed to their targets). */
export async function measureSelection(
  files: RemoteFiles,
  paths: readonly string[],
  bounds = { bytes: DRAG_OUT_MAX_BYTES, files: DRAG_OUT_MAX_FILES },
): Promise<{ files: number; bytes: number; over: boolean }> {
  const m = { files: 0, bytes: 0, over: false };
  const folders: string[] = [];
  const count = (size: number) => {
    m.files++;
    m.bytes += size;
    m.over = m.files > bounds.files || m.bytes > bounds.bytes;
  };
  for (const p of paths) {
    const st = await files.stat(p, true);
    if (!st) throw new SluiceError('NO_SUCH_FILE', `Cannot drag ${displayText(p)} out: no such file or folder`);
    if (st.type === 'dir') folders.push(p);
    else count(st.size);
  }
  // Folders listed one after another, stopping as soon as the selection is over the bounds (it is then queued).
  for (let i = 0; i < folders.length && !m.over; i++) {
    for (const e of await files.call('list', { path: folders[i] })) {
      if (e.type === 'dir') folders.push(remoteChild(folders[i], e.name));
      else count(e.size);
      if (m.over) break;
    }
  }
  return m;
}

/**
 * `drag.out`: the selection fetched into the cache and handed to `startDrag`, or (over the bounds) a folder asked and a
 * queued download into it. @throws SluiceError INVALID_STATE without a desktop; the fetch's failure naming the path
 */
export async function dragOut(d: DragOutDeps, engine: Engine, siteId: string, paths: string[]): Promise<DragOutResult> {
  const { startDrag } = d;
  if (!startDrag) throw new SluiceError('INVALID_STATE', 'Dragging files out needs the desktop app');
  const m = await measureSelection(remoteFilesOf(engine), paths);
  if (m.over) return queueDownload(d, siteId, paths, m);
  await trimCache(d.home, DRAG_CACHE_MAX_BYTES - m.bytes);
  const dir = path.join(dragCache(d.home), randomUUID());
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const jobIds = d.queue.enqueue(
    { siteId, direction: 'download', sources: paths, dest: dir },
    { conflict: 'overwrite' },
  );
  const ends = await Promise.all(jobIds.map((id) => d.queue.settled(id)));
  const failed = ends.findIndex((e) => e.state !== 'done');
  if (failed >= 0) {
    await fs.promises.rm(dir, { recursive: true, force: true });
    const why = ends[failed].error?.message ?? ends[failed].state;
    throw new SluiceError('REMOTE_FAILURE', `Fetching ${displayText(paths[failed])} for the drag failed: ${why}`);
  }
  const local = paths.map((p) => path.join(dir, path.posix.basename(p)));
  startDrag(local);
  return { kind: 'files', files: local, bytes: m.bytes, count: m.files };
}

/** Over the bounds: the system's folder dialog, then a queued (journalled) download into the folder chosen. */
async function queueDownload(
  d: DragOutDeps,
  siteId: string,
  paths: string[],
  m: { files: number; bytes: number },
): Promise<DragOutResult> {
  if (!d.dialogs) throw new SluiceError('INVALID_STATE', 'No folder dialog to ask where the download goes');
  const dest = await d.dialogs.openFile({
    title: `Download ${paths.length === 1 ? path.posix.basename(paths[0]) : `${paths.length} items`} to…`,
    defaultPath: localHome(),
    showHidden: false,
    folder: true,
  });
  if (dest === null) return { kind: 'cancelled' };
  const jobIds = d.queue.enqueue({ siteId, direction: 'download', sources: paths, dest });
  d.queue.log(
    'info',
    `Too large to drag (over ${m.files} files or ${m.bytes} bytes so far): queued into ${dest}`,
    siteId,
  );
  return { kind: 'queued', jobIds, dest };
}

/** Removes the oldest fetches of the cache until what stays is at most `keep` bytes. */
export async function trimCache(home: string, keep: number): Promise<void> {
  const root = dragCache(home);
  const names = await fs.promises.readdir(root).catch(() => [] as string[]);
  const fetches = await Promise.all(
    names.map(async (n) => {
      const dir = path.join(root, n);
      return { dir, mtimeMs: (await fs.promises.stat(dir)).mtimeMs, bytes: await sizeOf(dir) };
    }),
  );
  fetches.sort((a, b) => a.mtimeMs - b.mtimeMs);
  let total = fetches.reduce((n, f) => n + f.bytes, 0);
  for (const f of fetches) {
    if (total <= Math.max(0, keep)) break;
    await fs.promises.rm(f.dir, { recursive: true, force: true });
    total -= f.bytes;
  }
}

/** Bytes of the files below `dir` (links not followed). */
async function sizeOf(dir: string): Promise<number> {
  let n = 0;
  for (const e of await fs.promises.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) n += (await fs.promises.lstat(path.join(e.parentPath, e.name))).size;
  }
  return n;
}

/** The whole cache removed (the service closing: the app quits). */
export function clearDragCache(home: string): void {
  fs.rmSync(dragCache(home), { recursive: true, force: true });
}
