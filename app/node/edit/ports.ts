/**
 * What the edit desk needs of the rest of the service, so that app/node/edit/ sits below it: the queue (every
 * download and upload of an edit is a queued job, committed as any other: temporary name, fsync, rename), a STAT
 * through the site's session, the editor, and the service's events.
 */
import type { ConflictDefault } from '../../common/model/transferDefaults';
import type { EditView, RemoteVersion } from '../../common/model/edit';
import type { Job } from '../../common/model/job';

/** One file through the app's queue, with the conflict rule this job uses whatever Settings → Transfers says. */
export interface EditTransfer {
  siteId: string;
  direction: 'upload' | 'download';
  /** The local file (upload) or the remote one (download). */
  source: string;
  /** The folder it lands in, under the source's base name. */
  dest: string;
  conflict: Exclude<ConflictDefault, 'ask'>;
  /** The target gets the source's permission bits (an edited file keeps the remote file's mode). */
  preservePermissions?: boolean;
}

/** A remote file's STAT as the edit desk reads it: null when it does not exist; `dir` for anything not a file. */
export type RemoteFileStat = (RemoteVersion & { type: 'file' | 'dir' | 'symlink' | 'other'; mode: number }) | null;

/** How a job ended: done, failed (with its error) or cancelled (also when it left the queue unseen). */
export type JobEnd = Pick<Job, 'state' | 'error'>;

export interface EditPorts {
  /** The data folder: private copies live in `<home>/edits/`. */
  home: string;
  clock(): number;
  /** Enqueues one transfer; returns its job id. */
  enqueue(t: EditTransfer): string;
  /** Resolves when the job is done, failed or cancelled (a pause or a lost connection is not an end). */
  settled(jobId: string): Promise<JobEnd>;
  /** The queue's jobs now (a restart's leftovers of edits are cancelled: their saves are checked and sent again). */
  jobs(): readonly Job[];
  cancelJob(jobId: string): void;
  /** SSH_FXP_REALPATH: the canonical path, links resolved (NO_SUCH_FILE when it does not exist). */
  realpath(siteId: string, path: string): Promise<string>;
  /** SSH_FXP_STAT of `path` on the site's session (connecting it, or waiting for its reconnect). */
  stat(siteId: string, path: string): Promise<RemoteFileStat>;
  /**
   * The server's own SHA-256 of a remote file (check-file-name, or sha256sum over exec), or null where it offers
   * neither (no re-read: that would download the file again); absent: no hash check.
   */
  remoteHash?(siteId: string, path: string, size: number): Promise<string | null>;
  /** Opens a private copy in the user's editor (Settings' command, else the system's default application). */
  openEditor(localPath: string): Promise<void>;
  changed(view: EditView): void;
  closed(editId: string): void;
  log(level: 'info' | 'warn' | 'error', message: string, siteId?: string): void;
}
