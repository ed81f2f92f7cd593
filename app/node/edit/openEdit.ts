/**
 * One edited file: its record (privateCopies.ts), where it stands (EditState), and the upload of its saves. A save
 * is staged first (copied to `.upload/<remote name>` in the private folder), so what is hashed is what is sent while
 * the editor may save again; before the staged copy is queued the remote file is STATed, and a size or modification
 * time other than the version expected (opened, or left by our last upload; none: the name must be free), or, where
 * the server hashes its own files (check-file-name, sha256sum over exec), a SHA-256 other than the copy last in step,
 * is a conflict: nothing is uploaded until `edit.resolve` says what to do.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EditState, EditView, RemoteVersion } from '../../common/model/edit';
import { SluiceError } from '../errors';
import { errorInfoOf, jobError } from './errorInfo';
import type { EditPorts, JobEnd, RemoteFileStat } from './ports';
import { hashFile, saveRecord, type EditRecord } from './privateCopies';
import type { SaveWatch } from './saveWatcher';

/** Whether the server still has the version an upload expects (null: no file may be there). */
export function sameVersion(expected: RemoteVersion | null, found: RemoteFileStat): boolean {
  if (!expected || !found) return !expected && !found;
  return found.type === 'file' && found.size === expected.size && found.mtimeMs === expected.mtimeMs;
}

const versionOf = (s: RemoteFileStat): RemoteVersion | null => (s ? { size: s.size, mtimeMs: s.mtimeMs } : null);

export class OpenEdit {
  state: EditState = 'downloading';
  /** A save not on the server yet. */
  unsent = false;
  /** A save seen and not yet looked at by the upload loop. */
  dirty = false;
  /** Overwrite once, whatever the server has (the user's answer to a conflict). */
  force = false;
  busy?: Promise<void>;
  /** Settles once the first download is in the private copy and watched (a second open of the file waits for it). */
  opened: Promise<void> = Promise.resolve();
  jobId?: string;
  watch?: SaveWatch;
  closed = false;
  conflict?: EditView['conflict'];
  error?: { code: string; message: string };

  constructor(
    readonly record: EditRecord,
    readonly dir: string,
    readonly localPath: string,
    private readonly ports: EditPorts,
  ) {}

  get editId(): string {
    return this.record.editId;
  }

  /** What the "Open files" list shows. */
  view(): EditView {
    const r = this.record;
    return {
      editId: r.editId,
      siteId: r.siteId,
      remotePath: r.remotePath,
      localPath: this.localPath,
      state: this.state,
      unsent: this.unsent,
      ...(r.uploadedAt !== undefined ? { uploadedAt: r.uploadedAt } : {}),
      ...(this.state === 'conflict' && this.conflict ? { conflict: this.conflict } : {}),
      ...(this.state === 'failed' && this.error ? { error: this.error } : {}),
    };
  }

  /** Moves to `state` and tells the service. */
  set(state: EditState, extra: { conflict?: EditView['conflict']; error?: EditView['error'] } = {}): void {
    this.state = state;
    this.conflict = extra.conflict;
    this.error = extra.error;
    if (!this.closed) this.ports.changed(this.view());
  }

  /** A save was seen (or a retry asked): the upload loop runs unless it is running or a conflict waits. */
  saved(): void {
    this.dirty = true;
    this.pump();
  }

  /** Runs the upload loop once at a time; it ends when no save waits, at a conflict, or at a failure. */
  pump(): void {
    if (this.busy || this.closed || this.state === 'conflict' || this.state === 'downloading') return;
    this.busy = (async () => {
      while (this.dirty && !this.closed && this.state !== 'conflict') {
        this.dirty = false;
        await this.uploadOnce().catch((e: unknown) => this.failed(e));
      }
    })().finally(() => {
      this.busy = undefined;
    });
  }

  /** Records a failure: the save stays unsent and is tried again after a reconnect or `retry`. */
  failed(e: unknown): void {
    const error = errorInfoOf(e);
    this.ports.log('error', `Upload of ${this.record.remotePath} failed: ${error.message}`, this.record.siteId);
    this.set('failed', { error });
  }

  /** Stages the file, checks the server's version, uploads through the queue, records the new version. */
  private async uploadOnce(): Promise<void> {
    const r = this.record;
    const staged = path.join(this.dir, '.upload', path.posix.basename(r.remotePath));
    await fs.promises.mkdir(path.dirname(staged), { recursive: true, mode: 0o700 });
    try {
      await fs.promises.copyFile(this.localPath, staged);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // mid-rename: the add that follows is the save
      throw e;
    }
    const hash = await hashFile(staged);
    if (hash === r.syncedHash && !this.force) {
      this.unsent = false;
      if (this.state === 'failed' || this.state === 'uploading') this.set(r.uploadedAt ? 'uploaded' : 'editing');
      return;
    }
    this.unsent = true;
    this.set('uploading');
    const found = await this.ports.stat(r.siteId, r.remotePath);
    const changed = this.force ? undefined : await this.remoteChange(r.expected, found);
    if (changed) {
      this.ports.log('warn', `${r.remotePath} changed on the server since it was opened: not uploaded`, r.siteId);
      this.set('conflict', {
        conflict: {
          expected: r.expected,
          found: versionOf(found),
          ...(changed === 'content' ? { content: true } : {}),
        },
      });
      return;
    }
    this.force = false;
    // The commit renames a new file over the old one: it keeps the old one's permission bits only when told.
    const mode = found?.type === 'file' ? found.mode & 0o7777 : undefined;
    if (mode !== undefined) await fs.promises.chmod(staged, mode);
    const job = await this.transfer('upload', staged, path.posix.dirname(r.remotePath), mode !== undefined);
    if (job.state !== 'done') throw jobError(job, `Upload of ${r.remotePath}`);
    await this.uploaded(hash, staged);
  }

  /**
   * Whether the server's file is not the version expected: another size or time (`version`), or the same ones with
   * other content, by the server's own SHA-256 where it offers one against the hash of the copy last in step
   * (`content`: a change within the same second, or with its time put back); undefined when it is the same.
   */
  private async remoteChange(
    expected: RemoteVersion | null,
    found: RemoteFileStat,
  ): Promise<'version' | 'content' | undefined> {
    const r = this.record;
    if (!sameVersion(expected, found)) return 'version';
    if (!found || !r.syncedHash || !this.ports.remoteHash) return undefined;
    const sha256 = await this.ports.remoteHash(r.siteId, r.remotePath, found.size).catch(() => null);
    return sha256 && sha256 !== r.syncedHash ? 'content' : undefined;
  }

  /** After a done upload: the version the server has now is the one the next save expects. */
  private async uploaded(hash: string | null, staged: string): Promise<void> {
    const r = this.record;
    const after = await this.ports.stat(r.siteId, r.remotePath).catch(() => null);
    const local = await fs.promises.stat(staged);
    r.expected = versionOf(after) ?? { size: local.size, mtimeMs: Math.floor(local.mtimeMs / 1000) * 1000 };
    r.syncedHash = hash;
    r.uploadedAt = this.ports.clock();
    saveRecord(this.dir, r);
    this.unsent = this.dirty;
    this.set('uploaded');
  }

  /** One transfer through the queue, awaited to its end. */
  async transfer(direction: 'upload' | 'download', source: string, dest: string, keepMode = false): Promise<JobEnd> {
    const jobId = this.ports.enqueue({
      siteId: this.record.siteId,
      direction,
      source,
      dest,
      conflict: 'overwrite',
      ...(keepMode ? { preservePermissions: true } : {}),
    });
    this.jobId = jobId;
    try {
      return await this.ports.settled(jobId);
    } finally {
      this.jobId = undefined;
    }
  }

  /**
   * Fetches the server's file into the private copy: downloaded into `.download/`, then renamed over the copy (as an
   * editor saving by rename would), with the version STATed before the download as the one the next upload expects.
   */
  async download(): Promise<void> {
    const r = this.record;
    const before = await this.ports.stat(r.siteId, r.remotePath);
    if (!before) throw new SluiceError('NO_SUCH_FILE', `Cannot edit ${r.remotePath}: no such file on the server`);
    if (before.type !== 'file') {
      throw new SluiceError('USAGE', `Cannot edit ${r.remotePath}: it is a ${before.type}, not a file`);
    }
    const into = path.join(this.dir, '.download');
    await fs.promises.mkdir(into, { recursive: true, mode: 0o700 });
    const job = await this.transfer('download', r.remotePath, into);
    if (job.state !== 'done') throw jobError(job, `Download of ${r.remotePath}`);
    const fetched = path.join(into, path.posix.basename(r.remotePath));
    r.syncedHash = await hashFile(fetched);
    r.expected = versionOf(before);
    await fs.promises.rename(fetched, this.localPath);
    saveRecord(this.dir, r);
    this.unsent = false;
  }
}
