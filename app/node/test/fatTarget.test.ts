/**
 * `sluice get` onto a FAT file system (test/fatImage.ts: a vfat image, loop-mounted or through FUSE), which has no hard
 * links, as a USB stick or many SMB/NAS shares (#30 item 2): a download to a new name with --no-clobber (the app's
 * downloads always) commits without replacing a file that appeared meanwhile (localFiles.ts localCommit), which took
 * link(2) and failed there with "operation not permitted".
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mountFatImage, type FatMount } from './fatImage';
import {
  baseFlags,
  describeRun,
  runCli,
  sha256File,
  startTestServer,
  tempFilesUnder,
  urlOf,
  writeRandomFile,
  type SshServer,
} from './helpers';

let server: SshServer;
let fat: FatMount | string;
let knownHosts: string;

before(async () => {
  [server, fat] = await Promise.all([startTestServer(), mountFatImage()]);
  if (typeof fat !== 'string') process.stdout.write(`# FAT mounted through ${fat.how}\n`);
});
after(async () => {
  await server?.stop();
  if (fat && typeof fat !== 'string') await fat.remove();
});

describe('get onto a file system without hard links', () => {
  // Small files: fusefat (the FUSE driver used where the kernel has no vfat) refuses writes that land past the end of
  // the file ahead of the ones before them (EPERM), as a download's pipelined writes do at speed; the kernel's vfat
  // takes them. The commit, what this covers, is the same for every size.
  test('two small files: exit 0, the same bytes, no temporary file left', async (t) => {
    const m = fat;
    if (typeof m === 'string') {
      t.skip(m);
      return;
    }
    knownHosts = path.join(m.dir, 'known_hosts');
    fs.writeFileSync(knownHosts, `${server.knownHostsLine()}\n`);
    const one = path.join(server.root, 'one.bin');
    const two = path.join(server.root, 'two.bin');
    writeRandomFile(one, 50_000);
    writeRandomFile(two, 1);
    const dest = path.join(m.dir, 'in');
    fs.mkdirSync(dest);
    for (const src of [one, two]) {
      // --no-clobber: a new target is committed without replacing one that appears meanwhile, as the app always does.
      const r = await runCli(['get', ...baseFlags(server), '--no-clobber', urlOf(server, src), `${dest}/`], {
        knownHosts,
      });
      assert.equal(r.code, 0, describeRun(r));
      assert.equal(await sha256File(path.join(dest, path.basename(src))), await sha256File(src));
    }
    assert.deepEqual(fs.readdirSync(dest).sort(), ['one.bin', 'two.bin']);
    assert.deepEqual(tempFilesUnder(dest), []);
  });
});
