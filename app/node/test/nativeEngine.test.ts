/**
 * What the engine does with the native/ addon (issue #16), through the real CLI against a private sshd, with the
 * addon and with SLUICE_NATIVE=0 (its JavaScript fallbacks):
 * - a download that cannot fit its local file system (an 8 MiB tmpfs, mounted here) fails DISK_FULL before any byte
 *   moves, naming the user's path, the space needed and free, and leaves nothing behind; on an ext4 (a loop-mounted
 *   image), where .part files are preallocated, a second file that no longer fits fails up front too;
 * - a sparse 1 GiB file holding 16 MiB of data is uploaded by writing only its data ranges and its last byte: the
 *   server's copy is byte-identical (SHA-256, `--verify sha256`) and sparse itself; timed against the same bytes
 *   stored dense (the plain path).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nativeAddon } from '../sys/native';
import {
  baseFlags,
  describeRun,
  isProgressWithBytes,
  runCli,
  sha256File,
  startTestServer,
  tempFilesUnder,
  trustedServerHooks,
  urlOf,
  writeRandomFile,
  type SshServer,
} from './helpers';

let server: SshServer;
let work: string;
let knownHosts: string;
trustedServerHooks(startTestServer, 'sluice-native-', (t) => {
  ({ server, dir: work, knownHosts } = t);
});

const MiB = 1024 * 1024;
const addonSkip = nativeAddon() ? undefined : 'the native addon is not built (npm run build:native)';
const paths = [
  { name: 'addon', env: { SLUICE_NATIVE: undefined }, skip: addonSkip },
  { name: 'fallback', env: { SLUICE_NATIVE: '0' }, skip: undefined },
] as const;
if (addonSkip) process.stdout.write(`# addon path skipped: ${addonSkip}\n`);

function sh(cmd: string, args: string[]): { ok: boolean; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 10_000 });
  return { ok: r.status === 0, stderr: `${r.stderr ?? ''}${r.error?.message ?? ''}` };
}

describe('a download that cannot fit', () => {
  for (const p of paths) {
    test(
      `(${p.name}) 12 MiB into an 8 MiB tmpfs: DISK_FULL before any byte moves, path + needed + free named, nothing left`,
      { skip: p.skip },
      async (t) => {
        const remoteFile = path.join(server.root, 'twelve.bin');
        if (!fs.existsSync(remoteFile)) writeRandomFile(remoteFile, 12 * MiB);
        const mnt = path.join(work, `tiny-${p.name}`);
        fs.mkdirSync(mnt);
        const mounted = sh('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'sluice-test-tmpfs', mnt]);
        if (!mounted.ok) {
          t.skip(`cannot mount a tmpfs here: ${mounted.stderr.trim()}`);
          return;
        }
        try {
          const target = path.join(mnt, 'copy.bin');
          const r = await runCli(['get', '--json', ...baseFlags(server), urlOf(server, remoteFile), target], {
            knownHosts,
            env: p.env,
          });
          assert.equal(r.code, 6, describeRun(r));
          const failed = r.report?.failed?.[0];
          assert.equal(failed?.code, 'DISK_FULL', describeRun(r));
          assert.match(
            failed?.message ?? '',
            new RegExp(
              `Local disk full: ${target.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} needs 12\\.0 MiB \\(12582912 bytes\\), [0-9.]+ MiB \\(\\d+ bytes\\) free in `,
            ),
            describeRun(r),
          );
          assert.ok(
            !r.events.some((e) => isProgressWithBytes(e as Record<string, unknown>)),
            'no progress event counted a byte',
          );
          assert.equal(r.report?.movedBytes ?? 0, 0, 'no byte moved');
          assert.deepEqual(fs.readdirSync(mnt), [], 'neither the target nor a .part is left');
          assert.deepEqual(tempFilesUnder(mnt), []);
        } finally {
          const un = sh('umount', [mnt]);
          assert.ok(un.ok, `umount ${mnt}: ${un.stderr}`);
        }
      },
    );
  }

  for (const p of paths) {
    test(
      `(${p.name}) two 5 MiB files into an 8 MiB tmpfs: one arrives, the other fails DISK_FULL, nothing left behind`,
      { skip: p.skip },
      async (t) => {
        const remoteDir = path.join(server.root, `two-${p.name}`);
        fs.mkdirSync(remoteDir);
        for (const n of ['a.bin', 'b.bin']) writeRandomFile(path.join(remoteDir, n), 5 * MiB);
        const mnt = path.join(work, `two-${p.name}`);
        fs.mkdirSync(mnt);
        const mounted = sh('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'sluice-test-tmpfs', mnt]);
        if (!mounted.ok) {
          t.skip(`cannot mount a tmpfs here: ${mounted.stderr.trim()}`);
          return;
        }
        try {
          // segments (1 MiB): each file's .part is created when the file is planned (not preallocated on a tmpfs:
          // sys/preallocate.ts), so the second one runs out of space while it is written
          const r = await runCli(
            [
              'get',
              '-r',
              '--json',
              '--segment-size',
              '1M',
              ...baseFlags(server),
              urlOf(server, remoteDir),
              path.join(mnt, 'in'),
            ],
            { knownHosts, env: p.env },
          );
          assert.equal(r.code, 6, describeRun(r));
          assert.equal(r.report?.files, 1, describeRun(r));
          assert.equal(r.report?.failed.length, 1, describeRun(r));
          assert.equal(r.report?.failed[0].code, 'DISK_FULL', describeRun(r));
          assert.deepEqual(tempFilesUnder(mnt), [], 'no .part left');
          assert.equal(fs.readdirSync(path.join(mnt, 'in')).length, 1, 'only the file that fit');
        } finally {
          const un = sh('umount', [mnt]);
          assert.ok(un.ok, `umount ${mnt}: ${un.stderr}`);
        }
      },
    );
  }

  test(
    "(addon) two 5 MiB files into an ext4 with 8 MiB free: the first one's preallocated .part makes the second fail DISK_FULL up front",
    { skip: addonSkip },
    async (t) => {
      const remoteDir = path.join(server.root, 'two-ext4');
      fs.mkdirSync(remoteDir);
      for (const n of ['a.bin', 'b.bin']) writeRandomFile(path.join(remoteDir, n), 5 * MiB);
      // tmpfs is not preallocated (sys/preallocate.ts): a loop-mounted ext4 is a file system where fallocate reserves
      const image = path.join(work, 'ext4.img');
      const mnt = path.join(work, 'two-ext4-mnt');
      fs.mkdirSync(mnt);
      fs.writeFileSync(image, '');
      fs.truncateSync(image, 10 * MiB);
      const made = sh('mkfs.ext4', ['-q', '-m', '0', image]);
      const mounted = made.ok ? sh('mount', ['-o', 'loop', image, mnt]) : made;
      if (!mounted.ok) {
        t.skip(`cannot make and loop-mount an ext4 here: ${mounted.stderr.trim()}`);
        return;
      }
      try {
        // segments (1 MiB): each file's .part is created and preallocated when the file is planned
        const r = await runCli(
          [
            'get',
            '-r',
            '--json',
            '--segment-size',
            '1M',
            ...baseFlags(server),
            urlOf(server, remoteDir),
            path.join(mnt, 'in'),
          ],
          { knownHosts },
        );
        assert.equal(r.code, 6, describeRun(r));
        assert.equal(r.report?.files, 1, describeRun(r));
        assert.equal(r.report?.failed[0]?.code, 'DISK_FULL', describeRun(r));
        assert.match(
          r.report?.failed[0].message ?? '',
          /needs 5\.0 MiB \(5242880 bytes\), [0-9.]+ MiB \(\d+ bytes\) free in .*\(nothing was downloaded\)/,
          describeRun(r),
        );
        assert.ok((r.report?.movedBytes ?? 0) <= 5 * MiB, `only the first file moved (${r.report?.movedBytes} bytes)`);
        assert.deepEqual(tempFilesUnder(mnt), [], 'no .part left');
        assert.equal(fs.readdirSync(path.join(mnt, 'in')).length, 1, 'only the file that fit');
      } finally {
        const un = sh('umount', [mnt]);
        assert.ok(un.ok, `umount ${mnt}: ${un.stderr}`);
      }
    },
  );

  test(
    '(addon) a download that fits, its .part preallocated by the worker, arrives whole (sha256)',
    { skip: addonSkip },
    async () => {
      const remoteFile = path.join(server.root, 'fits.bin');
      writeRandomFile(remoteFile, 6 * MiB + 1);
      const target = path.join(work, 'fits.copy');
      const r = await runCli(
        ['get', '--json', '--verify', 'sha256', ...baseFlags(server), urlOf(server, remoteFile), target],
        { knownHosts },
      );
      assert.equal(r.code, 0, describeRun(r));
      assert.equal(await sha256File(target), await sha256File(remoteFile));
      assert.equal(fs.statSync(target).size, 6 * MiB + 1);
    },
  );
});

/** A 1 GiB file with 16 × 1 MiB of random data spread over it and a hole at its end. */
function writeSparse(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (let i = 0; i < 16; i++) {
      const chunk = Buffer.alloc(MiB);
      for (let j = 0; j < MiB; j += 4096) chunk.writeUInt32LE((i * 7919 + j) >>> 0, j);
      fs.writeSync(fd, chunk, 0, MiB, i * 60 * MiB + 12345);
    }
    fs.ftruncateSync(fd, 1024 * MiB);
  } finally {
    fs.closeSync(fd);
  }
}

describe('a sparse upload', () => {
  const timings: string[] = [];
  let sparse = '';
  let want = '';
  const sparseSource = async (): Promise<string> => {
    if (sparse) return sparse;
    sparse = path.join(work, 'disk.img');
    writeSparse(sparse);
    want = await sha256File(sparse);
    return sparse;
  };

  for (const p of paths) {
    test(
      `(${p.name}) 1 GiB holding 16 MiB: only data ranges written, byte-identical (sha256), the server's copy sparse`,
      { skip: p.skip, timeout: 300_000 },
      async () => {
        const src = await sparseSource();
        assert.ok(fs.statSync(src).blocks * 512 < 64 * MiB, `the local file system keeps holes under ${work}`);
        const remote = path.join(server.root, `disk-${p.name}.img`);
        const t0 = Date.now();
        const r = await runCli(
          ['put', '--json', '-v', '--verify', 'sha256', ...baseFlags(server), src, urlOf(server, remote)],
          { knownHosts, env: p.env, timeoutMs: 240_000 },
        );
        const ms = Date.now() - t0;
        assert.equal(r.code, 0, describeRun(r));
        assert.equal(r.report?.verify, 'sha256-remote', describeRun(r));
        assert.match(
          r.stderr + r.stdout,
          new RegExp(
            `is sparse: sending its \\d+ data ranges?.*holes found by ${p.name === 'addon' ? 'SEEK_DATA/SEEK_HOLE' : 'a zero-block scan'}`,
          ),
          describeRun(r),
        );
        assert.match(
          r.stderr + r.stdout,
          p.name === 'addon' ? /sluice: native addon loaded/ : /sluice: native addon turned off by SLUICE_NATIVE=0/,
          '-v says whether the addon is in use',
        );
        assert.ok((r.report?.movedBytes ?? Infinity) < 32 * MiB, `moved ${r.report?.movedBytes} bytes, not the holes`);
        assert.equal(fs.statSync(remote).size, 1024 * MiB);
        assert.ok(
          fs.statSync(remote).blocks * 512 < 64 * MiB,
          `the server's copy holds ${fs.statSync(remote).blocks * 512} bytes of blocks: holes were written`,
        );
        assert.equal(await sha256File(remote), want, 'the server copy differs');
        assert.deepEqual(tempFilesUnder(server.root), []);
        timings.push(`--verify sha256, sparse (${p.name}) ${ms} ms`);
        fs.rmSync(remote);
      },
    );
  }

  test(
    'the plain path: the same 1 GiB stored dense is sent whole; timed against the sparse path (no --verify, both)',
    { timeout: 300_000 },
    async () => {
      const src = await sparseSource();
      const dense = path.join(work, 'disk.dense');
      const cp = spawnSync('cp', ['--sparse=never', src, dense]);
      assert.equal(cp.status, 0, String(cp.stderr));
      assert.ok(fs.statSync(dense).blocks * 512 >= 1024 * MiB, 'the copy is dense');
      const timed = async (file: string, name: string): Promise<{ ms: number; moved: number }> => {
        const remote = path.join(server.root, name);
        const t0 = Date.now();
        const r = await runCli(['put', '--json', ...baseFlags(server), file, urlOf(server, remote)], {
          knownHosts,
          timeoutMs: 240_000,
        });
        const ms = Date.now() - t0;
        assert.equal(r.code, 0, describeRun(r));
        assert.equal(await sha256File(remote), want, `${name} differs`);
        fs.rmSync(remote);
        return { ms, moved: r.report?.movedBytes ?? -1 };
      };
      const plain = await timed(dense, 'disk-dense.img');
      const holes = await timed(src, 'disk-sparse.img');
      assert.equal(plain.moved, 1024 * MiB, 'the dense file is sent whole');
      assert.ok(holes.moved < 32 * MiB, `the sparse file sends its data only (${holes.moved} bytes)`);
      timings.push(`without --verify: dense (plain path) ${plain.ms} ms, sparse ${holes.ms} ms`);
      process.stdout.write(`# sparse upload of 1 GiB with 16 MiB of data, loopback: ${timings.join('; ')}\n`);
      fs.rmSync(dense);
    },
  );
});
