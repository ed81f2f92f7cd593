/**
 * A case-only rename in the local pane (#30 item 11): on a case-insensitive file system (NTFS, APFS, FAT) `report.txt`
 * "exists" when `Report.txt` is renamed to it, because it is the same file; that is no replacement. Tested on a
 * loop-mounted FAT image where the kernel has vfat (skipped with the reason elsewhere), and with the file system's
 * answer injected; two hard links differing in case are still refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SluiceError } from '../errors';
import { caseOnlyRename, renameLocal } from './localFs';

function sh(cmd: string, args: string[]): { ok: boolean; why: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
  return { ok: r.status === 0, why: `${cmd}: ${(r.stderr ?? '').trim()}${r.error?.message ?? ''}` };
}

test('Report.txt → report.txt on a FAT file system is renamed, not refused as "already exists"', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-case-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const image = path.join(dir, 'fat.img');
  const mnt = path.join(dir, 'mnt');
  fs.mkdirSync(mnt);
  fs.writeFileSync(image, Buffer.alloc(0));
  fs.truncateSync(image, 8 * 1024 * 1024);
  const made = sh('mkfs.vfat', [image]);
  if (!made.ok) {
    t.skip(`cannot make a FAT image here (${made.why})`);
    return;
  }
  const mounted = sh('mount', ['-o', 'loop', '-t', 'vfat', image, mnt]);
  if (!mounted.ok) {
    t.skip(`cannot loop-mount a FAT image here (${mounted.why})`);
    return;
  }
  t.after(() => {
    sh('umount', [mnt]);
  });
  fs.writeFileSync(path.join(mnt, 'Report.txt'), 'data');
  fs.writeFileSync(path.join(mnt, 'other.txt'), 'other');
  await renameLocal(path.join(mnt, 'Report.txt'), path.join(mnt, 'report.txt'));
  assert.deepEqual(fs.readdirSync(mnt).sort(), ['other.txt', 'report.txt']);
  assert.equal(fs.readFileSync(path.join(mnt, 'report.txt'), 'utf8'), 'data');
  // Another existing file is still refused.
  await assert.rejects(
    renameLocal(path.join(mnt, 'report.txt'), path.join(mnt, 'OTHER.TXT')),
    (e: unknown) => e instanceof SluiceError && e.code === 'EXISTS',
  );
});

test('case-sensitive: hard links A and a are two names, renaming one onto the other is refused', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-case-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'A'), 'x');
  fs.linkSync(path.join(dir, 'A'), path.join(dir, 'a'));
  await assert.rejects(
    renameLocal(path.join(dir, 'A'), path.join(dir, 'a')),
    (e: unknown) => e instanceof SluiceError && e.code === 'EXISTS',
  );
  assert.deepEqual(fs.readdirSync(dir).sort(), ['A', 'a']);
});

test('the rule: same device and inode under a case-only different name, one link (or a folder)', async () => {
  const st = (ino: bigint, nlink = 1n, dir = false) =>
    ({ dev: 1n, ino, nlink, isDirectory: () => dir }) as fs.BigIntStats;
  const fsWith = (m: Record<string, fs.BigIntStats>) => async (p: string) =>
    m[p] ?? Promise.reject(new Error('ENOENT'));
  const pair = (a: string, b: string, sa: fs.BigIntStats, sb: fs.BigIntStats) =>
    caseOnlyRename(a, b, fsWith({ [a]: sa, [b]: sb }));
  assert.equal(
    await caseOnlyRename(
      'C:\\x\\Report.txt',
      'C:\\x\\report.txt',
      fsWith({ 'C:\\x\\Report.txt': st(7n), 'C:\\x\\report.txt': st(7n) }),
    ),
    true,
  );
  assert.equal(await pair('/V/Docs', '/V/docs', st(9n, 4n, true), st(9n, 4n, true)), true, 'a folder');
  assert.equal(await pair('/x/A', '/x/a', st(3n, 2n), st(3n, 2n)), false, 'hard links');
  assert.equal(await pair('/x/A', '/x/a', st(3n), st(4n)), false, 'two files');
  assert.equal(await pair('/x/A', '/x/b', st(3n), st(3n)), false, 'not case-only');
});
