/**
 * What an ordinary user meets, run as one (asUser.ts: `nobody` when the suite runs as root, which bypasses permission
 * bits). Issue #30 item 1: a download's `.part` is created writable by its owner and gets the remote file's mode at
 * commit, so a read-only remote file downloads in segments (it failed EACCES reopening its own 0444 temporary file);
 * a folder the user may not write to is refused with exit 6 naming it, with nothing left behind.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyFor, folderOf, unprivilegedUser, type TestUser } from './asUser';
import {
  baseFlags,
  describeRun,
  removeDir,
  runCli,
  sha256File,
  startTestServer,
  tempFilesUnder,
  urlOf,
  writeRandomFile,
  type CliOptions,
  type SshServer,
} from './helpers';

const user = unprivilegedUser();
const skip = typeof user === 'string' ? user : false;

let server: SshServer;
let home: string;
let key: string;
let opts: CliOptions;

/** The bits a new file gets from a mode: what `open(2)` would leave after this process's umask. */
function afterUmask(mode: number): number {
  const umask = process.umask();
  return mode & ~umask & 0o777;
}

/** A remote file of `size` random bytes with `mode`. */
function remoteFile(name: string, size: number, mode: number): string {
  const p = path.join(server.root, name);
  writeRandomFile(p, size);
  fs.chmodSync(p, mode);
  return p;
}

/** A fresh destination folder of the test user's own. */
function destination(name: string): string {
  const dir = path.join(home, name);
  fs.mkdirSync(dir);
  fs.chownSync(dir, (user as TestUser).uid, (user as TestUser).gid);
  return dir;
}

describe(`as an unprivileged user (${typeof user === 'string' ? 'none' : user.name})`, { skip }, () => {
  before(async () => {
    const u = user as TestUser;
    server = await startTestServer();
    home = await folderOf(u, 'sluice-unpriv-');
    key = copyFor(u, server.clientKeyPath, home);
    const knownHosts = path.join(home, 'known_hosts');
    fs.writeFileSync(knownHosts, `${server.knownHostsLine()}\n`);
    fs.chownSync(knownHosts, u.uid, u.gid);
    opts = { knownHosts, user: u, env: { HOME: home }, cwd: home };
  });

  after(async () => {
    await server?.stop();
    if (home) await removeDir(home);
  });

  test('get of a read-only (0444) file in segments: exit 0, the same bytes, mode 0444 applied at commit', async () => {
    const src = remoteFile('read-only.bin', 8 * 1024 * 1024, 0o444);
    const dir = destination('segments');
    const r = await runCli(
      [
        'get',
        ...baseFlags({ clientKeyPath: key }),
        '--segment-size',
        '1M',
        '--connections',
        '1',
        '--channels',
        '4',
        urlOf(server, src),
        `${dir}/`,
      ],
      opts,
    );
    assert.equal(r.code, 0, describeRun(r));
    const copy = path.join(dir, 'read-only.bin');
    assert.equal(await sha256File(copy), await sha256File(src));
    assert.equal(fs.statSync(copy).mode & 0o777, afterUmask(0o444));
    assert.equal(fs.statSync(copy).uid, (user as TestUser).uid, 'the copy belongs to the user who ran the get');
    assert.deepEqual(tempFilesUnder(dir), []);
  });

  test('get -p of a 0400 file in segments keeps exactly 0400; a whole small 0444 file commits 0444', async () => {
    const big = remoteFile('owner-only.bin', 3 * 1024 * 1024, 0o400);
    const small = remoteFile('small.bin', 100_000, 0o444);
    const dir = destination('kept');
    const seg = await runCli(
      [
        'get',
        ...baseFlags({ clientKeyPath: key }),
        '-p',
        '--segment-size',
        '1M',
        '--channels',
        '3',
        urlOf(server, big),
        `${dir}/`,
      ],
      opts,
    );
    assert.equal(seg.code, 0, describeRun(seg));
    assert.equal(fs.statSync(path.join(dir, 'owner-only.bin')).mode & 0o7777, 0o400);
    const whole = await runCli(['get', ...baseFlags({ clientKeyPath: key }), urlOf(server, small), `${dir}/`], opts);
    assert.equal(whole.code, 0, describeRun(whole));
    assert.equal(await sha256File(path.join(dir, 'small.bin')), await sha256File(small));
    assert.equal(fs.statSync(path.join(dir, 'small.bin')).mode & 0o777, afterUmask(0o444));
    assert.deepEqual(tempFilesUnder(dir), []);
  });

  test('get into a folder the user may not write to (0555): exit 6, permission denied, nothing left', async () => {
    const src = remoteFile('any.bin', 200_000, 0o644);
    const dir = destination('no-write');
    fs.chmodSync(dir, 0o555);
    const r = await runCli(['get', ...baseFlags({ clientKeyPath: key }), urlOf(server, src), `${dir}/`], opts);
    assert.equal(r.code, 6, describeRun(r));
    assert.match(r.stderr, /permission denied/i, describeRun(r));
    assert.ok(r.stderr.includes(dir), `the error should name the folder\n${r.stderr}`);
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});
