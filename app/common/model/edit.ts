/**
 * A remote file edited in a local editor (issue #26 item 1): what the "Open files" list shows and the `edit.changed`
 * event carries. The engine's side is app/node/edit/.
 */

/**
 * Where an edited file stands:
 * - `downloading`: the remote file is being fetched into the private folder;
 * - `editing`: opened; every save so far is on the server (or there was none);
 * - `uploading`: a save is being checked against the server (STAT) and uploaded through the queue;
 * - `uploaded`: the last save is on the server (`uploadedAt`);
 * - `conflict`: the remote file changed since it was opened or last uploaded: nothing was uploaded, `edit.resolve`
 *   decides (overwrite, save under another name, reopen);
 * - `failed`: the upload (or the download) failed; the save is kept and retried after a reconnect or `retry`.
 */
export type EditState = 'downloading' | 'editing' | 'uploading' | 'uploaded' | 'conflict' | 'failed';

/** A remote file's size (bytes) and modification time (ms since the epoch, whole seconds from SFTP). */
export interface RemoteVersion {
  size: number;
  mtimeMs: number;
}

/** How a conflict (or a failure) is settled by `edit.resolve`. */
export const EDIT_CHOICES = ['overwrite', 'rename', 'reopen', 'retry'] as const;
export type EditChoice = (typeof EDIT_CHOICES)[number];

export interface EditView {
  editId: string;
  siteId: string;
  /** The remote file the saves go to (another one after "save under another name"). */
  remotePath: string;
  /** The private copy the editor has open. */
  localPath: string;
  state: EditState;
  /** A save not on the server yet: closing refuses and quitting asks while this is true. */
  unsent: boolean;
  /** When the last save reached the server (ms since the epoch). */
  uploadedAt?: number;
  /**
   * `conflict`: the version opened (or last uploaded; null: the name was to be free, after "save under another name")
   * and the one the server has now (null: it is gone).
   */
  conflict?: {
    expected: RemoteVersion | null;
    found: RemoteVersion | null;
    /** Same size and time, other content: the server's own SHA-256 differs from the version opened or uploaded. */
    content?: boolean;
  };
  /** `failed`: why (the operation, the remote path and the server's message). */
  error?: { code: string; message: string };
}
