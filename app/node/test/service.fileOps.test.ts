/**
 * The panes' file operations (#26 item 6) through the service against a private OpenSSH sshd (posix-rename@openssh.com
 * and copy-data offered) and on the local disk: a move into another folder, an existing target refused then replaced,
 * a folder into itself refused, duplicate names ("a (copy).txt", "a (copy 2).txt") by copy-data and a folder through
 * the queue, an empty file never over an existing one, a symlink in OpenSSH's argument order, a move across file
 * systems refused (EXDEV, nothing copied), open with the default application.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import { connectAccepting, setupSshd, waitJobs, type SshdCtx } from './sshdService';

const skip = fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`;

/** Invokes and asserts success. */
async function must<T>(p: Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }>) {
  const r = await p;
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
}

function remoteDir(c: SshdCtx, name: string): string {
  const dir = path.join(c.server.root, name);
  fs.mkdirSync(path.join(dir, 'into'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha');
  fs.writeFileSync(path.join(dir, 'into', 'a.txt'), 'older');
  return dir;
}

test(
  'remote moves: into a folder, an existing target asked then replaced, a folder into itself refused',
  { skip },
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const dir = remoteDir(c, 'move');
    const siteId = c.siteId;
    const from = path.join(dir, 'a.txt');
    const to = path.join(dir, 'into', 'a.txt');
    const taken = await c.service.invoke('remote.rename', { siteId, from, to });
    assert.ok(!taken.ok && taken.error.code === 'EXISTS', JSON.stringify(taken));
    assert.equal(fs.readFileSync(to, 'utf8'), 'older', 'nothing replaced without overwrite');
    await must(c.service.invoke('remote.rename', { siteId, from, to, overwrite: true }));
    assert.equal(fs.readFileSync(to, 'utf8'), 'alpha');
    assert.ok(!fs.existsSync(from));
    const into = await c.service.invoke('remote.rename', {
      siteId,
      from: path.join(dir, 'into'),
      to: path.join(dir, 'into', 'deeper', 'into'),
    });
    assert.ok(!into.ok && into.error.code === 'USAGE' && /into itself/.test(into.error.message), JSON.stringify(into));
    const gone = await c.service.invoke('remote.rename', {
      siteId,
      from: path.join(dir, 'nothing'),
      to: path.join(dir, 'into', 'x'),
    });
    assert.ok(
      !gone.ok && gone.error.code === 'NO_SUCH_FILE' && gone.error.message.includes('nothing'),
      JSON.stringify(gone),
    );
  },
);

test('remote duplicate by copy-data, new empty file, new symlink; refusals name the path', { skip }, async (t) => {
  const c = await setupSshd(t);
  await connectAccepting(c);
  const dir = remoteDir(c, 'dup');
  const siteId = c.siteId;
  const first = await must(c.service.invoke('remote.duplicate', { siteId, path: path.join(dir, 'a.txt') }));
  assert.deepEqual(first, { path: path.join(dir, 'a (copy).txt'), via: 'copy-data' });
  const second = await must(c.service.invoke('remote.duplicate', { siteId, path: path.join(dir, 'a.txt') }));
  assert.equal(second.path, path.join(dir, 'a (copy 2).txt'));
  assert.equal(fs.readFileSync(second.path, 'utf8'), 'alpha');
  const empty = path.join(dir, 'empty.txt');
  await must(c.service.invoke('remote.newFile', { siteId, path: empty }));
  assert.equal(fs.statSync(empty).size, 0);
  const again = await c.service.invoke('remote.newFile', { siteId, path: path.join(dir, 'a.txt') });
  assert.ok(!again.ok && again.error.code === 'EXISTS' && again.error.message.includes('a.txt'), JSON.stringify(again));
  assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'alpha', 'an existing file is never truncated');
  const nowhere = await c.service.invoke('remote.newFile', { siteId, path: path.join(dir, 'none', 'x.txt') });
  assert.ok(!nowhere.ok && nowhere.error.message.includes(path.join(dir, 'none', 'x.txt')), JSON.stringify(nowhere));
  await must(c.service.invoke('remote.symlink', { siteId, target: 'a.txt', path: path.join(dir, 'link') }));
  assert.equal(fs.readlinkSync(path.join(dir, 'link')), 'a.txt', "OpenSSH's order: the link names the target");
  const linkCopy = await must(c.service.invoke('remote.duplicate', { siteId, path: path.join(dir, 'link') }));
  assert.deepEqual(linkCopy, { path: path.join(dir, 'link (copy)'), via: 'link' });
  assert.equal(fs.readlinkSync(linkCopy.path), 'a.txt', "a link's copy names the same target");
});

test(
  'remote duplicate of a folder goes through the queue: download into the cache, upload as the copy',
  { skip },
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const dir = remoteDir(c, 'dupdir');
    const r = await must(c.service.invoke('remote.duplicate', { siteId: c.siteId, path: path.join(dir, 'into') }));
    assert.equal(r.via, 'queue');
    assert.equal(r.path, path.join(dir, 'into (copy)'));
    await waitJobs(c, r.jobIds ?? [], 'done');
    await c.next('queue.delta', () => c.service.jobs().some((j) => j.direction === 'upload' && j.state === 'done'));
    assert.equal(fs.readFileSync(path.join(dir, 'into (copy)', 'a.txt'), 'utf8'), 'older');
    const copies = path.join(c.home, 'copies');
    for (let i = 0; i < 100 && fs.existsSync(copies) && fs.readdirSync(copies).length > 0; i++)
      await new Promise((res) => setTimeout(res, 50));
    assert.deepEqual(fs.readdirSync(copies), [], 'the cache is removed once the upload ends');
  },
);

test('local: move, refused overwrite, duplicate names, new file, symlink, EXDEV refused, open', { skip }, async (t) => {
  const c = await setupSshd(t);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-localops-'));
  t.after(() => fs.rmSync(work, { recursive: true, force: true }));
  fs.mkdirSync(path.join(work, 'sub'));
  fs.writeFileSync(path.join(work, 'a.txt'), 'A');
  fs.writeFileSync(path.join(work, 'sub', 'a.txt'), 'old');
  const s = c.service;
  await must(s.invoke('local.list', { path: work }));
  const at = (p: string) => path.join(work, p);
  const taken = await s.invoke('local.rename', { from: at('a.txt'), to: at('sub/a.txt') });
  assert.ok(!taken.ok && taken.error.code === 'EXISTS', JSON.stringify(taken));
  const dup = await must(s.invoke('local.duplicate', { path: at('a.txt') }));
  assert.deepEqual(dup, { path: at('a (copy).txt'), via: 'local' });
  assert.equal((await must(s.invoke('local.duplicate', { path: at('a.txt') }))).path, at('a (copy 2).txt'));
  assert.equal((await must(s.invoke('local.duplicate', { path: at('sub') }))).path, at('sub (copy)'));
  assert.equal(fs.readFileSync(at('sub (copy)/a.txt'), 'utf8'), 'old');
  await must(s.invoke('local.rename', { from: at('a.txt'), to: at('sub/a.txt'), overwrite: true }));
  assert.equal(fs.readFileSync(at('sub/a.txt'), 'utf8'), 'A');
  const self = await s.invoke('local.rename', { from: at('sub'), to: at('sub/sub') });
  assert.ok(!self.ok && /into itself/.test(self.error.message), JSON.stringify(self));
  await must(s.invoke('local.newFile', { path: at('new.txt') }));
  const twice = await s.invoke('local.newFile', { path: at('new.txt') });
  assert.ok(!twice.ok && twice.error.code === 'EXISTS', JSON.stringify(twice));
  await must(s.invoke('local.symlink', { target: 'new.txt', path: at('ln') }));
  assert.equal(fs.readlinkSync(at('ln')), 'new.txt');
  const shm = fs.mkdtempSync('/dev/shm/sluice-exdev-');
  t.after(() => fs.rmSync(shm, { recursive: true, force: true }));
  await must(s.invoke('local.list', { path: shm }));
  const exdev = await s.invoke('local.rename', { from: at('new.txt'), to: path.join(shm, 'new.txt') });
  assert.ok(!exdev.ok && /different file systems \(EXDEV\)/.test(exdev.error.message), JSON.stringify(exdev));
  assert.ok(fs.existsSync(at('new.txt')) && !fs.existsSync(path.join(shm, 'new.txt')), 'nothing half-copied');
  const noDesktop = await s.invoke('local.open', { path: at('new.txt') });
  assert.ok(!noDesktop.ok && noDesktop.error.code === 'INVALID_STATE', JSON.stringify(noDesktop));
});
