/**
 * Conflict rules against a private OpenSSH sshd, both ways (issue #14): `newer` and `size` overwrite or skip and say
 * why, `rename` writes `NAME (1).ext` beside the target, and `append` resumes a partial target whose bytes match the
 * source's start (only the rest is sent, into the same file) or sends the file whole when they do not, and says why.
 * Remote paths are local paths on this machine, so both sides are prepared and checked with `fs`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConflictPolicy, EngineEvent, TransferReport, TransferRequest } from './types';
import {
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
/** 2020-05-07T22:01:28Z and a year later (whole seconds: SFTP v3 carries seconds). */
const T2020 = 1_588_888_888;
const T2021 = T2020 + 365 * 86_400;

let server: SshdServer;
let work: string;
let caseNo = 0;

before(async () => {
  server = await startSshd();
  work = await makeTempDir('sluice-conflict-');
});
after(async () => {
  await server?.stop();
  if (work) await removeDir(work);
});

type Direction = 'put' | 'get';

/** A fresh case: `src` (where sources go) and `dst` (the existing folder receiving them), the sides of `dir`. */
function freshCase(dir: Direction): { src: string; dst: string } {
  const n = ++caseNo;
  const localSide = path.join(work, `case-${n}`);
  const remoteSide = path.join(server.root, `case-${n}`);
  fs.mkdirSync(localSide);
  fs.mkdirSync(remoteSide);
  return dir === 'put' ? { src: localSide, dst: remoteSide } : { src: remoteSide, dst: localSide };
}

interface Outcome {
  report: TransferReport;
  /** Skipped targets' base names → the reason their file event gave. */
  skipped: Map<string, string>;
  warnings: string[];
  infos: string[];
}

/** Runs one job of `names` in `src` into the folder `dst` under `conflict` (1 connection × 2 channels). */
async function transfer(
  dir: Direction,
  src: string,
  names: string[],
  dst: string,
  conflict: ConflictPolicy,
  more: Partial<TransferRequest> = {},
): Promise<Outcome> {
  const events: EngineEvent[] = [];
  const s = await openTrusting(server, work, { connections: 1, channels: 2, onEvent: (e) => events.push(e) });
  try {
    const req: TransferRequest = {
      id: `conflict-${caseNo}`,
      direction: dir,
      sources: names.map((n) => path.join(src, n)),
      dest: dst,
      recursive: false,
      conflict,
      ...more,
    };
    const report = await within('transfer', 60_000, runTransfer(s, req, { onEvent: (e) => events.push(e) }));
    const logs = (level: string) => events.flatMap((e) => (e.type === 'log' && e.level === level ? [e.message] : []));
    const skipped = new Map(
      events.flatMap((e) =>
        e.type === 'file' && e.state === 'skipped' ? ([[path.basename(e.target), e.reason ?? '']] as const) : [],
      ),
    );
    return { report, skipped, warnings: logs('warn'), infos: logs('info') };
  } finally {
    await s.close();
  }
}

/** Writes `text` to `p` dated `mtime` (seconds, plus `fraction`). */
function writeDated(p: string, text: string, mtime: number, fraction = 0): void {
  fs.writeFileSync(p, text);
  fs.utimesSync(p, mtime + fraction, mtime + fraction);
}

const read = (p: string) => fs.readFileSync(p, 'utf8');

for (const dir of ['put', 'get'] as const) {
  describe(`${dir}: newer, size, rename`, () => {
    test(
      'newer: a newer source overwrites; an older one, or one of the same second, is skipped and says why',
      { timeout: 60_000 },
      async () => {
        const { src, dst } = freshCase(dir);
        writeDated(path.join(src, 'newer.txt'), 'incoming newer', T2021);
        writeDated(path.join(dst, 'newer.txt'), 'old', T2020);
        writeDated(path.join(src, 'older.txt'), 'incoming older', T2020);
        writeDated(path.join(dst, 'older.txt'), 'kept', T2021);
        // The same second, although the source is 0.7 s later: SFTP v3 compares seconds.
        writeDated(path.join(src, 'same.txt'), 'incoming same second', T2020, 0.7);
        writeDated(path.join(dst, 'same.txt'), 'kept too', T2020);
        writeDated(path.join(src, 'absent.txt'), 'new file', T2020);
        const r = await transfer(dir, src, ['newer.txt', 'older.txt', 'same.txt', 'absent.txt'], dst, 'newer');
        assert.deepEqual(r.report.failed, []);
        assert.equal(r.report.files, 2);
        assert.equal(r.report.skipped, 2);
        assert.equal(read(path.join(dst, 'newer.txt')), 'incoming newer');
        assert.equal(read(path.join(dst, 'absent.txt')), 'new file');
        assert.equal(read(path.join(dst, 'older.txt')), 'kept');
        assert.equal(read(path.join(dst, 'same.txt')), 'kept too');
        assert.equal(r.skipped.get('older.txt'), 'the target is newer');
        assert.match(
          r.skipped.get('same.txt') ?? '',
          /^the target is as new \(same modification time, to the second\)$/,
        );
      },
    );

    test('size: sizes that differ overwrite; the same size is skipped and says so', { timeout: 60_000 }, async () => {
      const { src, dst } = freshCase(dir);
      fs.writeFileSync(path.join(src, 'differs.txt'), 'twelve bytes');
      fs.writeFileSync(path.join(dst, 'differs.txt'), 'five!');
      fs.writeFileSync(path.join(src, 'same.txt'), 'AAAAAAAAAA');
      fs.writeFileSync(path.join(dst, 'same.txt'), 'bbbbbbbbbb');
      const r = await transfer(dir, src, ['differs.txt', 'same.txt'], dst, 'size');
      assert.deepEqual(r.report.failed, []);
      assert.equal(r.report.files, 1);
      assert.equal(read(path.join(dst, 'differs.txt')), 'twelve bytes');
      assert.equal(read(path.join(dst, 'same.txt')), 'bbbbbbbbbb');
      assert.equal(r.skipped.get('same.txt'), 'same size (10 bytes)');
    });

    test(
      'rename: the target stays, the file lands under the first free name NAME (n).ext',
      { timeout: 60_000 },
      async () => {
        const { src, dst } = freshCase(dir);
        fs.writeFileSync(path.join(src, 'a.txt'), 'incoming a');
        fs.writeFileSync(path.join(dst, 'a.txt'), 'existing a');
        fs.writeFileSync(path.join(dst, 'a (1).txt'), 'existing a (1)');
        const r = await transfer(dir, src, ['a.txt'], dst, 'rename');
        assert.deepEqual(r.report.failed, []);
        assert.equal(r.report.files, 1);
        assert.deepEqual(fs.readdirSync(dst).sort(), ['a (1).txt', 'a (2).txt', 'a.txt']);
        assert.equal(read(path.join(dst, 'a.txt')), 'existing a');
        assert.equal(read(path.join(dst, 'a (1).txt')), 'existing a (1)');
        assert.equal(read(path.join(dst, 'a (2).txt')), 'incoming a');
      },
    );

    test('a policy function may answer newer or size for one file', { timeout: 60_000 }, async () => {
      const { src, dst } = freshCase(dir);
      writeDated(path.join(src, 'x.txt'), 'incoming x', T2020);
      writeDated(path.join(dst, 'x.txt'), 'existing x', T2021);
      fs.writeFileSync(path.join(src, 'y.txt'), 'incoming y, longer');
      fs.writeFileSync(path.join(dst, 'y.txt'), 'existing y');
      const asked: string[] = [];
      const r = await transfer(dir, src, ['x.txt', 'y.txt'], dst, async (target) => {
        asked.push(path.basename(target));
        return path.basename(target) === 'x.txt' ? 'newer' : 'size';
      });
      assert.deepEqual(asked.sort(), ['x.txt', 'y.txt']);
      assert.equal(r.skipped.get('x.txt'), 'the target is newer');
      assert.equal(read(path.join(dst, 'y.txt')), 'incoming y, longer');
    });
  });

  describe(`${dir}: append`, () => {
    /** A random source of `size` bytes, and its target holding `prefix` (bytes) — the source's own start by default. */
    function partial(
      name: string,
      size: number,
      target: Buffer | number,
    ): { src: string; dst: string; srcFile: string; dstFile: string } {
      const c = freshCase(dir);
      const srcFile = path.join(c.src, name);
      writeRandomFile(srcFile, size);
      fs.utimesSync(srcFile, T2020, T2020);
      const dstFile = path.join(c.dst, name);
      fs.writeFileSync(dstFile, typeof target === 'number' ? fs.readFileSync(srcFile).subarray(0, target) : target);
      return { ...c, srcFile, dstFile };
    }

    for (const [size, kept] of [
      [100_000, 40_000],
      [3 * MiB + 5, MiB + 123],
    ] as const) {
      for (const allowExec of [true, false]) {
        test(
          `a matching prefix of ${kept} of ${size} bytes: only the rest is sent, into the same file (remote side ${allowExec ? 'by sha256sum' : 'read back'})`,
          { timeout: 60_000 },
          async () => {
            const c = partial('big.bin', size, kept);
            const inode = fs.statSync(c.dstFile).ino;
            const r = await transfer(dir, c.src, ['big.bin'], c.dst, 'append', { verify: 'sha256', allowExec });
            assert.deepEqual(r.report.failed, []);
            assert.equal(r.report.files, 1);
            assert.equal(r.report.bytes, size - kept, 'only the bytes after the prefix are sent');
            assert.equal(r.report.appendedAfterBytes, kept);
            assert.equal(await sha256File(c.dstFile), await sha256File(c.srcFile));
            assert.equal(fs.statSync(c.dstFile).ino, inode, 'written in place, not renamed over');
            assert.equal(Math.floor(fs.statSync(c.dstFile).mtimeMs / 1000), T2020, "the source's time is kept");
            const how = allowExec ? 'by the server \\(sha256sum\\)' : 'read back over SFTP';
            assert.ok(
              r.infos.some((m) =>
                new RegExp(
                  `appending ${size - kept} bytes after the ${kept} already there \\(SHA-256 matches, remote side hashed ${how}\\)`,
                ).test(m),
              ),
              r.infos.join('\n'),
            );
            assert.deepEqual(r.warnings, []);
            assert.deepEqual(tempFilesUnder(c.dst), []);
          },
        );
      }
    }

    test(
      'a prefix that differs: the file is sent whole through a temporary name, and the job says why',
      { timeout: 60_000 },
      async () => {
        const c = partial('f.bin', 200_000, Buffer.alloc(50_000, 7));
        const inode = fs.statSync(c.dstFile).ino;
        const r = await transfer(dir, c.src, ['f.bin'], c.dst, 'append');
        assert.deepEqual(r.report.failed, []);
        assert.equal(r.report.bytes, 200_000);
        assert.equal(r.report.appendedAfterBytes, undefined);
        assert.equal(await sha256File(c.dstFile), await sha256File(c.srcFile));
        assert.notEqual(fs.statSync(c.dstFile).ino, inode, 'replaced by the rename of a new file');
        assert.equal(r.warnings.length, 1, r.warnings.join('\n'));
        assert.match(
          r.warnings[0],
          /f\.bin: not appending: its 50000 bytes differ from the source's first 50000 \(SHA-256, remote side hashed by the server \(sha256sum\)\); overwriting it from the start$/,
        );
      },
    );

    test('a target longer than the source is overwritten, and the job says why', { timeout: 60_000 }, async () => {
      const c = partial('long.bin', 1000, Buffer.alloc(5000, 1));
      const r = await transfer(dir, c.src, ['long.bin'], c.dst, 'append');
      assert.deepEqual(r.report.failed, []);
      assert.equal(await sha256File(c.dstFile), await sha256File(c.srcFile));
      assert.match(
        r.warnings.join('\n'),
        /long\.bin: not appending: the target \(5000 bytes\) is longer than the source \(1000 bytes\); overwriting it/,
      );
    });

    test(
      'a complete target is skipped; an empty one receives the whole file in place',
      { timeout: 60_000 },
      async () => {
        const done = partial('done.bin', 4000, 4000);
        const r1 = await transfer(dir, done.src, ['done.bin'], done.dst, 'append');
        assert.equal(r1.report.files, 0);
        assert.equal(r1.skipped.get('done.bin'), 'the target is complete (same size and SHA-256)');
        const empty = partial('empty.bin', 4000, 0);
        const inode = fs.statSync(empty.dstFile).ino;
        const r2 = await transfer(dir, empty.src, ['empty.bin'], empty.dst, 'append');
        assert.deepEqual(r2.report.failed, []);
        assert.equal(r2.report.bytes, 4000);
        assert.equal(await sha256File(empty.dstFile), await sha256File(empty.srcFile));
        assert.equal(fs.statSync(empty.dstFile).ino, inode);
      },
    );
  });
}
