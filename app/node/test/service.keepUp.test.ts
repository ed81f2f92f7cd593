/**
 * Keep remote up to date through the service (service/keepUp.ts, `keepUp.*`) against a private OpenSSH sshd: started
 * with "sync first" it uploads what the server lacks; a file written locally arrives, a rename is a rename there (the
 * server's inode unchanged), a removal with delete on removes it; the counts come in `keepUp.changed`; a second
 * keep-up of the same folder is refused; once stopped a later write does not arrive (shown against a second keep-up
 * whose write does arrive), and without "sync first" what was there before is left alone; the window closing
 * (SluiceService.stopKeepUps) and a disconnect stop it; "sync first" of 40 files is one engine transfer; an upload the
 * server refuses is shown with the operation, the local path and the server's message, and it goes on; behind
 * Toxiproxy, a file written while the connection is cut arrives after it (reconnecting, then a re-sync). Every wait is
 * on an event or a bounded poll, none fixed.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SFTP_SERVER_PATH, SSHD_PATH } from '../../../e2e/fixtures/sshd';
import { startProxyInFront, toxiproxyAvailable } from '../../../e2e/fixtures/toxiproxy';
import type { KeepUpView } from '../../common/ipc/keepUpIpc';
import { openEngine, type EngineFactory } from '../engine/engine';
import { waitUntil } from './helpers';
import { connectAccepting, setupSshd, type SshdCtx } from './sshdService';

const skip = fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`;
const has = (p: string, text: string) => () => fs.existsSync(p) && fs.readFileSync(p, 'utf8') === text;

function tempFolder(t: { after: (fn: () => void) => void }, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function start(c: SshdCtx, localPath: string, remotePath: string, o: { delete: boolean; syncFirst: boolean }) {
  const r = await c.service.invoke('keepUp.start', { siteId: c.siteId, localPath, remotePath, rules: [], ...o });
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.value.state, 'watching');
  return r.value;
}

/** The next `keepUp.changed` of `id` that satisfies `pred` (the current list is checked first). */
async function seen(c: SshdCtx, id: string, pred: (v: KeepUpView) => boolean): Promise<KeepUpView> {
  const now = await c.service.invoke('keepUp.list', undefined);
  assert.ok(now.ok);
  const v = now.value.find((x) => x.keepUpId === id);
  if (v && pred(v)) return v;
  return c.next('keepUp.changed', (x) => x.keepUpId === id && pred(x));
}

test(
  'keepUp: sync first, a write arrives, a rename is renamed, a delete removes; stop ends it',
  { skip },
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const local = tempFolder(t, 'sluice-keepup-');
    const remote = path.join(c.server.root, 'kept');
    fs.writeFileSync(path.join(local, 'first.txt'), 'there before');
    const v = await start(c, local, remote, { delete: true, syncFirst: true });
    await waitUntil('first.txt synced first', has(path.join(remote, 'first.txt'), 'there before'), 20_000);

    fs.writeFileSync(path.join(local, 'note.txt'), 'written while kept');
    await waitUntil('note.txt on the server', has(path.join(remote, 'note.txt'), 'written while kept'), 20_000);
    const counted = await seen(c, v.keepUpId, (x) => x.uploaded === 2 && x.last?.path === 'note.txt');
    assert.equal(counted.bytes, 'there before'.length + 'written while kept'.length);

    const again = await c.service.invoke('keepUp.start', {
      siteId: c.siteId,
      localPath: local,
      remotePath: path.join(c.server.root, 'elsewhere'),
      delete: false,
      rules: [],
      syncFirst: false,
    });
    assert.ok(!again.ok && again.error.code === 'INVALID_STATE', JSON.stringify(again));
    assert.match(again.error.message, /already kept up to date/);

    const inode = fs.statSync(path.join(remote, 'note.txt')).ino;
    fs.renameSync(path.join(local, 'note.txt'), path.join(local, 'moved.txt'));
    const renamed = await seen(c, v.keepUpId, (x) => x.renamed === 1);
    assert.deepEqual(renamed.last && [renamed.last.what, renamed.last.from, renamed.last.path], [
      'renamed',
      'note.txt',
      'moved.txt',
    ]);
    assert.equal(fs.statSync(path.join(remote, 'moved.txt')).ino, inode, 'renamed on the server, not sent again');
    assert.equal(fs.existsSync(path.join(remote, 'note.txt')), false);
    assert.equal(renamed.uploaded, 2, 'no upload for the rename');

    fs.rmSync(path.join(local, 'moved.txt'));
    await seen(c, v.keepUpId, (x) => x.deleted === 1);
    assert.equal(fs.existsSync(path.join(remote, 'moved.txt')), false);

    const stopped = c.next('keepUp.changed', (x) => x.keepUpId === v.keepUpId && x.state === 'stopped');
    assert.deepEqual(await c.service.invoke('keepUp.stop', { keepUpId: v.keepUpId }), { ok: true, value: true });
    await stopped;
    fs.writeFileSync(path.join(local, 'late.txt'), 'after the stop');

    // A second keep-up (without sync first) of another folder: its write arrives, the stopped one's never does.
    const other = tempFolder(t, 'sluice-keepup-b-');
    const otherRemote = path.join(c.server.root, 'kept-b');
    fs.writeFileSync(path.join(other, 'old.txt'), 'left alone');
    const w = await start(c, other, otherRemote, { delete: false, syncFirst: false });
    fs.writeFileSync(path.join(other, 'b.txt'), 'second');
    await waitUntil('b.txt on the server', has(path.join(otherRemote, 'b.txt'), 'second'), 20_000);
    await seen(c, w.keepUpId, (x) => x.uploaded === 1);
    assert.equal(fs.existsSync(path.join(remote, 'late.txt')), false, 'nothing after the stop');
    assert.equal(fs.existsSync(path.join(otherRemote, 'old.txt')), false, 'no sync first: what was there is left');

    // The window closing (main/index.ts) stops every keep-up.
    const closed = c.next('keepUp.changed', (x) => x.keepUpId === w.keepUpId && x.state === 'stopped');
    await c.service.stopKeepUps();
    await closed;
    assert.deepEqual(await c.service.invoke('keepUp.list', undefined), { ok: true, value: [] });

    const third = await start(c, other, otherRemote, { delete: false, syncFirst: false });
    const gone = c.next('keepUp.changed', (x) => x.keepUpId === third.keepUpId && x.state === 'stopped');
    assert.ok((await c.service.invoke('session.disconnect', { siteId: c.siteId })).ok);
    await gone;
    const list = await c.service.invoke('keepUp.list', undefined);
    assert.deepEqual(list, { ok: true, value: [] }, 'the disconnect stopped it');
  },
);

test('keepUp: "sync first" of a folder is one engine transfer of its files, not one per file', { skip }, async (t) => {
  const requests: number[] = [];
  const factory: EngineFactory = async (o) => {
    const e = await openEngine(o);
    const transfer = e.transfer.bind(e);
    e.transfer = (req, opts) => {
      requests.push(req.files?.length ?? req.sources.length);
      return transfer(req, opts);
    };
    return e;
  };
  const c = await setupSshd(t, { engine: factory });
  await connectAccepting(c);
  const local = tempFolder(t, 'sluice-keepup-many-');
  for (let i = 0; i < 40; i++) {
    fs.mkdirSync(path.join(local, `d${i % 4}`), { recursive: true });
    fs.writeFileSync(path.join(local, `d${i % 4}`, `f${i}.txt`), `file ${i}`);
  }
  const remote = path.join(c.server.root, 'many');
  const v = await start(c, local, remote, { delete: false, syncFirst: true });
  const done = await seen(c, v.keepUpId, (x) => x.uploaded === 40);
  assert.equal(done.error, undefined, JSON.stringify(done.error));
  assert.deepEqual(requests, [40], 'one transfer of the 40 files');
  assert.equal(fs.readFileSync(path.join(remote, 'd3', 'f39.txt'), 'utf8'), 'file 39');
});

test(
  'keepUp: an upload the server refuses is shown (operation, local path, server message) and the watch goes on',
  { skip: skip || (fs.existsSync(SFTP_SERVER_PATH) ? false : `${SFTP_SERVER_PATH} not installed`) },
  async (t) => {
    // sftp-server as nobody: root's permission bits are bypassed, nobody's are not.
    const subsystem = `Subsystem sftp /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ${SFTP_SERVER_PATH}`;
    const c = await setupSshd(t, { sshd: { extraConfig: [subsystem] } });
    await connectAccepting(c);
    for (const d of [path.dirname(c.server.root), c.server.root]) fs.chmodSync(d, 0o755);
    const remote = path.join(c.server.root, 'shared');
    fs.mkdirSync(path.join(remote, 'locked'), { recursive: true });
    fs.chmodSync(remote, 0o777);
    fs.chmodSync(path.join(remote, 'locked'), 0o555);
    const local = tempFolder(t, 'sluice-keepup-refused-');
    fs.mkdirSync(path.join(local, 'locked'));
    const v = await start(c, local, remote, { delete: false, syncFirst: false });

    fs.writeFileSync(path.join(local, 'locked', 'x.txt'), 'refused');
    const failed = await seen(c, v.keepUpId, (x) => x.error !== undefined);
    assert.equal(failed.state, 'watching', 'one change failed; it goes on');
    assert.equal(failed.error?.op, 'upload');
    assert.equal(failed.error?.path, path.join(local, 'locked', 'x.txt'), "the user's local path");
    assert.match(failed.error?.message ?? '', /permission denied/i, "the server's message");
    fs.writeFileSync(path.join(local, 'ok.txt'), 'accepted');
    await waitUntil('ok.txt on the server', has(path.join(remote, 'ok.txt'), 'accepted'), 20_000);
    assert.equal((await seen(c, v.keepUpId, (x) => x.uploaded === 1)).uploaded, 1);
  },
);

test(
  'keepUp through a cut connection: reconnecting, then a file written during the cut arrives',
  { skip: skip || (toxiproxyAvailable() ? false : 'toxiproxy-server is not installed'), timeout: 180_000 },
  async (t) => {
    const direct = await setupSshd(t, {
      reconnectPolicy: { tries: 30, baseDelayMs: 200, maxDelayMs: 1000, totalDelayMs: 60_000 },
    });
    const { toxi, port } = await startProxyInFront(direct.server.port, []);
    t.after(async () => toxi.stop());
    const saved = await direct.service.invoke('sites.save', {
      site: {
        name: 'cut link',
        folder: 'Tests',
        host: direct.server.host,
        port,
        user: direct.server.user,
        authMethod: 'key',
        keyPath: direct.server.clientKeyPath,
        connections: 1,
        channels: 2,
      },
    });
    assert.ok(saved.ok, JSON.stringify(saved));
    const c = { ...direct, siteId: saved.value.id };
    await connectAccepting(c);
    const local = tempFolder(t, 'sluice-keepup-cut-');
    const remote = path.join(c.server.root, 'cut');
    const v = await start(c, local, remote, { delete: false, syncFirst: true });

    const reconnecting = c.next('keepUp.changed', (x) => x.keepUpId === v.keepUpId && x.state === 'reconnecting');
    await toxi.setEnabled('sshd', false);
    fs.writeFileSync(path.join(local, 'during.txt'), 'written during the cut');
    await reconnecting;
    assert.equal(fs.existsSync(path.join(remote, 'during.txt')), false, 'not there while cut');
    await toxi.setEnabled('sshd', true);
    await waitUntil('during.txt on the server', has(path.join(remote, 'during.txt'), 'written during the cut'), 60_000);
    const back = await seen(c, v.keepUpId, (x) => x.state === 'watching' && x.uploaded === 1);
    assert.equal(back.error, undefined, JSON.stringify(back.error));
  },
);
