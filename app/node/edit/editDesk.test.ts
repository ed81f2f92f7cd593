/**
 * Editing remote files (#26 item 1) through the service against a private OpenSSH sshd: open downloads into a private
 * folder; saves by a stand-in editor process (in place, by rename, vim's backup-and-write) are uploaded; a remote file
 * changed since it was opened is a conflict and nothing is overwritten until it is resolved (overwrite, save under
 * another name, reopen); a save made while offline, and one whose upload loses the connection, reach the server after
 * the reconnect; the list of edits survives a restart; close refuses an unsent save and removes the private folder.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import type { EditView } from '../../common/model/edit';
import { connectAccepting, reopenSshd, setupSshd, type SshdCtx } from '../test/sshdService';
import { sha256File } from '../test/helpers';

const run = promisify(execFile);
const STAND_IN = path.join(__dirname, '..', 'test', 'standInEditor.js');
const skip = fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`;

/** Runs the stand-in editor on `file` as its own process; resolves when its save is complete. */
async function editorSaves(mode: 'inplace' | 'rename' | 'backup', text: string, file: string): Promise<void> {
  await run(process.execPath, [STAND_IN, mode, text, file]);
}

/** Opens `remote` for editing; the view as `edit.open` answers it. */
async function open(c: SshdCtx, remote: string): Promise<EditView> {
  const opened = await c.service.invoke('edit.open', { siteId: c.siteId, path: remote });
  assert.ok(opened.ok, JSON.stringify(opened));
  return opened.value;
}

/** The next `edit.changed` of `editId` in `state` for which `also` holds (checked when the event comes). */
function nextState(
  c: SshdCtx,
  editId: string,
  state: EditView['state'],
  also: (v: EditView) => boolean = () => true,
): Promise<EditView> {
  return c.next('edit.changed', (v) => v.editId === editId && v.state === state && also(v));
}

const read = (p: string): string => fs.readFileSync(p, 'utf8');

const slow = { skip, timeout: 120_000 };

test(
  'open, saves in place, by rename and by backup-and-write are uploaded; close removes the private folder',
  slow,
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const remote = path.join(c.server.root, 'notes.txt');
    fs.writeFileSync(remote, 'v1\n');
    fs.chmodSync(remote, 0o751);
    const editor = `${JSON.stringify(process.execPath)} ${JSON.stringify(STAND_IN)}`;
    const command = `${editor} inplace "v2 from the editor command" {file}`;
    assert.ok((await c.service.invoke('settings.set', { editorCommand: command })).ok);

    const missing = await c.service.invoke('edit.open', {
      siteId: c.siteId,
      path: path.join(c.server.root, 'nope.txt'),
    });
    assert.equal(missing.ok ? '' : missing.error.code, 'NO_SUCH_FILE');
    assert.match(missing.ok ? '' : missing.error.message, /Cannot edit .*nope\.txt: no such file/);
    const folder = await c.service.invoke('edit.open', { siteId: c.siteId, path: c.server.root });
    assert.equal(folder.ok ? '' : folder.error.code, 'USAGE');
    assert.deepEqual(fs.readdirSync(path.join(c.home, 'edits')), [], 'no private folder is left by a refused open');

    const firstUpload = c.next(
      'edit.changed',
      (v) => v.state === 'uploaded' && read(remote) === 'v2 from the editor command',
    );
    const [view, again] = await Promise.all([open(c, remote), open(c, remote)]);
    assert.equal(again.editId, view.editId, 'opening the file twice opens one edit');
    assert.equal(view.state, 'editing');
    assert.equal(view.remotePath, remote);
    const dir = path.dirname(view.localPath);
    assert.equal(path.dirname(dir), path.join(c.home, 'edits'), 'the private copy is in the data folder');
    assert.equal(path.basename(view.localPath), 'notes.txt');
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700, 'the private folder is 0700');
    const uploaded = await firstUpload;
    assert.equal(uploaded.unsent, false);
    assert.ok(uploaded.uploadedAt && uploaded.uploadedAt > 0);

    const saves = [
      ['rename', 'v3 saved by rename\n'],
      ['backup', 'v4 saved as vim does, a longer line\n'],
    ] as const;
    for (const [mode, text] of saves) {
      const sent = nextState(c, view.editId, 'uploaded', () => read(remote) === text);
      await editorSaves(mode, text, view.localPath);
      await sent;
      assert.equal(read(remote), text, `a ${mode} save reached the server`);
    }
    const list = await c.service.invoke('edit.list', undefined);
    assert.ok(list.ok);
    assert.deepEqual(
      list.value.map((v) => [v.remotePath, v.state, v.unsent]),
      [[remote, 'uploaded', false]],
    );
    const jobs = c.service.jobs().filter((j) => j.name === 'notes.txt');
    assert.deepEqual(
      jobs.map((j) => `${j.direction} ${j.state}`),
      ['download done', 'upload done', 'upload done', 'upload done'],
      'each transfer was a queued job',
    );

    // A link is edited through its target, and stays a link (no editor started from here on).
    assert.ok((await c.service.invoke('settings.set', { editorCommand: '' })).ok);
    const link = path.join(c.server.root, 'notes-link');
    fs.symlinkSync('notes.txt', link);
    const viaLink = await open(c, link);
    assert.equal(viaLink.editId, view.editId, "the link's target is the file already open");
    const target = path.join(c.server.root, 'linked.conf');
    fs.writeFileSync(target, 'x=1\n');
    fs.symlinkSync('linked.conf', path.join(c.server.root, 'conf-link'));
    const linked = await open(c, path.join(c.server.root, 'conf-link'));
    assert.equal(linked.remotePath, target);
    assert.equal(path.basename(linked.localPath), 'conf-link', 'the copy has the name the user opened');
    const viaLinkSent = nextState(c, linked.editId, 'uploaded');
    await editorSaves('rename', 'x=2\n', linked.localPath);
    await viaLinkSent;
    assert.equal(read(target), 'x=2\n');
    assert.ok(fs.lstatSync(path.join(c.server.root, 'conf-link')).isSymbolicLink(), 'the link is still a link');
    assert.ok((await c.service.invoke('edit.close', { editId: linked.editId })).ok);

    const closed = c.next('edit.closed', (e) => e.editId === view.editId);
    assert.ok((await c.service.invoke('edit.close', { editId: view.editId })).ok);
    await closed;
    assert.ok(!fs.existsSync(dir), 'the private folder is gone');
    assert.deepEqual((await c.service.invoke('edit.list', undefined)).ok && [], []);
    assert.equal(read(remote), 'v4 saved as vim does, a longer line\n');
    assert.equal(fs.statSync(remote).mode & 0o7777, 0o751, "the saves kept the remote file's permission bits");
  },
);

test(
  'a remote file changed since it was opened is a conflict: nothing overwritten; overwrite, rename and reopen ' +
    'each settle it',
  slow,
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const remote = path.join(c.server.root, 'app.conf');
    fs.writeFileSync(remote, 'port=1\n');
    const view = await open(c, remote);
    const id = view.editId;

    fs.writeFileSync(remote, 'port=2 # changed by someone else\n');
    let conflict = nextState(c, id, 'conflict');
    await editorSaves('inplace', 'port=3\n', view.localPath);
    const seen = await conflict;
    assert.deepEqual(seen.conflict?.expected?.size, 7);
    assert.equal(seen.conflict?.found?.size, 33);
    assert.equal(seen.unsent, true);
    assert.equal(read(remote), 'port=2 # changed by someone else\n', 'nothing was overwritten');
    assert.deepEqual(
      c.service.pendingEdits().map((v) => v.editId),
      [id],
      'quitting would ask',
    );
    const refused = await c.service.invoke('edit.close', { editId: id });
    assert.equal(refused.ok ? '' : refused.error.code, 'INVALID_STATE', 'close refuses an unsent save');

    const overwritten = await c.service.invoke('edit.resolve', { editId: id, choice: 'overwrite' });
    assert.ok(overwritten.ok, JSON.stringify(overwritten));
    assert.equal(overwritten.value.state, 'uploaded');
    assert.equal(read(remote), 'port=3\n', 'overwrite sent the save');

    fs.writeFileSync(remote, 'port=4 # theirs again\n');
    conflict = nextState(c, id, 'conflict');
    await editorSaves('rename', 'port=5 mine\n', view.localPath);
    await conflict;
    const renamed = await c.service.invoke('edit.resolve', { editId: id, choice: 'rename' });
    assert.ok(renamed.ok, JSON.stringify(renamed));
    const other = path.join(c.server.root, 'app (edited 1).conf');
    assert.equal(renamed.value.remotePath, other);
    assert.equal(renamed.value.state, 'uploaded');
    assert.equal(read(other), 'port=5 mine\n');
    assert.equal(read(remote), 'port=4 # theirs again\n', 'the changed file was kept');

    fs.writeFileSync(other, 'port=6 # changed under the new name\n');
    conflict = nextState(c, id, 'conflict');
    await editorSaves('inplace', 'port=7\n', view.localPath);
    await conflict;
    const reopened = await c.service.invoke('edit.resolve', { editId: id, choice: 'reopen' });
    assert.ok(reopened.ok, JSON.stringify(reopened));
    assert.equal(reopened.value.state, 'editing');
    assert.equal(reopened.value.unsent, false);
    assert.equal(
      read(view.localPath),
      'port=6 # changed under the new name\n',
      "the private copy is the server's file",
    );
    assert.deepEqual(c.service.pendingEdits(), []);
    const wrong = await c.service.invoke('edit.resolve', { editId: id, choice: 'overwrite' });
    assert.equal(wrong.ok ? '' : wrong.error.code, 'INVALID_STATE', 'no conflict to settle');

    const after = nextState(c, id, 'uploaded', () => read(other) === 'port=8\n');
    await editorSaves('backup', 'port=8\n', view.localPath);
    await after;

    fs.writeFileSync(other, 'port=9 # theirs, kept\n');
    conflict = nextState(c, id, 'conflict');
    await editorSaves('inplace', 'port=10 given up\n', view.localPath);
    await conflict;
    assert.ok((await c.service.invoke('edit.close', { editId: id, force: true })).ok, 'close anyway');
    assert.ok(!fs.existsSync(path.dirname(view.localPath)), 'the private folder is gone');
    assert.equal(read(other), 'port=9 # theirs, kept\n');
    assert.deepEqual(c.service.pendingEdits(), []);
  },
);

test(
  'a save while disconnected is kept (failed, unsent), survives a restart and is uploaded when the site connects',
  slow,
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const remote = path.join(c.server.root, 'todo.md');
    fs.writeFileSync(remote, '- a\n');
    const view = await open(c, remote);
    assert.ok((await c.service.invoke('session.disconnect', { siteId: c.siteId })).ok);
    const failed = nextState(c, view.editId, 'failed');
    await editorSaves('inplace', '- a\n- b, written offline\n', view.localPath);
    const f = await failed;
    assert.equal(f.unsent, true);
    assert.equal(f.error?.code, 'NOT_CONNECTED');
    assert.equal(read(remote), '- a\n');

    const c2 = await reopenSshd(c);
    const list = await c2.service.invoke('edit.list', undefined);
    assert.ok(list.ok);
    assert.deepEqual(
      list.value.map((v) => [v.editId, v.state, v.unsent]),
      [[view.editId, 'failed', true]],
      'the edit and its unsent save came back',
    );
    assert.equal(c2.service.pendingEdits().length, 1);
    const sent = nextState(c2, view.editId, 'uploaded');
    assert.ok((await c2.service.invoke('session.connect', { siteId: c.siteId })).ok);
    await sent;
    assert.equal(read(remote), '- a\n- b, written offline\n');
    assert.deepEqual(c2.service.pendingEdits(), []);
  },
);

test('a save whose upload loses the connection is uploaded after the reconnect, not lost', slow, async (t) => {
  const reconnectPolicy = { tries: 5, baseDelayMs: 50, maxDelayMs: 300, totalDelayMs: 10_000 };
  const c = await setupSshd(t, { site: { speedLimit: 4 * 1048576 }, reconnectPolicy });
  await connectAccepting(c);
  const remote = path.join(c.server.root, 'big.log');
  fs.writeFileSync(remote, 'small\n');
  const view = await open(c, remote);
  const text = randomBytes(12 * 1048576).toString('base64');
  const source = path.join(c.home, 'big-save.txt');
  fs.writeFileSync(source, text);
  const moving = c.next('queue.delta', (d) =>
    d.events.some(
      (e) =>
        e.type === 'updated' &&
        c.service.jobs().find((j) => j.id === e.id)?.direction === 'upload' &&
        (e.patch.bytesDone ?? 0) >= 1048576,
    ),
  );
  const done = nextState(c, view.editId, 'uploaded');
  const states: string[] = [];
  const jobStates: string[] = [];
  c.service.subscribe((name, payload) => {
    if (name === 'edit.changed') states.push((payload as EditView).state);
    if (name !== 'queue.delta') return;
    for (const e of (payload as { events: Array<{ type: string; id?: string; patch?: { state?: string } }> }).events) {
      const up = c.service.jobs().find((j) => j.id === e.id)?.direction === 'upload';
      if (up && e.patch?.state && e.patch.state !== jobStates.at(-1)) jobStates.push(e.patch.state);
    }
  });
  await editorSaves('rename', `@${source}`, view.localPath);
  await moving;
  const lost = c.next('session.status', (st) => st.state === 'reconnecting');
  assert.ok((await c.server.killSessions()) >= 1, 'connections were cut');
  await lost;
  await done;
  assert.equal(await sha256File(remote), await sha256File(view.localPath), 'the whole save is on the server');
  const upload = c.service.jobs().filter((j) => j.direction === 'upload');
  assert.deepEqual(
    upload.map((j) => j.state),
    ['done'],
    'one upload, done after the reconnect',
  );
  assert.deepEqual(
    jobStates,
    ['running', 'queued', 'running', 'done'],
    'the upload went back in line at the loss and ran again',
  );
  assert.deepEqual(states, ['uploading', 'uploaded'], 'the edit was never failed by the lost connection');
});

test(
  'quitting during an upload: the next start cancels the stopped job, keeps the save and sends it on connect',
  slow,
  async (t) => {
    const c = await setupSshd(t, { site: { speedLimit: 2 * 1048576 } });
    await connectAccepting(c);
    const remote = path.join(c.server.root, 'data.csv');
    fs.writeFileSync(remote, 'a,b\n');
    const view = await open(c, remote);
    const source = path.join(c.home, 'big-save.txt');
    fs.writeFileSync(source, randomBytes(6 * 1048576).toString('hex'));
    const moving = c.next('queue.delta', (d) =>
      d.events.some(
        (e) =>
          e.type === 'updated' &&
          c.service.jobs().find((j) => j.id === e.id)?.direction === 'upload' &&
          (e.patch.bytesDone ?? 0) >= 1048576,
      ),
    );
    await editorSaves('rename', `@${source}`, view.localPath);
    await moving;
    assert.equal(c.service.pendingEdits().length, 1, 'the app would ask before quitting');
    const stopped = c.service.jobs().find((j) => j.direction === 'upload');
    assert.ok(stopped);

    const c2 = await reopenSshd(c);
    const list = await c2.service.invoke('edit.list', undefined);
    assert.ok(list.ok);
    assert.deepEqual(
      list.value.map((v) => [v.state, v.unsent]),
      [['failed', true]],
    );
    assert.equal(
      c2.service.jobs().find((j) => j.id === stopped.id)?.state,
      'cancelled',
      'the upload the quit stopped is not resumed blindly',
    );
    assert.equal(read(remote), 'a,b\n', 'the server still has the old file');
    const sent = nextState(c2, view.editId, 'uploaded');
    assert.ok((await c2.service.invoke('session.connect', { siteId: c.siteId })).ok);
    await sent;
    assert.equal(await sha256File(remote), await sha256File(source), 'the save reached the server after the restart');
  },
);
