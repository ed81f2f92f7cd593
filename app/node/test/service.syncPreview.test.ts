/**
 * Synchronize…'s preview (service/syncPreview.ts) against a private OpenSSH sshd: both folders listed recursively
 * through the site's session and planned as `sluice sync --dry-run` plans them (create, update, delete with reasons,
 * counts, the filters, size only, either direction), nothing changed on either side; `sync.cancel` stops a preview;
 * a folder the server refuses to list (sftp-server as nobody, a 0700 folder: SSH_FX_PERMISSION_DENIED) withholds
 * every deletion and names the folder.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SFTP_SERVER_PATH, SSHD_PATH } from '../../../e2e/fixtures/sshd';
import type { SyncPreview } from '../../common/ipc/syncIpc';
import { connectAccepting, reopenSshd, setupSshd, waitJobs, type SshdCtx } from './sshdService';

const skip = fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`;
const T = new Date('2025-06-01T12:00:00Z');
const LATER = new Date(T.getTime() + 3600_000);

function write(root: string, rel: string, text: string, time = T): void {
  const p = path.join(root, ...rel.split('/'));
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  fs.utimesSync(p, time, time);
}

/** Every path below `root` with its size and mtime, to show nothing changed. */
function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const st = fs.lstatSync(path.join(dir, d.name));
      out.push(`${rel}${d.name} ${d.isDirectory() ? 'dir' : st.size} ${st.mtimeMs}`);
      if (d.isDirectory()) walk(path.join(dir, d.name), `${rel}${d.name}/`);
    }
  };
  walk(root, '');
  return out.sort();
}

/** A local tree and a remote one that differ in every way a plan tells. */
function trees(c: SshdCtx, t: { after: (fn: () => void) => void }): { local: string; remote: string } {
  const local = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-syncpreview-'));
  t.after(() => fs.rmSync(local, { recursive: true, force: true }));
  const remote = path.join(c.server.root, 'www');
  write(local, 'index.html', '<h1>newer</h1>', LATER);
  write(remote, 'index.html', '<h1>old</h1>');
  write(local, 'same.css', 'body{}');
  write(remote, 'same.css', 'body{}');
  write(local, 'twin.txt', 'AAAA');
  write(remote, 'twin.txt', 'BBBB');
  write(local, 'img/logo.png', 'png!');
  write(local, 'scratch.tmp', 'left out');
  write(remote, 'old.html', 'gone');
  write(remote, 'old/a.txt', 'gone too');
  return { local, remote };
}

const lines = (p: SyncPreview) => p.items.map((i) => `${i.action} ${i.path} ${i.bytes} (${i.reason})`);

test(
  'sync.preview: both trees planned as sync plans them, in both directions; nothing changes',
  { skip },
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const { local, remote } = trees(c, t);
    const before = [snapshot(local), snapshot(remote)];
    const base = { siteId: c.siteId, localPath: local, remotePath: remote, compare: 'size-time' as const };
    const up = await c.service.invoke('sync.preview', {
      ...base,
      previewId: 'p1',
      direction: 'upload',
      delete: true,
      rules: [{ kind: 'exclude', pattern: '*.tmp' }],
    });
    assert.ok(up.ok, JSON.stringify(up));
    assert.deepEqual(lines(up.value), [
      'create img 0 (folder not in DEST)',
      'create img/logo.png 4 (not in DEST)',
      'update index.html 14 (size differs)',
      'delete old 0 (not in SRC)',
      'delete old.html 4 (not in SRC)',
      'delete old/a.txt 8 (not in SRC)',
    ]);
    assert.equal(up.value.same, 2, 'same.css, and twin.txt: same size and time');
    assert.deepEqual(up.value.errors, []);
    assert.equal(up.value.remoteRoot, remote);
    const keep = await c.service.invoke('sync.preview', {
      ...base,
      previewId: 'p2',
      direction: 'download',
      compare: 'size',
      delete: false,
      rules: [],
    });
    assert.ok(keep.ok, JSON.stringify(keep));
    assert.deepEqual(lines(keep.value), [
      'update index.html 12 (size differs)',
      'create old 0 (folder not in DEST)',
      'create old.html 4 (not in DEST)',
      'create old/a.txt 8 (not in DEST)',
    ]);
    assert.equal(keep.value.onlyInDest, 3, 'img, img/logo.png, scratch.tmp kept: no deletion asked');
    const hashed = await c.service.invoke('sync.preview', {
      ...base,
      previewId: 'p3',
      direction: 'upload',
      compare: 'checksum',
      delete: false,
      rules: [{ kind: 'exclude', pattern: '*.tmp' }],
    });
    assert.ok(hashed.ok, JSON.stringify(hashed));
    assert.deepEqual(
      lines(hashed.value).filter((l) => l.includes('twin') || l.includes('same.css')),
      ['update twin.txt 4 (same size, SHA-256 differs (--checksum))'],
      "twin.txt's content differs at the same size and time: only the hashes tell (sha256sum over exec)",
    );
    assert.deepEqual([snapshot(local), snapshot(remote)], before, 'a preview changes nothing');
  },
);

test('sync.cancel stops a preview; sync.run needs a preview the service still has', { skip }, async (t) => {
  const c = await setupSshd(t);
  await connectAccepting(c);
  const { local, remote } = trees(c, t);
  const req = { siteId: c.siteId, localPath: local, remotePath: remote, compare: 'size-time' as const, rules: [] };
  const pending = c.service.invoke('sync.preview', { ...req, previewId: 'c1', direction: 'upload', delete: true });
  const cancelled = await c.service.invoke('sync.cancel', { previewId: 'c1' });
  assert.deepEqual(cancelled, { ok: true, value: true });
  const r = await pending;
  assert.ok(!r.ok && r.error.code === 'ABORTED', JSON.stringify(r));
  assert.deepEqual(await c.service.invoke('sync.cancel', { previewId: 'c1' }), { ok: true, value: false });
  const run = await c.service.invoke('sync.run', { siteId: c.siteId, previewId: 'c1', leaveOut: [] });
  assert.ok(!run.ok && run.error.code === 'NOT_FOUND', JSON.stringify(run));
});

test(
  'a folder the server refuses to list: no deletion planned, the folder and the message named',
  { skip: skip || (fs.existsSync(SFTP_SERVER_PATH) ? false : `${SFTP_SERVER_PATH} not installed`) },
  async (t) => {
    // sftp-server as nobody: root's permission bits are bypassed, nobody's are not.
    const subsystem = `Subsystem sftp /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ${SFTP_SERVER_PATH}`;
    const c = await setupSshd(t, { sshd: { extraConfig: [subsystem] } });
    await connectAccepting(c);
    const { local, remote } = trees(c, t);
    for (const d of [path.dirname(c.server.root), c.server.root]) fs.chmodSync(d, 0o755);
    write(remote, 'locked/secret.txt', 'x');
    fs.chmodSync(path.join(remote, 'locked'), 0o700);
    const r = await c.service.invoke('sync.preview', {
      siteId: c.siteId,
      previewId: 'e1',
      direction: 'upload',
      localPath: local,
      remotePath: remote,
      compare: 'size-time',
      delete: true,
      rules: [],
    });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(
      r.value.errors.map((e) => `${e.side} ${e.path}`),
      ['remote locked'],
    );
    assert.match(r.value.errors[0].message, /permission denied/i);
    assert.deepEqual(
      r.value.items.filter((i) => i.action === 'delete'),
      [],
      'old.html and old/ are not deleted',
    );
    assert.match(r.value.deletionsWithheld ?? '', /locked.*failed/);
    assert.ok(
      r.value.items.some((i) => i.path === 'img/logo.png'),
      'copies still planned',
    );
  },
);

test(
  'sync.run: the ticked plan as one batch of the queue; files arrive, deletions after the copies',
  { skip },
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const { local, remote } = trees(c, t);
    const p = await c.service.invoke('sync.preview', {
      siteId: c.siteId,
      previewId: 'r1',
      direction: 'upload',
      localPath: local,
      remotePath: remote,
      compare: 'size-time',
      delete: true,
      rules: [{ kind: 'exclude', pattern: '*.tmp' }],
    });
    assert.ok(p.ok, JSON.stringify(p));
    // Keep old/a.txt: its folder's deletion goes with it (the dialog's rule; the plan then keeps old/ too).
    const run = await c.service.invoke('sync.run', {
      siteId: c.siteId,
      previewId: 'r1',
      leaveOut: ['old/a.txt', 'old'],
    });
    assert.ok(run.ok, JSON.stringify(run));
    assert.deepEqual(
      { copies: run.value.copies, deletions: run.value.deletions, bytes: run.value.bytes },
      { copies: 2, deletions: 1, bytes: 18 },
    );
    const batch = c.service.jobs().filter((j) => j.batchId === run.value.batchId);
    assert.equal(batch.length, 3, 'two copies and the steps job, one batch');
    await waitJobs(c, run.value.jobIds, 'done');
    assert.equal(fs.readFileSync(path.join(remote, 'index.html'), 'utf8'), '<h1>newer</h1>');
    assert.equal(fs.statSync(path.join(remote, 'index.html')).mtimeMs, LATER.getTime(), 'times kept');
    assert.equal(fs.readFileSync(path.join(remote, 'img', 'logo.png'), 'utf8'), 'png!');
    assert.equal(fs.existsSync(path.join(remote, 'old.html')), false, 'deleted');
    assert.equal(fs.readFileSync(path.join(remote, 'old', 'a.txt'), 'utf8'), 'gone too', 'unticked: kept');
    assert.equal(fs.existsSync(path.join(remote, 'scratch.tmp')), false, 'excluded: not copied');
    const again = await c.service.invoke('sync.preview', {
      siteId: c.siteId,
      previewId: 'r2',
      direction: 'upload',
      localPath: local,
      remotePath: remote,
      compare: 'size-time',
      delete: false,
      rules: [{ kind: 'exclude', pattern: '*.tmp' }],
    });
    assert.ok(again.ok, JSON.stringify(again));
    assert.deepEqual(again.value.items, [], 'in step: nothing left to do');
  },
);

test('a sync batch paused, the app restarted and the batch resumed: the plan finishes', { skip }, async (t) => {
  let c = await setupSshd(t);
  await connectAccepting(c);
  const { local, remote } = trees(c, t);
  fs.writeFileSync(path.join(local, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
  assert.ok((await c.service.invoke('settings.set', { speedLimit: 256 * 1024 })).ok);
  const base = { siteId: c.siteId, localPath: local, remotePath: remote, compare: 'size-time' as const, rules: [] };
  const p = await c.service.invoke('sync.preview', { ...base, previewId: 'k1', direction: 'upload', delete: true });
  assert.ok(p.ok, JSON.stringify(p));
  const run = await c.service.invoke('sync.run', { siteId: c.siteId, previewId: 'k1', leaveOut: [] });
  assert.ok(run.ok, JSON.stringify(run));
  const { batchId, jobIds } = run.value;
  await c.next('queue.delta', () => c.service.jobs().some((j) => j.batchId === batchId && j.state === 'running'));
  assert.ok((await c.service.invoke('queue.pause', { batchId })).ok);
  const stopped = () =>
    c.service.jobs().every((j) => j.batchId !== batchId || j.state === 'paused' || j.state === 'done');
  if (!stopped()) await c.next('queue.delta', stopped);
  const before = c.service.jobs().filter((j) => j.batchId === batchId);
  assert.ok(
    before.some((j) => j.name === 'big.bin' && j.state === 'paused'),
    JSON.stringify(before),
  );
  assert.ok(fs.existsSync(path.join(remote, 'old.html')), 'nothing deleted while copies are missing');
  c = await reopenSshd(c);
  assert.deepEqual(
    c.service
      .jobs()
      .filter((j) => j.batchId === batchId)
      .map((j) => j.state),
    before.map((j) => j.state),
    'the batch came back as it was',
  );
  assert.ok((await c.service.invoke('settings.set', { speedLimit: 0 })).ok);
  assert.ok((await c.service.invoke('session.connect', { siteId: c.siteId })).ok);
  assert.ok((await c.service.invoke('queue.resume', { batchId })).ok);
  await waitJobs(c, jobIds, 'done');
  assert.equal(fs.statSync(path.join(remote, 'big.bin')).size, 3 * 1024 * 1024);
  assert.equal(fs.existsSync(path.join(remote, 'old.html')), false);
  assert.equal(fs.existsSync(path.join(remote, 'old')), false);
  assert.deepEqual(
    fs.readdirSync(remote).filter((n) => n.includes('.sluice-')),
    [],
    'no temporary file left',
  );
});

test('compare by checksum on a server that cannot hash (sftp only): refused, saying why', { skip }, async (t) => {
  const c = await setupSshd(t, { sshd: { extraConfig: ['ForceCommand internal-sftp'] } });
  await connectAccepting(c);
  const { local, remote } = trees(c, t);
  const r = await c.service.invoke('sync.preview', {
    siteId: c.siteId,
    previewId: 'h1',
    direction: 'upload',
    localPath: local,
    remotePath: remote,
    compare: 'checksum',
    delete: false,
    rules: [],
  });
  assert.ok(!r.ok && r.error.code === 'USAGE', JSON.stringify(r));
  assert.match(
    r.error.message,
    /^Compare by checksum: the server cannot hash its files itself \(.+\); compare by size/,
  );
  assert.doesNotMatch(r.error.message, /--checksum/, "the dialog's words, not the CLI's flags");
});
