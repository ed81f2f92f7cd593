/**
 * `sluice sync --checksum` (#27): files of the same size are compared by SHA-256, the server's own (sha256sum over
 * exec on a shell account), not by their times: a file with the same size and time but other bytes is updated, one
 * with the same bytes and another time is left alone. A server that cannot hash (every exec is internal-sftp, and
 * OpenSSH has no check-file-name) is refused with the reason, unless `--checksum=reread`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeRun, makeTempDir, removeDir, runCli, sshdWithKnownHosts, startSshd } from './helpers';

const T = new Date('2024-05-01T12:00:00Z');

function write(root: string, rel: string, text: string, time = T): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
  fs.utimesSync(path.join(root, rel), time, time);
}

/** SRC and DEST: `twin.txt` same size and time, other bytes; `moved.txt` same bytes, another time. */
function seed(src: string, dest: string): void {
  write(src, 'twin.txt', 'aaaa');
  write(dest, 'twin.txt', 'bbbb');
  write(src, 'moved.txt', 'same bytes', new Date(T.getTime() + 3_600_000));
  write(dest, 'moved.txt', 'same bytes');
}

test('--checksum by the server own sha256sum: same size and time but other bytes updated, same bytes kept', async () => {
  const { server, local, knownHosts, stop } = await sshdWithKnownHosts('sluice-sync-sum-');
  try {
    const src = path.join(local, 'src');
    const dest = path.join(server.root, 'dest');
    seed(src, dest);
    const args = ['sync', '--batch', '--no-agent', '-i', server.clientKeyPath, src];
    const url = `sftp://${server.user}@127.0.0.1:${server.port}${dest}`;
    const byTime = await runCli([...args.slice(0, 1), '-n', ...args.slice(1), url], { knownHosts });
    assert.equal(byTime.code, 0, describeRun(byTime));
    assert.match(byTime.stdout, /update {2}moved\.txt {2}\(SRC is newer by 3600 s\)/);
    assert.doesNotMatch(byTime.stdout, /twin\.txt/, 'by size and time the twin looks the same');
    const dry = await runCli(['sync', '-n', '-v', '--checksum', ...args.slice(1), url], { knownHosts });
    assert.equal(dry.code, 0, describeRun(dry));
    assert.match(dry.stdout, /^update {2}twin\.txt {2}\(same size, SHA-256 differs \(--checksum\)\)$/m);
    assert.match(dry.stdout, /^same {4}moved\.txt {2}\(same size and SHA-256 \(--checksum\)\)$/m);
    const run = await runCli(['sync', '--checksum', ...args.slice(1), url], { knownHosts });
    assert.equal(run.code, 0, describeRun(run));
    assert.equal(fs.readFileSync(path.join(dest, 'twin.txt'), 'utf8'), 'aaaa');
    assert.equal(fs.statSync(path.join(dest, 'moved.txt')).mtimeMs, T.getTime(), 'same bytes: not copied');
  } finally {
    await stop();
  }
});

test('--checksum on a server that cannot hash: refused with the reason; --checksum=reread reads back', async () => {
  const sshd = await startSshd({ extraConfig: ['ForceCommand internal-sftp'] });
  const dir = await makeTempDir('sluice-sync-sum-sftp-');
  try {
    const knownHosts = path.join(dir, 'known_hosts');
    fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
    const src = path.join(dir, 'src');
    const dest = path.join(sshd.root, 'dest');
    seed(src, dest);
    const url = `sftp://${sshd.user}@127.0.0.1:${sshd.port}${dest}`;
    const args = ['--batch', '--no-agent', '-i', sshd.clientKeyPath, src, url];
    const refused = await runCli(['sync', '--checksum', ...args], { knownHosts });
    assert.equal(refused.code, 2, describeRun(refused));
    assert.match(refused.stderr, /--checksum: the server cannot hash its files itself \(.*no check-file-name/);
    assert.match(refused.stderr, /--checksum=reread reads every file back/);
    assert.equal(fs.readFileSync(path.join(dest, 'twin.txt'), 'utf8'), 'bbbb', 'nothing done');
    const reread = await runCli(['sync', '--checksum=reread', ...args], { knownHosts });
    assert.equal(reread.code, 0, describeRun(reread));
    assert.equal(fs.readFileSync(path.join(dest, 'twin.txt'), 'utf8'), 'aaaa');
  } finally {
    await sshd.stop();
    await removeDir(dir);
  }
});
