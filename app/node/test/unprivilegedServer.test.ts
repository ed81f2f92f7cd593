/**
 * Uploads to an ordinary account on the server (#30 item 1, the remote side). The server's temporary file was created
 * with the source's mode: a read-only (0444) source gave a 0444 `.part`, and every segment after the first, opening
 * it again for writing, was refused SSH_FX_PERMISSION_DENIED (root, which the suite's sshd logs in as by default,
 * bypasses the bits). The account here is `nobody` when the suite runs as root (sshd drops to it), else the user
 * running the tests.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { unprivilegedUser, type TestUser } from './asUser';
import {
  SSHD_PATH,
  baseFlags,
  describeRun,
  runCli,
  sha256File,
  sshdWithKnownHosts,
  tempFilesUnder,
  writeRandomFile,
  type SshdServer,
} from './helpers';

const user = unprivilegedUser();
const skip = typeof user === 'string' ? user : !fs.existsSync(SSHD_PATH) ? `no OpenSSH sshd at ${SSHD_PATH}` : false;

let server: SshdServer;
let local: string;
let knownHosts: string;
let stop: () => Promise<void>;

/** A folder on the server the account owns. */
function remoteFolder(name: string): string {
  const dir = path.join(server.root, name);
  fs.mkdirSync(dir);
  const u = user as TestUser;
  if (u.switchTo) fs.chownSync(dir, u.uid, u.gid);
  return dir;
}

/** A local read-only source of `size` random bytes. */
function readOnlySource(name: string, size: number): string {
  const p = path.join(local, name);
  writeRandomFile(p, size);
  fs.chmodSync(p, 0o444);
  return p;
}

function urlFor(dir: string): string {
  return `sftp://${(user as TestUser).name}@127.0.0.1:${server.port}${dir}/`;
}

describe(`uploads to an unprivileged account (${typeof user === 'string' ? 'none' : user.name})`, { skip }, () => {
  before(async () => {
    const t = await sshdWithKnownHosts('sluice-unpriv-server-');
    ({ server, local, knownHosts, stop } = t);
    // sshd reads authorized_keys as the account: the fixture's folder is root's own (0700) otherwise.
    fs.chmodSync(path.dirname(server.root), 0o711);
    fs.chmodSync(path.join(path.dirname(server.root), 'authorized_keys'), 0o644);
  });

  after(async () => {
    await stop?.();
  });

  test('put of a read-only (0444) file in segments: exit 0, the same bytes, read-only on the server', async () => {
    const src = readOnlySource('read-only.bin', 8 * 1024 * 1024);
    const dir = remoteFolder('segments');
    const r = await runCli(
      ['put', ...baseFlags(server), '--segment-size', '1M', '--connections', '1', '--channels', '4', src, urlFor(dir)],
      { knownHosts },
    );
    assert.equal(r.code, 0, describeRun(r));
    const copy = path.join(dir, 'read-only.bin');
    assert.equal(await sha256File(copy), await sha256File(src));
    assert.equal(fs.statSync(copy).mode & 0o222, 0, 'the copy is read-only, as its source');
    assert.deepEqual(tempFilesUnder(dir), []);
  });

  test('put -p of a 0400 file in segments gives exactly 0400; a whole small 0444 file arrives 0444', async () => {
    const big = readOnlySource('owner-only.bin', 3 * 1024 * 1024);
    fs.chmodSync(big, 0o400);
    const small = readOnlySource('small.bin', 100_000);
    const dir = remoteFolder('kept');
    const r = await runCli(
      ['put', '-p', ...baseFlags(server), '--segment-size', '1M', '--channels', '4', big, small, urlFor(dir)],
      { knownHosts },
    );
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.statSync(path.join(dir, 'owner-only.bin')).mode & 0o777, 0o400);
    assert.equal(fs.statSync(path.join(dir, 'small.bin')).mode & 0o777, 0o444);
    assert.equal(await sha256File(path.join(dir, 'owner-only.bin')), await sha256File(big));
    assert.deepEqual(tempFilesUnder(dir), []);
  });
});
