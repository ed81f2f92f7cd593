/**
 * Names equal but for case, downloaded onto a case-insensitive file system made here (#24 item 12): a FAT image
 * mounted with fusefat (FUSE; the kernel's vfat module is not loadable in this container). The destination probe
 * finds the file system ignores case although the platform is Linux, so `README.TXT` after `Readme.txt` is refused,
 * naming its twin, instead of overwriting it; the other files arrive.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  runCli,
  tempFilesUnder,
  trustedServerHooks,
  startTestServer,
  urlOf,
  type SshServer,
} from './helpers';

let server: SshServer;
let local: string;
let knownHosts: string;
trustedServerHooks(startTestServer, 'sluice-nocase-', (t) => {
  ({ server, dir: local, knownHosts } = t);
});

/** Why no FAT file system can be mounted here, or undefined when one can. */
function cannotMount(): string | undefined {
  if (process.platform !== 'linux') return 'mounting a FAT image is done here with Linux FUSE only';
  for (const tool of ['mkfs.vfat', 'fusefat', 'fusermount']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} not installed`;
  }
  if (!fs.existsSync('/dev/fuse')) return '/dev/fuse is missing';
  return undefined;
}

describe('a get -r onto a case-insensitive file system (FAT through fusefat)', () => {
  let mnt = '';
  let mountError = cannotMount();
  before(() => {
    if (mountError) return;
    const image = path.join(local, 'fat.img');
    mnt = path.join(local, 'fat');
    fs.mkdirSync(mnt);
    fs.writeFileSync(image, '');
    fs.truncateSync(image, 16 * 1024 * 1024);
    const mkfs = spawnSync('mkfs.vfat', [image], { encoding: 'utf8' });
    const mount =
      mkfs.status !== 0 ? mkfs : spawnSync('fusefat', ['-o', 'rw+', image, mnt], { encoding: 'utf8', timeout: 10_000 });
    if (mount.status !== 0) mountError = `cannot make a FAT file system here: ${(mount.stderr || mount.stdout).trim()}`;
  });
  after(() => {
    if (mnt && !mountError) spawnSync('fusermount', ['-u', mnt]);
  });

  test('README.TXT after Readme.txt is refused naming it; nothing is overwritten; the rest arrives', async (t) => {
    if (mountError) {
      console.log(`[skip] ${mountError}`);
      return t.skip(mountError);
    }
    const src = path.join(server.root, 'twins');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'Readme.txt'), 'mixed case');
    fs.writeFileSync(path.join(src, 'README.TXT'), 'upper case');
    fs.writeFileSync(path.join(src, 'other.txt'), 'other');
    const dest = path.join(mnt, 'out');
    const r = await runCli(['get', '-r', '--json', ...baseFlags(server), urlOf(server, src), dest], { knownHosts });
    assert.equal(r.code, 1, describeRun(r));
    const failed = r.report?.failed ?? [];
    assert.equal(failed.length, 1, describeRun(r));
    assert.equal(failed[0].code, 'UNSAFE_NAME');
    assert.match(failed[0].message, /^refused remote name "(README|Readme)\.(TXT|txt)" in .*: it differs from "/);
    assert.match(failed[0].message, / only in case: on the destination's file system it is the same file/);
    assert.equal(r.report?.files, 2, describeRun(r));
    const names = fs.readdirSync(dest).sort();
    assert.equal(names.length, 2, JSON.stringify(names));
    const kept = names.find((n) => n.toLowerCase() === 'readme.txt') ?? '';
    // The refused one is the later twin; the kept one holds its own bytes, not the other's.
    const keptRemote = failed[0].message.includes('"README.TXT" in') ? 'Readme.txt' : 'README.TXT';
    assert.equal(fs.readFileSync(path.join(dest, kept), 'utf8'), fs.readFileSync(path.join(src, keptRemote), 'utf8'));
    assert.equal(fs.readFileSync(path.join(dest, 'other.txt'), 'utf8'), 'other');
    assert.deepEqual(tempFilesUnder(mnt), [], 'no temporary file left');
    assert.deepEqual(fs.readdirSync(mnt), ['out'], 'the case probe left nothing');
  });
});
