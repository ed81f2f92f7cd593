/**
 * A sparse upload killed halfway resumes with the data it still misses, not the holes (issue #16 with #14's
 * journal): 256 MiB holding 24 MiB of data through a 3 MB/s Toxiproxy cap, SIGKILLed once the journal holds a durable
 * range, run again uncapped; the server's copy is byte-identical and the second run moved less than the data.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  journalledBytes,
  knownHostsLineFor,
  makeTempDir,
  removeDir,
  runCli,
  sha256File,
  startCli,
  startSshd,
  startToxiproxy,
  tempFilesUnder,
  toxiproxyAvailable,
  urlOf,
  waitUntil,
  type SshdServer,
  type Toxiproxy,
} from './helpers';

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
const DATA_AT = [0, 100 * MiB, 200 * MiB];
const DATA_BYTES = 8 * MiB;
const skipReason = toxiproxyAvailable() ? false : 'toxiproxy-server not installed (/usr/local/bin/toxiproxy-server)';
if (skipReason) process.stdout.write(`# sparse resume skipped: ${skipReason}\n`);

let sshd: SshdServer;
let toxi: Toxiproxy;
let work: string;

before(async () => {
  if (skipReason) return;
  sshd = await startSshd();
  toxi = await startToxiproxy();
  work = await makeTempDir('sluice-sparse-resume-');
});

after(async () => {
  await toxi?.stop();
  await sshd?.stop();
  if (work) await removeDir(work);
});

test(
  'a sparse upload killed halfway resumes with the data it misses, not the holes',
  { skip: skipReason, timeout: 180_000 },
  async () => {
    const { port } = await toxi.createProxy('sparse', sshd.port);
    await toxi.addToxic('sparse', { type: 'bandwidth', stream: 'upstream', attributes: { rate: 3000 } });
    const knownHosts = path.join(work, 'known_hosts');
    fs.writeFileSync(knownHosts, `${knownHostsLineFor(port, 'ssh-ed25519', sshd.hostKeyBlobs()[0])}\n`);
    const local = path.join(work, 'vm.img');
    const fd = fs.openSync(local, 'w');
    for (const [i, at] of DATA_AT.entries()) fs.writeSync(fd, Buffer.alloc(DATA_BYTES, i + 1), 0, DATA_BYTES, at);
    fs.ftruncateSync(fd, SIZE);
    fs.closeSync(fd);
    const remote = path.join(sshd.root, 'vm.img');
    const args = ['put', '--json', ...baseFlags(sshd), '--segment-size', '4M', local, urlOf({ ...sshd, port }, remote)];
    const env = { SLUICE_HOME: path.join(work, 'home') };

    const first = startCli(args, { knownHosts, env, timeoutMs: 90_000 });
    await waitUntil('the journal to hold a durable range', () => journalledBytes(env.SLUICE_HOME) > 0, 60_000);
    first.child.kill('SIGKILL');
    await first.result.catch(() => undefined);
    assert.ok(!fs.existsSync(remote), 'nothing under the final name after the kill');
    const kept = journalledBytes(env.SLUICE_HOME);
    assert.ok(kept < DATA_AT.length * DATA_BYTES, `the kill landed before the data was all durable (${kept} bytes)`);

    await toxi.removeToxic('sparse', 'bandwidth_upstream');
    const second = await runCli(args, { knownHosts, env, timeoutMs: 90_000 });
    assert.equal(second.code, 0, describeRun(second));
    assert.ok((second.report?.resumedBytes ?? 0) > 0, describeRun(second));
    const moved = second.report?.movedBytes ?? Infinity;
    assert.ok(moved < DATA_AT.length * DATA_BYTES, `the second run moved ${moved} bytes: the holes were not sent`);
    assert.equal(second.report?.bytes, SIZE, 'the report counts the whole file');
    process.stdout.write(
      `# sparse resume: the journal held ${kept} bytes; the second run moved ${moved} of ${SIZE} bytes\n`,
    );
    assert.equal(await sha256File(remote), await sha256File(local), 'identical bytes');
    assert.ok(fs.statSync(remote).blocks * 512 < 64 * MiB, 'the server copy is sparse');
    assert.deepEqual(tempFilesUnder(sshd.root), [], 'no temporary file left');
  },
);
