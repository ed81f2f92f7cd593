/**
 * Round trips through the real CLI against a private OpenSSH sshd: put then get of 0 B, 1 B, 1 MiB + 1 and
 * 300 MiB, checked by SHA-256 on both ends, with the source's modification time kept on both hops; the verification
 * level the report claims; `-r` of 1000 small files in nested folders, both ways, trees identical.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  runCli,
  sha256File,
  startSsh2SftpServer,
  startTestServer,
  tempFilesUnder,
  treeOf,
  trustedServerHooks,
  urlOf,
  withTrustedServer,
  writeRandomFile,
  type SshServer,
} from './helpers';

let server: SshServer;
let local: string;
let knownHosts: string;
trustedServerHooks(startTestServer, 'sluice-rt-', (t) => {
  ({ server, dir: local, knownHosts } = t);
});

const MiB = 1024 * 1024;
/** A source's mtime, 2020-05-07T22:01:28.5Z: the copies keep its whole second (SFTP v3 times are uint32 seconds). */
const MTIME_2020 = 1_588_888_888;
const mtimeSeconds = (p: string): number => Math.floor(fs.statSync(p).mtimeMs / 1000);

/** put `size` random bytes, get them back, compare hashes on every hop; returns both reports' verify levels. */
async function roundTrip(name: string, size: number, extra: string[], timeoutMs = 60_000): Promise<void> {
  const src = path.join(local, `${name}.src`);
  writeRandomFile(src, size);
  fs.utimesSync(src, MTIME_2020 + 0.5, MTIME_2020 + 0.5);
  const want = await sha256File(src);
  const remote = path.join(server.root, `${name}.bin`);
  const back = path.join(local, `${name}.back`);
  const sha = extra.includes('sha256');

  const up = await runCli(['put', '--json', ...baseFlags(server), ...extra, src, urlOf(server, remote)], {
    knownHosts,
    timeoutMs,
  });
  assert.equal(up.code, 0, describeRun(up));
  assert.ok(up.report, `no report line\n${describeRun(up)}`);
  assert.equal(up.report.files, 1);
  assert.equal(up.report.bytes, size);
  assert.deepEqual(up.report.failed, []);
  assert.equal(up.report.verify, sha ? 'sha256-remote' : 'size', 'put: verify level reached');
  const fileEvent = up.events.find((e) => e.type === 'file');
  assert.ok(fileEvent && fileEvent.type === 'file' && fileEvent.state === 'done', describeRun(up));
  assert.equal(fileEvent.verify, sha ? 'sha256-remote' : 'size');
  assert.equal(fs.statSync(remote).size, size);
  assert.equal(await sha256File(remote), want, 'remote copy differs');
  assert.equal(mtimeSeconds(remote), MTIME_2020, "put: the remote copy keeps the source's mtime");

  const down = await runCli(['get', '--json', ...baseFlags(server), ...extra, urlOf(server, remote), back], {
    knownHosts,
    timeoutMs,
  });
  assert.equal(down.code, 0, describeRun(down));
  assert.equal(down.report?.files, 1);
  assert.equal(down.report?.bytes, size);
  assert.equal(down.report?.verify, sha ? 'sha256-remote' : 'size', 'get: verify level reached');
  assert.equal(await sha256File(back), want, 'downloaded copy differs');
  assert.equal(mtimeSeconds(back), MTIME_2020, 'get: the local copy keeps the remote mtime');
  assert.deepEqual(tempFilesUnder(local), [], 'temporary files left locally');
  assert.deepEqual(tempFilesUnder(server.root), [], 'temporary files left on the server');
  for (const p of [src, back, remote]) fs.rmSync(p);
}

describe('round trips (put then get), SHA-256 on both ends', () => {
  for (const [label, size] of [
    ['0 B', 0],
    ['1 B', 1],
    ['1 MiB + 1', MiB + 1],
  ] as const) {
    for (const verify of ['size', 'sha256'] as const) {
      test(`${label}, --verify ${verify}`, () => roundTrip(`f${size}-${verify}`, size, ['--verify', verify]));
    }
  }

  test('1 MiB + 1 segmented over 2 connections × 2 channels (64 KiB segments), --verify sha256', () =>
    roundTrip('seg', MiB + 1, [
      '--verify',
      'sha256',
      '--connections',
      '2',
      '--channels',
      '2',
      '--segment-size',
      '64K',
    ]));

  test('a server without exec: --verify sha256 re-reads the remote side and reports sha256-reread', async () => {
    await withTrustedServer(
      () => startSsh2SftpServer({ allowExec: false }),
      'sluice-noexec-',
      async ({ server: noExec, dir, knownHosts: kh }) => {
        const src = path.join(dir, 'noexec.src');
        writeRandomFile(src, MiB + 1);
        const remote = path.join(noExec.root, 'noexec.bin');
        const up = await runCli(
          ['put', '--json', '--verify', 'sha256', ...baseFlags(noExec), src, urlOf(noExec, remote)],
          { knownHosts: kh },
        );
        assert.equal(up.code, 0, describeRun(up));
        assert.equal(up.report?.verify, 'sha256-reread', describeRun(up));
        const back = path.join(dir, 'noexec.back');
        const down = await runCli(
          ['get', '--json', '--verify', 'sha256', ...baseFlags(noExec), urlOf(noExec, remote), back],
          { knownHosts: kh },
        );
        assert.equal(down.code, 0, describeRun(down));
        assert.equal(down.report?.verify, 'sha256-reread', describeRun(down));
        assert.equal(await sha256File(back), await sha256File(src));
      },
    );
  });

  test('300 MiB, --verify sha256', () => roundTrip('big', 300 * MiB, ['--verify', 'sha256'], 120_000));
});

describe('-r: 1000 small files in nested folders', () => {
  test('put -r then get -r: trees identical (names, sizes, hashes)', async () => {
    const tree = path.join(local, 'tree');
    // 10 top folders × (2 sub-folders × 40 files + 20 files) = 1000 files, 30 folders, sizes 0..4095.
    let n = 0;
    for (let a = 0; a < 10; a++) {
      const top = path.join(tree, `dir-${a}`);
      for (let b = 0; b < 2; b++) {
        const sub = path.join(top, `sub ${b}`);
        fs.mkdirSync(sub, { recursive: true });
        for (let c = 0; c < 40; c++) writeRandomFile(path.join(sub, `file-${c}.dat`), (n++ * 37) % 4096);
      }
      for (let c = 0; c < 20; c++) writeRandomFile(path.join(top, `top-${c}.txt`), (n++ * 53) % 4096);
    }
    fs.mkdirSync(path.join(tree, 'empty-folder'));
    assert.equal(n, 1000);
    const want = await treeOf(tree);

    const up = await runCli(['put', '-r', '--json', ...baseFlags(server), tree, urlOf(server, `${server.root}/`)], {
      knownHosts,
      timeoutMs: 90_000,
    });
    assert.equal(up.code, 0, describeRun(up));
    assert.equal(up.report?.files, 1000);
    assert.deepEqual(await treeOf(path.join(server.root, 'tree')), want, 'remote tree differs');

    const back = path.join(local, 'back');
    const down = await runCli(
      ['get', '-r', '--json', ...baseFlags(server), urlOf(server, `${server.root}/tree`), back],
      { knownHosts, timeoutMs: 90_000 },
    );
    assert.equal(down.code, 0, describeRun(down));
    assert.equal(down.report?.files, 1000);
    assert.deepEqual(await treeOf(back), want, 'downloaded tree differs');
    assert.deepEqual(tempFilesUnder(local), []);
    assert.deepEqual(tempFilesUnder(server.root), []);
  });
});
