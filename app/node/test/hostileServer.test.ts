/**
 * Hostile and unlucky servers through the real CLI against a private OpenSSH sshd (issue 24): symlinks whose STAT
 * fails with something other than NO_SUCH_FILE must fail only that entry of a `get -r`, every other file arriving
 * and every missing one named.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags, describeRun, runCli, startSshd, treeOf, trustedServerHooks, urlOf, writeRandomFile, type SshdServer,
} from './helpers';

let sshd: SshdServer;
let work: string;
let knownHosts: string;

trustedServerHooks(() => startSshd(), 'sluice-hostile-', (t) => { ({ server: sshd, dir: work, knownHosts } = t); });

describe('bad symlinks in a recursive download (OpenSSH)', () => {
  test('links whose STAT fails (BAD_MESSAGE) or loops fail alone; the rest arrives, each named', async () => {
    const src = path.join(sshd.root, 'badlinks');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    writeRandomFile(path.join(src, 'good1.txt'), 1000);
    writeRandomFile(path.join(src, 'sub', 'good3.txt'), 3000);
    writeRandomFile(path.join(src, 'sub', 'good4.txt'), 0);
    fs.symlinkSync('loop', path.join(src, 'loop'));
    fs.symlinkSync('x'.repeat(300), path.join(src, 'long'));
    fs.symlinkSync('subloop', path.join(src, 'sub', 'subloop'));
    fs.symlinkSync(`${'y'.repeat(300)}/z`, path.join(src, 'sub', 'sublong'));
    // OpenSSH answers STAT of the over-long ones with BAD_MESSAGE (ENAMETOOLONG): failed, each named. The loops get
    // FAILURE or NO_SUCH_FILE depending on the version: failed or skipped, each named either way.
    const missing = [path.join(src, 'long'), path.join(src, 'sub', 'sublong')];
    const loops = [path.join(src, 'loop'), path.join(src, 'sub', 'subloop')];

    const dest = path.join(work, 'out-json');
    const r = await runCli(['get', '-r', '--json', ...baseFlags(sshd), urlOf(sshd, src), dest], { knownHosts });
    assert.equal(r.code, 1, describeRun(r));
    assert.deepEqual((await treeOf(dest)).map((e) => e.rel), ['good1.txt', 'sub', 'sub/good3.txt', 'sub/good4.txt']);
    assert.equal(r.report?.files, 3, describeRun(r));
    const failed = r.report?.failed ?? [];
    const loopsFailed = failed.filter((f) => loops.includes(f.path));
    assert.deepEqual(failed.map((f) => f.path).filter((p) => !loops.includes(p)).sort(), missing, describeRun(r));
    assert.equal(loopsFailed.length + (r.report?.skipped ?? 0), loops.length, describeRun(r));
    for (const f of failed) assert.match(f.message, /^cannot follow the symlink: .*SSH_FX_/, JSON.stringify(f));

    const plain = await runCli(['get', '-r', ...baseFlags(sshd), urlOf(sshd, src), path.join(work, 'out-plain')], { knownHosts });
    assert.equal(plain.code, 1, describeRun(plain));
    assert.match(plain.stderr, new RegExp(`${failed.length} FAILED:`), plain.stderr);
    for (const m of [...missing, ...loops]) assert.ok(plain.stderr.includes(m), `${m} is not named\n${plain.stderr}`);
    assert.ok(fs.existsSync(path.join(work, 'out-plain', 'sub', 'good3.txt')), plain.stderr);
  });
});
