/**
 * The Properties dialog's channels (service/remoteProps.ts) against a private OpenSSH sshd: `remote.stat` says what a
 * file, a folder and a symlink are (owner and group ids, the link's target by READLINK); `remote.chmod` sets a mode,
 * recursively with FileZilla's "files only" and "folders only"; a refusal carries the server's text and the path.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import { connectAccepting, setupSshd } from './sshdService';

const skip = fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`;
const modeOf = (p: string): number => fs.statSync(p).mode & 0o7777;
/** A user's or group's name on this machine (getent), as the server's `ls -l` lines name them. */
const nameOf = (db: 'passwd' | 'group', id: number): string =>
  spawnSync('getent', [db, String(id)], { encoding: 'utf8', timeout: 5_000 }).stdout.split(':')[0];
const userName = (uid: number) => nameOf('passwd', uid);
const groupName = (gid: number) => nameOf('group', gid);

/** `dir` with a file (0644), a folder (0755) holding a file and a folder, and a link to the file. */
function tree(dir: string): void {
  fs.mkdirSync(path.join(dir, 'sub', 'deep'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'a.txt'), 'x'.repeat(321));
  fs.writeFileSync(path.join(dir, 'sub', 'b.txt'), 'y');
  for (const f of ['a.txt', 'sub/b.txt']) fs.chmodSync(path.join(dir, f), 0o644);
  for (const d of ['sub', 'sub/deep']) fs.chmodSync(path.join(dir, d), 0o755);
  fs.symlinkSync('a.txt', path.join(dir, 'link'));
}

test(
  'remote.stat: a file, a folder and a symlink as the server gives them; remote.list names owners and groups',
  { skip },
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const dir = path.join(c.server.root, 'props');
    tree(dir);
    const file = await c.service.invoke('remote.stat', { siteId: c.siteId, path: path.join(dir, 'a.txt') });
    assert.ok(file.ok, JSON.stringify(file));
    const st = fs.statSync(path.join(dir, 'a.txt'));
    assert.deepEqual(
      { ...file.value, mtimeMs: Math.floor(file.value.mtimeMs / 1000) },
      {
        path: path.join(dir, 'a.txt'),
        type: 'file',
        size: 321,
        mtimeMs: Math.floor(st.mtimeMs / 1000),
        mode: 0o644,
        uid: st.uid,
        gid: st.gid,
      },
    );
    const folder = await c.service.invoke('remote.stat', { siteId: c.siteId, path: path.join(dir, 'sub') });
    assert.ok(folder.ok && folder.value.type === 'dir' && folder.value.mode === 0o755, JSON.stringify(folder));
    const link = await c.service.invoke('remote.stat', { siteId: c.siteId, path: path.join(dir, 'link') });
    assert.ok(link.ok, JSON.stringify(link));
    assert.equal(link.value.type, 'symlink');
    assert.deepEqual(link.value.link, { target: 'a.txt', targetType: 'file' });
    assert.equal(link.value.size, 321, "a link's size is its target's");
    const listing = await c.service.invoke('remote.list', { siteId: c.siteId, path: dir });
    assert.ok(listing.ok, JSON.stringify(listing));
    const owners = new Set(listing.value.entries.map((e) => `${e.owner} ${e.group}`));
    assert.deepEqual([...owners], [`${userName(st.uid)} ${groupName(st.gid)}`], 'names from the long listing');
    const none = await c.service.invoke('remote.stat', { siteId: c.siteId, path: path.join(dir, 'nothing') });
    assert.ok(!none.ok && none.error.code === 'NO_SUCH_FILE', JSON.stringify(none));
    assert.match(none.error.message, /nothing/);
  },
);

test('remote.chmod: one file; a folder recursively, files only, then folders only', { skip }, async (t) => {
  const c = await setupSshd(t);
  await connectAccepting(c);
  const dir = path.join(c.server.root, 'chmod');
  tree(dir);
  const at = (p: string) => path.join(dir, p);
  const one = await c.service.invoke('remote.chmod', { siteId: c.siteId, path: at('a.txt'), mode: 0o600 });
  assert.ok(one.ok, JSON.stringify(one));
  assert.deepEqual(one.value, { changed: 1, unchanged: 0, links: 0 });
  assert.equal(modeOf(at('a.txt')), 0o600);

  const files = await c.service.invoke('remote.chmod', { siteId: c.siteId, path: dir, mode: 0o640, recurse: 'files' });
  assert.ok(files.ok, JSON.stringify(files));
  assert.deepEqual([modeOf(at('a.txt')), modeOf(at('sub/b.txt'))], [0o640, 0o640]);
  assert.deepEqual([modeOf(at('sub')), modeOf(at('sub/deep'))], [0o755, 0o755], 'folders untouched');
  assert.equal(files.value.links, 1, 'the link inside is left alone');

  const dirs = await c.service.invoke('remote.chmod', {
    siteId: c.siteId,
    path: at('sub'),
    mode: 0o750,
    recurse: 'folders',
  });
  assert.ok(dirs.ok, JSON.stringify(dirs));
  assert.deepEqual([modeOf(at('sub')), modeOf(at('sub/deep')), modeOf(at('sub/b.txt'))], [0o750, 0o750, 0o640]);
});

/** chattr +i: even root's chmod is refused (EPERM); undefined when the file system has no immutable flag. */
function immutable(p: string, on: boolean): boolean {
  return spawnSync('chattr', [on ? '+i' : '-i', p], { timeout: 5_000 }).status === 0;
}

test("remote.chmod: a refusal names the path and carries the server's message", { skip }, async (t) => {
  const c = await setupSshd(t);
  await connectAccepting(c);
  const file = path.join(c.server.root, 'locked.txt');
  fs.writeFileSync(file, 'z');
  fs.chmodSync(file, 0o644);
  if (!immutable(file, true)) return t.skip('chattr +i is not available on this file system');
  // Undone here: the server's cleanup (registered first, run first) removes the folder.
  try {
    const r = await c.service.invoke('remote.chmod', { siteId: c.siteId, path: file, mode: 0o600 });
    assert.ok(!r.ok, JSON.stringify(r));
    assert.equal(r.error.code, 'PERMISSION_DENIED');
    assert.match(
      r.error.message,
      /^cannot change the mode of \/\S*\/locked\.txt: permission denied \(SSH_FX_PERMISSION_DENIED\)$/,
    );
    assert.equal(modeOf(file), 0o644);
  } finally {
    immutable(file, false);
  }
});
