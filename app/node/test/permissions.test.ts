/**
 * Remote and local refusals through the real CLI. Remote: a read-only sshd (`sftp-server -R`) refuses a put
 * (exit 5, no temporary file left), a missing remote file (exit 5). Local (exit 6): tests run as root, which
 * bypasses permission bits, so a folder made immutable (`chattr +i`), a destination under a regular file, and
 * a full 1 MiB tmpfs stand in for "no permission" and "disk full" (unprivileged.test.ts runs the CLI as `nobody`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  makeTempDir,
  removeDir,
  runCli,
  startSshd,
  startTestServer,
  tempFilesUnder,
  urlOf,
  writeRandomFile,
  type SshServer,
} from './helpers';

let server: SshServer;
let readOnly: SshServer;
let work: string;
let knownHosts: string;
let remoteFile: string;

before(async () => {
  [server, readOnly] = await Promise.all([startTestServer(), startSshd({ readOnly: true })]);
  work = await makeTempDir('sluice-perm-');
  knownHosts = path.join(work, 'known_hosts');
  fs.writeFileSync(knownHosts, `${server.knownHostsLine()}\n${readOnly.knownHostsLine()}\n`);
  remoteFile = path.join(server.root, 'two-mib.bin');
  writeRandomFile(remoteFile, 2 * 1024 * 1024);
});

after(async () => {
  await Promise.all([server?.stop(), readOnly?.stop()]);
  if (work) await removeDir(work);
});

/** Runs a command as root; returns whether it succeeded (and its stderr). */
function sh(cmd: string, args: string[]): { ok: boolean; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 10_000 });
  return { ok: r.status === 0, stderr: `${r.stderr ?? ''}${r.error?.message ?? ''}` };
}

describe('remote refusals (exit 5)', () => {
  test('put to a read-only server: exit 5, permission denied, no temporary file left', async () => {
    const src = path.join(work, 'up.bin');
    writeRandomFile(src, 300_000);
    const r = await runCli(['put', ...baseFlags(readOnly), src, urlOf(readOnly, `${readOnly.root}/`)], { knownHosts });
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /permission denied/i, describeRun(r));
    assert.ok(r.stderr.includes(readOnly.root), `the message should name the remote path\n${r.stderr}`);
    assert.deepEqual(fs.readdirSync(readOnly.root), [], 'nothing may be left on the read-only server');
  });

  test('get of a missing remote file: exit 5, names the path, nothing created locally', async () => {
    const dir = path.join(work, 'missing');
    fs.mkdirSync(dir);
    const missing = path.join(server.root, 'no-such-file.bin');
    const r = await runCli(['get', ...baseFlags(server), urlOf(server, missing), dir], { knownHosts });
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /no such file/i);
    assert.ok(r.stderr.includes(missing), r.stderr);
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  test('put into a missing remote folder: exit 5', async () => {
    const src = path.join(work, 'small.bin');
    writeRandomFile(src, 10);
    const r = await runCli(['put', ...baseFlags(server), src, urlOf(server, `${server.root}/no/such/dir/small.bin`)], {
      knownHosts,
    });
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /no such file/i);
  });
});

describe('local refusals (exit 6)', () => {
  test('get into an immutable folder (chattr +i; root ignores mode bits): exit 6, permission denied', async (t) => {
    const dir = path.join(work, 'immutable');
    fs.mkdirSync(dir);
    const set = sh('chattr', ['+i', dir]);
    if (!set.ok) {
      t.skip(`chattr +i not possible here: ${set.stderr.trim()}`);
      return;
    }
    try {
      const r = await runCli(['get', ...baseFlags(server), urlOf(server, remoteFile), dir], { knownHosts });
      assert.equal(r.code, 6, describeRun(r));
      assert.match(r.stderr, /permission denied|not permitted/i, describeRun(r));
      assert.ok(r.stderr.includes(dir), r.stderr);
      assert.deepEqual(fs.readdirSync(dir), []);
    } finally {
      sh('chattr', ['-i', dir]);
    }
  });

  test('get to a path under a regular file: exit 6', async () => {
    const file = path.join(work, 'plain-file');
    fs.writeFileSync(file, 'x');
    const r = await runCli(['get', ...baseFlags(server), urlOf(server, remoteFile), path.join(file, 'copy.bin')], {
      knownHosts,
    });
    assert.equal(r.code, 6, describeRun(r));
    assert.match(r.stderr, /not a directory|ENOTDIR/i, describeRun(r));
    assert.equal(fs.readFileSync(file, 'utf8'), 'x');
  });

  test('get into a full file system (1 MiB tmpfs, 2 MiB file): exit 6, no space left, no temporary file left', async (t) => {
    const mnt = path.join(work, 'tiny');
    fs.mkdirSync(mnt);
    const mounted = sh('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'sluice-test-tmpfs', mnt]);
    if (!mounted.ok) {
      t.skip(`cannot mount a tmpfs here: ${mounted.stderr.trim()}`);
      return;
    }
    try {
      const r = await runCli(['get', ...baseFlags(server), urlOf(server, remoteFile), mnt], { knownHosts });
      assert.equal(r.code, 6, describeRun(r));
      assert.match(r.stderr, /no space left|disk full|ENOSPC/i, describeRun(r));
      assert.deepEqual(
        fs.readdirSync(mnt),
        [],
        'neither the final name nor a temporary file may remain on the full disk',
      );
      assert.deepEqual(tempFilesUnder(mnt), []);
    } finally {
      const un = sh('umount', [mnt]);
      assert.ok(un.ok, `umount ${mnt}: ${un.stderr}`);
    }
  });
});
