/**
 * Remote files edited in a local editor (issue #26 item 1): `edit.open` downloads the file through the queue into a
 * private folder of the data folder (privateCopies.ts), opens it in the editor and watches its folder for saves
 * (saveWatcher.ts); each settled save is checked against the server and uploaded through the queue (openEdit.ts). A
 * save is never dropped: a failed upload stays unsent and is tried again when the site connects or on `retry`; a
 * conflict waits for `edit.resolve`; closing refuses while a save is unsent unless forced; `pendingEdits()` lets the
 * app ask before it quits; the list of edits is kept in the private folders and comes back after a restart.
 */
import * as path from 'node:path';
import type { EditChoice, EditView } from '../../common/model/edit';
import { isFinished } from '../../common/model/job';
import { SluiceError } from '../errors';
import { errorInfoOf } from './errorInfo';
import { OpenEdit } from './openEdit';
import type { EditPorts } from './ports';
import { hashFile, loadRecords, makePrivateFolder, removePrivateFolder, saveRecord } from './privateCopies';
import { watchSaves } from './saveWatcher';

/** How many remote files may be open for editing at once. */
export const MAX_EDITS = 200;

export class EditDesk {
  private readonly edits = new Map<string, OpenEdit>();
  /** Settles when {@link restore} has brought back the previous run's edits. */
  private restored: Promise<void> = Promise.resolve();

  constructor(private readonly ports: EditPorts) {}

  /** Every open edit, in the order opened. */
  list(): EditView[] {
    return [...this.edits.values()].map((e) => e.view());
  }

  /** {@link list} once the previous run's edits are back (`edit.list` right after a start). */
  async listRestored(): Promise<EditView[]> {
    await this.restored.catch(() => undefined);
    return this.list();
  }

  /** The edits with a save not on the server yet (unsent, or uploading now): quitting asks while there is one. */
  pendingEdits(): EditView[] {
    return this.list().filter((v) => v.unsent || v.state === 'uploading');
  }

  /**
   * Downloads `opened` (a link: its target) into a new private folder under the name opened, watches it, opens it in
   * the editor; an edit of the same file already open is opened in the editor again.
   * @throws SluiceError NO_SUCH_FILE, USAGE (a folder), the download's error (the private folder is removed then)
   */
  async open(siteId: string, opened: string): Promise<EditView> {
    // A link is edited through its target: the commit renames a new file over the path it uploads to, and over a link
    // that would replace the link itself.
    const remotePath = await this.ports.realpath(siteId, opened).catch((e: unknown) => {
      if (errorInfoOf(e).code !== 'NO_SUCH_FILE') throw e;
      throw new SluiceError('NO_SUCH_FILE', `Cannot edit ${opened}: no such file on the server`);
    });
    const already = [...this.edits.values()].find(
      (e) => e.record.siteId === siteId && e.record.remotePath === remotePath,
    );
    if (already) {
      await already.opened;
      await this.ports.openEditor(already.localPath);
      return already.view();
    }
    if (this.edits.size >= MAX_EDITS) {
      throw new SluiceError('INVALID_STATE', `${MAX_EDITS} files are open for editing: close one first`);
    }
    const { editId, dir, localPath } = makePrivateFolder(this.ports.home, opened);
    const localName = path.basename(localPath);
    const record = { editId, siteId, remotePath, localName, expected: null, syncedHash: null };
    const edit = new OpenEdit(record, dir, localPath, this.ports);
    this.edits.set(editId, edit);
    edit.set('downloading');
    edit.opened = (async () => {
      try {
        await edit.download();
      } catch (e) {
        this.drop(edit);
        throw e;
      }
      await this.watch(edit);
      edit.set('editing');
    })();
    await edit.opened;
    await this.ports.openEditor(localPath);
    return edit.view();
  }

  /**
   * Settles a conflict or a failure: `overwrite` uploads the last save whatever the server has; `rename` uploads it
   * under a free name beside the file (`name (edited 1).ext`) and later saves go there; `reopen` replaces the private
   * copy with the server's file (the unsent save is given up, at the user's word); `retry` tries a failed upload again.
   * @throws SluiceError NOT_FOUND, INVALID_STATE (nothing to settle: no conflict for the first three, no failure for
   *   retry)
   */
  async resolve(editId: string, choice: EditChoice): Promise<EditView> {
    const edit = this.get(editId);
    const wants = choice === 'retry' ? 'failed' : 'conflict';
    if (edit.state !== wants && !(choice === 'reopen' && edit.state === 'failed')) {
      const what = `${edit.record.remotePath} is ${edit.state}`;
      throw new SluiceError('INVALID_STATE', `${what}: nothing for ${choice} to settle`);
    }
    if (choice === 'reopen') {
      edit.dirty = false;
      edit.set('downloading');
      try {
        await edit.download();
        edit.set('editing');
      } catch (e) {
        edit.failed(e);
      }
      return edit.view();
    }
    if (choice === 'rename') {
      edit.record.remotePath = await this.freeName(edit);
      edit.record.expected = null;
      edit.record.syncedHash = null;
      saveRecord(edit.dir, edit.record);
    }
    if (choice === 'overwrite') edit.force = true;
    edit.set('uploading');
    edit.saved();
    await edit.busy;
    return edit.view();
  }

  /**
   * Stops watching and removes the private folder.
   * @throws SluiceError INVALID_STATE while a save is unsent or uploading, unless `force` (the upload is cancelled)
   */
  async close(editId: string, force = false): Promise<void> {
    const edit = this.get(editId);
    if (!force && (edit.unsent || edit.state === 'uploading' || edit.dirty)) {
      throw new SluiceError(
        'INVALID_STATE',
        `${edit.record.remotePath} has a save not uploaded yet (${edit.state}): ` + 'wait for it, or close anyway',
      );
    }
    if (edit.jobId) {
      try {
        this.ports.cancelJob(edit.jobId);
      } catch {
        /* ended meanwhile */
      }
    }
    await edit.watch?.close();
    this.drop(edit);
  }

  /** The site connected (again): its failed uploads are tried once more. */
  siteBack(siteId: string): void {
    for (const e of this.edits.values()) {
      if (e.record.siteId === siteId && e.state === 'failed' && e.unsent) e.saved();
    }
  }

  /**
   * The edits a previous run left: each watched again; one whose copy differs from what the server has from us is
   * `failed` (unsent) until its site connects; a download that never finished is removed. Their jobs still in the
   * queue are cancelled: the save is checked against the server and sent again.
   */
  restore(): Promise<void> {
    this.restored = this.restoreEdits();
    return this.restored;
  }

  private async restoreEdits(): Promise<void> {
    const found = loadRecords(this.ports.home);
    const dirs = found.map((f) => f.dir);
    // Before the first await: the queue starts its leftover jobs once the caller's turn ends.
    for (const job of this.ports.jobs()) {
      const owned = dirs.some((d) => job.source.startsWith(d + path.sep) || job.dest.startsWith(d + path.sep));
      if (owned && !isFinished(job.state)) this.ports.cancelJob(job.id);
    }
    for (const { dir, record } of found) {
      if (record.syncedHash === null) {
        removePrivateFolder(dir);
        continue;
      }
      const localPath = path.join(dir, record.localName);
      const edit = new OpenEdit(record, dir, localPath, this.ports);
      this.edits.set(record.editId, edit);
      const hash = await hashFile(localPath);
      edit.unsent = hash !== record.syncedHash;
      await this.watch(edit);
      if (edit.unsent) {
        edit.set('failed', {
          error: {
            code: 'NOT_CONNECTED',
            message:
              `A save of ${record.remotePath} was not uploaded ` +
              'before Sluice closed: it is sent when the site connects',
          },
        });
      } else edit.set(record.uploadedAt ? 'uploaded' : 'editing');
    }
  }

  /** The service closes: watching stops; the private copies and their records stay for the next start. */
  async shutdown(): Promise<void> {
    for (const e of this.edits.values()) e.closed = true;
    await Promise.all([...this.edits.values()].map((e) => e.watch?.close()));
  }

  private get(editId: string): OpenEdit {
    const edit = this.edits.get(editId);
    if (!edit) throw new SluiceError('NOT_FOUND', 'No such open file (it was closed)');
    return edit;
  }

  private async watch(edit: OpenEdit): Promise<void> {
    edit.watch = watchSaves(
      edit.localPath,
      () => edit.saved(),
      (e) => this.ports.log('warn', `Watching ${edit.localPath} for saves failed: ${e.message}`, edit.record.siteId),
    );
    await edit.watch.ready;
  }

  private drop(edit: OpenEdit): void {
    edit.closed = true;
    this.edits.delete(edit.editId);
    removePrivateFolder(edit.dir);
    this.ports.closed(edit.editId);
  }

  /** `name (edited N).ext` beside the file, the first N from 1 the server does not have (at most 100 tried). */
  private async freeName(edit: OpenEdit): Promise<string> {
    const remote = edit.record.remotePath;
    const ext = path.posix.extname(remote);
    const stem = remote.slice(0, remote.length - ext.length);
    for (let n = 1; n <= 100; n++) {
      const candidate = `${stem} (edited ${n})${ext}`;
      if (!(await this.ports.stat(edit.record.siteId, candidate))) return candidate;
    }
    throw new SluiceError('EXISTS', `No free name beside ${remote} (tried ${stem} (edited 1…100)${ext})`);
  }
}
