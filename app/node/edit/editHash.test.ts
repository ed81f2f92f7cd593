/**
 * The edit conflict check by the server's own hash (#26 item 1) against a private OpenSSH sshd (sha256sum over exec):
 * a remote file rewritten with the same size and its modification time put back is a conflict (`content`), which
 * size and mtime alone would miss; the server's file untouched uploads the save as before.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import type { EditView } from '../../common/model/edit';
import { connectAccepting, setupSshd } from '../test/sshdService';

const skip = fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`;

test(
  'same size and time, other content on the server: a conflict by its SHA-256; untouched: uploaded',
  { skip, timeout: 120_000 },
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const remote = path.join(c.server.root, 'same-size.txt');
    fs.writeFileSync(remote, 'aaaa\n');
    const opened = await c.service.invoke('edit.open', { siteId: c.siteId, path: remote });
    assert.ok(opened.ok, JSON.stringify(opened));
    const view = opened.value;

    const first = c.next('edit.changed', (v: EditView) => v.editId === view.editId && v.state === 'uploaded');
    fs.writeFileSync(view.localPath, 'bbbb\n');
    await first;
    assert.equal(fs.readFileSync(remote, 'utf8'), 'bbbb\n', 'an untouched server file takes the save');

    // Someone else writes 5 other bytes and puts the time back: STAT cannot tell.
    const { atime, mtime } = fs.statSync(remote);
    fs.writeFileSync(remote, 'XXXX\n');
    fs.utimesSync(remote, atime, mtime);
    const conflict = c.next('edit.changed', (v: EditView) => v.editId === view.editId && v.state === 'conflict');
    fs.writeFileSync(view.localPath, 'cccc\n');
    const seen = await conflict;
    assert.equal(seen.conflict?.content, true);
    assert.deepEqual(seen.conflict?.found, seen.conflict?.expected, 'size and time alike');
    assert.equal(fs.readFileSync(remote, 'utf8'), 'XXXX\n', 'nothing overwritten');

    const resolved = c.next('edit.changed', (v: EditView) => v.editId === view.editId && v.state === 'uploaded');
    assert.ok((await c.service.invoke('edit.resolve', { editId: view.editId, choice: 'overwrite' })).ok);
    await resolved;
    assert.equal(fs.readFileSync(remote, 'utf8'), 'cccc\n');
  },
);
