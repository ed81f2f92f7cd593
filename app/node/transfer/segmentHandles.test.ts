/**
 * Handles kept between segments: a channel opens a file once for all the segments it moves, and every
 * handle is closed when the file is committed or given up (counted on the scripted ssh2 server).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SegmentHandles } from '../sftp/segmentHandles';
import type { ConnectionPool } from '../ssh/connectionPool';
import {
  fakeFileEntry,
  makeTempDir,
  removeDir,
  sha256File,
  startScriptedServer,
  tempFilesUnder,
  writeRandomFile,
  type ScriptedServer,
  openTrusting,
  waitUntil,
} from '../test/helpers';
import { runTransfer } from './run';

const MiB = 1024 * 1024;

/**
 * A download's read handles are closed without waiting for the server's answer (every byte is already here), so
 * the count reaches 0 shortly after the job returns: wait for it while the session is still open (a leak never
 * gets there).
 */
function allHandlesClosed(server: ScriptedServer, what: string): Promise<true> {
  return waitUntil(
    `${what}: server still counts ${server.stats.openFileHandles} open handles`,
    () => server.stats.openFileHandles === 0,
    5_000,
  );
}

describe('SegmentHandles', () => {
  test('keeps idle handles per channel, direction and file pair; takeAll empties one remote path only', () => {
    const kept = new SegmentHandles<string>();
    const h = (channel: number, local: string) => ({ channel, remote: Buffer.from(local), local });
    kept.put('upload', '/a', 'la', h(0, 'a0'));
    kept.put('upload', '/a', 'la', h(0, 'a0b'));
    kept.put('upload', '/a', 'la', h(1, 'a1'));
    kept.put('download', '/a', 'la', h(0, 'da0'));
    kept.put('download', '/a', 'other', h(0, 'da0-other'));
    kept.put('upload', '/b', 'lb', h(0, 'b0'));
    assert.equal(kept.size, 6);
    assert.equal(kept.take(2, 'upload', '/a', 'la'), undefined);
    assert.equal(kept.take(0, 'upload', '/a', 'la')?.local, 'a0b');
    assert.equal(kept.take(0, 'download', '/a', 'la')?.local, 'da0');
    assert.equal(
      kept.take(0, 'download', '/a', 'la'),
      undefined,
      'the same remote file paired with another local file is not handed out',
    );
    assert.deepEqual(
      kept.takeAll('/a', 'other').map((x) => x.local),
      ['da0-other'],
    );
    assert.deepEqual(
      kept
        .takeAll('/a')
        .map((x) => x.local)
        .sort(),
      ['a0', 'a1'],
    );
    assert.equal(kept.size, 1);
    assert.deepEqual(kept.takeAll('/a'), []);
    assert.equal(kept.take(0, 'upload', '/b', 'lb')?.local, 'b0');
    assert.equal(kept.size, 0);
  });

  test('a handle borrowed (by a checkpoint) while its path is released does not come back', () => {
    const kept = new SegmentHandles<string>();
    const h = (channel: number, local: string) => ({ channel, remote: Buffer.from(local), local });
    kept.put('upload', '/t', 'l', h(0, 't0'));
    const before = kept.releaseCount('/t');
    const borrowed = kept.take(0, 'upload', '/t', 'l')!;
    assert.equal(kept.putBack('upload', '/t', 'l', borrowed, before), true, 'no release in between: kept again');
    const again = kept.take(0, 'upload', '/t', 'l')!;
    const other = kept.releaseCount('/other');
    assert.deepEqual(kept.takeAll('/t'), [], 'the borrowed handle is not idle: the release cannot close it');
    assert.equal(kept.putBack('upload', '/t', 'l', again, before), false, 'released meanwhile: the caller closes it');
    assert.equal(kept.size, 0);
    assert.equal(kept.releaseCount('/other'), other, 'other paths keep their count');
  });
});

describe('segments on a live server', () => {
  let server: ScriptedServer;
  let local: string;
  before(async () => {
    server = await startScriptedServer();
    local = await makeTempDir('sluice-seghandles-');
  });
  after(async () => {
    await server?.stop();
    if (local) await removeDir(local);
  });

  const open = (): Promise<ConnectionPool> =>
    openTrusting(server, local, { connections: 1, channels: 2, segmentSize: 1 * MiB });

  test(
    "a 24-segment file opens each channel's handle once per direction and leaves no handle open",
    { timeout: 60_000 },
    async () => {
      const src = path.join(local, 'seg.src');
      writeRandomFile(src, 24 * MiB + 77);
      const want = await sha256File(src);
      const s = await open();
      try {
        const opensBefore = server.stats.fileOpens;
        const up = await runTransfer(s, {
          id: 'up',
          direction: 'put',
          sources: [src],
          dest: path.join(server.root, 'seg.bin'),
          recursive: false,
        });
        assert.deepEqual(up.failed, []);
        assert.equal(up.segmentedUploads, true);
        assert.equal(await sha256File(path.join(server.root, 'seg.bin')), want);
        const upOpens = server.stats.fileOpens - opensBefore;
        // probe (2) + create (1) + at most 2 segments at once on each of 2 channels (4); one open per segment would be
        // ≥ 24
        assert.ok(upOpens <= 8, `upload opened ${upOpens} handles`);
        assert.equal(server.stats.openFileHandles, 0, 'handles left open after the upload');

        const mid = server.stats.fileOpens;
        const down = await runTransfer(s, {
          id: 'down',
          direction: 'get',
          sources: [path.join(server.root, 'seg.bin')],
          dest: path.join(local, 'seg.back'),
          recursive: false,
        });
        assert.deepEqual(down.failed, []);
        assert.equal(await sha256File(path.join(local, 'seg.back')), want);
        const downOpens = server.stats.fileOpens - mid;
        assert.ok(downOpens <= 4, `download opened ${downOpens} handles`);
        await allHandlesClosed(server, 'after the download');
        assert.deepEqual(tempFilesUnder(server.root), []);
        assert.deepEqual(tempFilesUnder(local), []);
      } finally {
        await s.close();
      }
    },
  );

  test(
    'the same remote file fetched twice in one job: each copy gets its own handles and identical bytes',
    { timeout: 60_000 },
    async () => {
      const src = path.join(server.root, 'twice.bin');
      writeRandomFile(src, 16 * MiB + 5);
      const want = await sha256File(src);
      const s = await open();
      try {
        const a = path.join(local, 'twice-a.bin');
        const b = path.join(local, 'twice-b.bin');
        const [ra, rb] = await Promise.all([
          runTransfer(s, { id: 'ta', direction: 'get', sources: [src], dest: a, recursive: false }),
          runTransfer(s, { id: 'tb', direction: 'get', sources: [src], dest: b, recursive: false }),
        ]);
        assert.deepEqual([ra.failed, rb.failed], [[], []]);
        assert.equal(await sha256File(a), want);
        assert.equal(await sha256File(b), want);
        await allHandlesClosed(server, 'after two copies');
      } finally {
        await s.close();
      }
    },
  );

  test('a file given up mid-way closes the handles its finished segments kept', { timeout: 60_000 }, async () => {
    // The listing claims 12 MiB, the file holds 11.5: only the last segment meets end of file, so the file is
    // given up after the other segments have finished and kept their handles.
    const dir = path.join(server.root, 'short');
    fs.mkdirSync(dir);
    writeRandomFile(path.join(dir, 'short.bin'), 11.5 * MiB);
    server.overrides.readdir = (p) => (p === dir ? [fakeFileEntry('short.bin', 12 * MiB)] : undefined);
    const s = await open();
    try {
      const report = await runTransfer(s, {
        id: 'short',
        direction: 'get',
        sources: [dir],
        dest: path.join(local, 'short-back'),
        recursive: true,
      });
      assert.equal(report.failed.length, 1, JSON.stringify(report.failed));
      assert.ok(server.stats.fileOpens > 0);
      await allHandlesClosed(server, 'after a failed file');
      assert.deepEqual(tempFilesUnder(path.join(local, 'short-back')), []);
    } finally {
      server.overrides.readdir = undefined;
      await s.close();
    }
  });
});
