/**
 * Uploads where only the target is writable (issue #14), against a private OpenSSH sshd: a folder in which files
 * cannot be created, holding targets that may be written. Tests run as root, which permission bits do not stop, so
 * the folder is made immutable (`chattr +i`: no entry may be created, removed or renamed in it, while the files in
 * it stay writable); the sftp-server then answers the temporary file's OPEN with SSH_FX_PERMISSION_DENIED (EPERM).
 * Where chattr cannot do that here (no root, a file system without the flag), the tests are skipped and say why.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EngineEvent } from './types';
import {
  learnedOf,
  makeTempDir,
  openTrusting,
  removeDir,
  sha256File,
  startSshd,
  tempFilesUnder,
  within,
  writeRandomFile,
  type SshdServer,
} from '../test/helpers';
import { runTransfer } from './run';

const MiB = 1024 * 1024;
const T2020 = 1_588_888_888;

let server: SshdServer;
let work: string;

before(async () => {
  server = await startSshd();
  work = await makeTempDir('sluice-inplace-');
});
after(async () => {
  await server?.stop();
  if (work) await removeDir(work);
});

/** `chattr` on `dir`; @returns null when done, else why not */
function chattr(flag: '+i' | '-i', dir: string): string | null {
  const r = spawnSync('chattr', [flag, dir], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0
    ? null
    : `chattr ${flag} not possible here: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}`;
}

/** Makes `dir` immutable for `fn` (skipping the test where that is impossible), and mutable again after. */
async function withImmutable(t: TestContext, dir: string, fn: () => Promise<void>): Promise<void> {
  const why = chattr('+i', dir);
  if (why) {
    t.skip(why);
    return;
  }
  try {
    // The premise: creating a file there is refused, even to root.
    assert.throws(() => fs.writeFileSync(path.join(dir, 'probe'), 'x'), /EPERM/);
    await fn();
  } finally {
    chattr('-i', dir);
  }
}

describe('put into a folder where files cannot be created', () => {
  test(
    'existing targets are written in place (whole and segmented, verified, times kept) after one warning; a new file fails',
    { timeout: 120_000 },
    async (t) => {
      const src = path.join(work, 'src');
      fs.mkdirSync(src);
      const sizes: Record<string, number> = { 'small.bin': 70_000, 'big.bin': 3 * MiB + 5, 'new.bin': 1000 };
      for (const [name, size] of Object.entries(sizes)) {
        writeRandomFile(path.join(src, name), size);
        fs.utimesSync(path.join(src, name), T2020, T2020);
      }
      const open = path.join(server.root, 'open');
      const locked = path.join(server.root, 'locked');
      fs.mkdirSync(open);
      fs.mkdirSync(locked);
      // Longer than the sources: the in-place write must truncate them.
      for (const name of ['small.bin', 'big.bin']) writeRandomFile(path.join(locked, name), sizes[name] + 4096);
      const inodes = new Map(['small.bin', 'big.bin'].map((n) => [n, fs.statSync(path.join(locked, n)).ino]));

      await withImmutable(t, locked, async () => {
        const events: EngineEvent[] = [];
        const s = await openTrusting(server, work, {
          connections: 1,
          channels: 3,
          segmentSize: MiB,
          onEvent: (e) => events.push(e),
        });
        try {
          // A first upload where files can be created: the server is known to take segments, so big.bin tries them.
          const warm = await within(
            'warm-up',
            60_000,
            runTransfer(
              s,
              { id: 'warm', direction: 'put', sources: [path.join(src, 'big.bin')], dest: open, recursive: false },
              { onEvent: (e) => events.push(e), server: learnedOf(s) },
            ),
          );
          assert.equal(warm.segmentedUploads, true);
          events.length = 0;
          const report = await within(
            'transfer',
            60_000,
            runTransfer(
              s,
              {
                id: 'locked',
                direction: 'put',
                sources: Object.keys(sizes).map((n) => path.join(src, n)),
                dest: locked,
                recursive: false,
                verify: 'sha256',
              },
              { onEvent: (e) => events.push(e), server: learnedOf(s) },
            ),
          );
          assert.equal(report.files, 2, JSON.stringify(report));
          assert.equal(
            report.segmentedUploads,
            true,
            'a temporary file refused by the folder is no refusal of segments',
          );
          assert.equal(report.failed.length, 1);
          assert.equal(report.failed[0].code, 'PERMISSION_DENIED');
          assert.match(report.failed[0].message, /new\.bin/);
          for (const name of ['small.bin', 'big.bin']) {
            const p = path.join(locked, name);
            assert.equal(await sha256File(p), await sha256File(path.join(src, name)), name);
            assert.equal(fs.statSync(p).ino, inodes.get(name), `${name}: the same file, written in place`);
            assert.equal(Math.floor(fs.statSync(p).mtimeMs / 1000), T2020, `${name}: the source's time`);
          }
          const warnings = events.flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));
          assert.equal(warnings.length, 1, warnings.join('\n'));
          assert.match(
            warnings[0],
            new RegExp(`^cannot create files in ${locked}: writing ${locked}/(small|big)\\.bin in place$`),
          );
          const infos = events.flatMap((e) => (e.type === 'log' && e.level === 'info' ? [e.message] : []));
          assert.equal(
            infos.filter((m) => m.startsWith(`cannot create files in ${locked}`)).length,
            1,
            'the second file is only noted',
          );
          assert.deepEqual(fs.readdirSync(locked).sort(), ['big.bin', 'small.bin']);
          assert.deepEqual(tempFilesUnder(server.root), []);
        } finally {
          await s.close();
        }
      });
    },
  );

  test(
    'a target that cannot be written either fails with the refusal, untouched and without the warning',
    { timeout: 60_000 },
    async (t) => {
      const src = path.join(work, 'frozen.bin');
      writeRandomFile(src, 5000);
      const locked = path.join(server.root, 'locked-frozen');
      fs.mkdirSync(locked);
      const target = path.join(locked, 'frozen.bin');
      fs.writeFileSync(target, 'existing');
      // The target itself immutable too: it cannot be opened for writing.
      const why = chattr('+i', target);
      if (why) {
        t.skip(why);
        return;
      }
      try {
        await withImmutable(t, locked, async () => {
          const events: EngineEvent[] = [];
          const s = await openTrusting(server, work, { connections: 1, channels: 1, onEvent: (e) => events.push(e) });
          try {
            const report = await within(
              'transfer',
              60_000,
              runTransfer(
                s,
                { id: 'frozen', direction: 'put', sources: [src], dest: locked, recursive: false },
                { onEvent: (e) => events.push(e), server: learnedOf(s) },
              ),
            );
            assert.equal(report.files, 0);
            assert.equal(report.failed[0]?.code, 'PERMISSION_DENIED');
            assert.match(
              report.failed[0].message,
              /^OPEN \(create\) .*frozen\.bin \(temporary \.frozen\.bin\.sluice-[0-9a-f]{8}\.part\): permission denied/,
            );
            assert.equal(fs.readFileSync(target, 'utf8'), 'existing');
            assert.deepEqual(
              events.filter((e) => e.type === 'log' && /in place/.test(e.message)),
              [],
            );
          } finally {
            await s.close();
          }
        });
      } finally {
        chattr('-i', target);
      }
    },
  );
});
