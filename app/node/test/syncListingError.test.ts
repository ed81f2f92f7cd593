/**
 * `sluice sync --delete` when a folder cannot be listed (#27): the account on the server is `nobody` (when the suite
 * runs as root; else the user running it), and one folder of the synced tree is unreadable to it (mode 000). In both
 * directions the run copies what it could list, deletes nothing anywhere, and exits 5 naming the folder and the
 * server's message.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { unprivilegedUser, type TestUser } from './asUser';
import { SSHD_PATH, describeRun, runCli, sshdWithKnownHosts, type SshdServer } from './helpers';

const user = unprivilegedUser();
const skip = typeof user === 'string' ? user : !fs.existsSync(SSHD_PATH) ? `no OpenSSH sshd at ${SSHD_PATH}` : false;

let server: SshdServer;
let local: string;
let knownHosts: string;
let stop: () => Promise<void>;

/** Writes `rel` below `root`, every folder and file owned by the account. */
function owned(root: string, rel: string, text?: string): string {
  const u = user as TestUser;
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const p = path.join(root, ...parts.slice(0, i));
    if (i === parts.length && text !== undefined) fs.writeFileSync(p, text);
    else fs.mkdirSync(p, { recursive: true });
    if (u.switchTo) fs.chownSync(p, u.uid, u.gid);
  }
  return path.join(root, rel);
}

describe(`a folder the account cannot list (${typeof user === 'string' ? 'none' : user.name})`, { skip }, () => {
  before(async () => {
    ({ server, local, knownHosts, stop } = await sshdWithKnownHosts('sluice-sync-listerr-'));
    fs.chmodSync(path.dirname(server.root), 0o711);
    fs.chmodSync(path.join(path.dirname(server.root), 'authorized_keys'), 0o644);
    if ((user as TestUser).switchTo) fs.chownSync(server.root, (user as TestUser).uid, (user as TestUser).gid);
  });
  after(async () => {
    await stop?.();
  });

  const url = (dir: string) => `sftp://${(user as TestUser).name}@127.0.0.1:${server.port}${dir}`;
  const flags = () => ['--batch', '--no-agent', '-i', server.clientKeyPath];

  test('put --delete: DEST has an unreadable folder: copies made, nothing deleted, exit 5 naming it', async () => {
    const src = path.join(local, 'put-src');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(src, 'sub/new.txt'), 'new');
    const dest = owned(server.root, 'put-dest');
    const stale = owned(dest, 'stale.txt', 'only in DEST');
    owned(dest, 'locked/inside.txt', 'hidden');
    fs.chmodSync(path.join(dest, 'locked'), 0o000);
    const r = await runCli(['sync', '--delete', ...flags(), src, url(dest)], { knownHosts });
    fs.chmodSync(path.join(dest, 'locked'), 0o755);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /cannot list DEST locked: .*permission denied/i);
    assert.match(r.stderr, /no deletion planned: the listing of DEST locked failed/);
    assert.equal(fs.existsSync(stale), true, 'nothing deleted');
    assert.equal(fs.existsSync(path.join(dest, 'locked/inside.txt')), true);
    assert.equal(fs.readFileSync(path.join(dest, 'sub/new.txt'), 'utf8'), 'new', 'what could be copied was');
  });

  test('get --delete: SRC has an unreadable folder: nothing deleted locally, exit 5 naming it', async () => {
    const src = owned(server.root, 'get-src');
    owned(src, 'a.txt', 'a');
    owned(src, 'secret/b.txt', 'b');
    fs.chmodSync(path.join(src, 'secret'), 0o000);
    const dest = path.join(local, 'get-dest');
    fs.mkdirSync(path.join(dest, 'secret'), { recursive: true });
    fs.writeFileSync(path.join(dest, 'secret/b.txt'), 'local copy');
    fs.writeFileSync(path.join(dest, 'extra.txt'), 'only here');
    const r = await runCli(['sync', '--delete', ...flags(), url(src), dest], { knownHosts });
    fs.chmodSync(path.join(src, 'secret'), 0o755);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /cannot list SRC secret: .*permission denied/i);
    assert.deepEqual(fs.readdirSync(dest).sort(), ['a.txt', 'extra.txt', 'secret']);
    assert.equal(fs.readFileSync(path.join(dest, 'secret/b.txt'), 'utf8'), 'local copy');
  });
});
