/**
 * The file manager's remote delete: a file, an empty folder, or a folder with everything below it. A tree is removed
 * with many requests in flight across its folders (every folder listed as soon as it is found, each file's
 * SSH_FXP_REMOVE sent as soon as it is listed, a folder's SSH_FXP_RMDIR once everything in it is gone), where
 * OpenSSH's sftp and lftp send one request at a time.
 */
import { SluiceError, displayText, isSluiceError } from '../errors';
import type { ConnectionPool } from '../ssh/connectionPool';
import type { RemoteEntry } from '../ssh/workerProtocol';
import { FILE_OPS_IN_FLIGHT, InFlight, RemoteFiles, remoteChild, unlessAborted } from './remoteFiles';

/** How a removal went: what was removed and what failed (each failure names its path and the server's text). */
export interface RemoveOutcome {
  files: number;
  folders: number;
  failed: SluiceError[];
}

export interface RemoveOptions {
  /** Requests in flight at once (default {@link FILE_OPS_IN_FLIGHT}). */
  inFlight?: number;
  /** Cancels at once: nothing new is sent and the removal rejects with ABORTED without waiting for answers. */
  signal?: AbortSignal;
  /** Each path removed, as it is (`sluice rm -v`). */
  onRemoved?: (path: string, entry: Pick<RemoteEntry, 'type'>) => void;
}

/** Removes the trees under folders, going on past failures: a folder with a failure inside is kept. */
class TreeRemoval {
  readonly outcome: RemoveOutcome = { files: 0, folders: 0, failed: [] };
  private readonly slots: InFlight;

  constructor(
    private readonly files: RemoteFiles,
    private readonly o: RemoveOptions,
  ) {
    this.slots = new InFlight(o.inFlight ?? FILE_OPS_IN_FLIGHT, o.signal);
  }

  private fail(e: unknown): false {
    const err = SluiceError.from(e);
    if (err.code === 'ABORTED') throw err;
    this.outcome.failed.push(err);
    return false;
  }

  private async removeFile(p: string, type: RemoteEntry['type']): Promise<boolean> {
    try {
      await this.slots.run(() => this.files.call('remove', { path: p }));
      this.outcome.files++;
      this.o.onRemoved?.(p, { type });
      return true;
    } catch (e) {
      if (isSluiceError(e, 'NO_SUCH_FILE')) return true; // gone meanwhile: what was asked for
      return this.fail(e);
    }
  }

  /** Empties `dir` and removes it. @returns whether it is gone */
  async removeFolder(dir: string): Promise<boolean> {
    const children: Array<Promise<boolean>> = [];
    try {
      await this.slots.run(() =>
        this.files.pool.call(
          'listEach',
          { path: dir },
          {
            signal: this.o.signal,
            onItems: (batch) => {
              for (const e of batch as RemoteEntry[]) {
                const p = remoteChild(dir, e.name);
                children.push(e.type === 'dir' ? this.removeFolder(p) : this.removeFile(p, e.type));
              }
            },
          },
        ),
      );
    } catch (e) {
      await Promise.allSettled(children);
      return this.fail(e);
    }
    const done = await Promise.all(children);
    if (!done.every(Boolean)) return false;
    try {
      await this.slots.run(() => this.files.call('rmdir', { path: dir }));
      this.outcome.folders++;
      this.o.onRemoved?.(dir, { type: 'dir' });
      return true;
    } catch (e) {
      return this.fail(e);
    }
  }
}

/**
 * Removes a folder and everything below it, many requests in flight ({@link RemoveOptions}.inFlight), going on past
 * failures: each failure is in the outcome, and a folder that still holds something is kept (its RMDIR not sent).
 * The folder itself is not followed if it is a symlink (the caller LSTATs it first).
 * @throws SluiceError ABORTED at once when `o.signal` fires
 */
export function removeTree(files: RemoteFiles, dir: string, o: RemoveOptions = {}): Promise<RemoveOutcome> {
  const removal = new TreeRemoval(files, o);
  return unlessAborted(
    removal.removeFolder(dir).then(() => removal.outcome),
    'removal',
    o.signal,
  );
}

/**
 * Removes `path` on the server: a file or link by SSH_FXP_REMOVE, a folder by SSH_FXP_RMDIR, its contents first
 * when `recursive` ({@link removeTree}: many requests in flight). The path itself is not followed (LSTAT).
 * @throws SluiceError NO_SUCH_FILE when nothing is there; FOLDER_NOT_EMPTY for a folder with something in it without
 *   `recursive`; the server's refusal of any request, naming its path (the first one, for a tree)
 */
export async function removeRemote(pool: ConnectionPool, path: string, recursive = false): Promise<void> {
  const st = await pool.call('stat', { path, follow: false });
  if (!st) throw new SluiceError('NO_SUCH_FILE', `${displayText(path)}: no such file or folder`);
  if (st.type !== 'dir') return pool.call('remove', { path });
  if (recursive) {
    const outcome = await removeTree(new RemoteFiles(pool), path);
    if (outcome.failed.length) throw outcome.failed[0];
    return undefined;
  }
  return removeEmptyFolder(pool, path);
}

/**
 * SSH_FXP_RMDIR of a folder that should be empty; when the server refuses and the folder has something in it (its
 * refusal is often a bare SSH_FX_FAILURE), FOLDER_NOT_EMPTY says so.
 * @throws SluiceError FOLDER_NOT_EMPTY, else the server's refusal
 */
export async function removeEmptyFolder(pool: ConnectionPool, path: string): Promise<void> {
  try {
    await pool.call('rmdir', { path });
  } catch (e) {
    const names = await pool.list(path).catch(() => []);
    if (names.length === 0) throw e;
    throw new SluiceError(
      'FOLDER_NOT_EMPTY',
      `cannot remove ${displayText(path)}: the folder is not empty ` +
        `(${names.length === 1 ? '1 entry' : `${names.length} entries`}; use -r to remove it with everything in it)`,
      { cause: e },
    );
  }
}
