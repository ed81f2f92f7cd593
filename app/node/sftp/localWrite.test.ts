import test, { mock } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { SLOW_LOCAL_WRITE_MS, resetLocalWritesForTest, writeInPlace, writesInPlace } from './localWrite';
import type { SFTPWrapper } from 'ssh2';
import { pipeStats } from './pipeStats';
import { downloadRange } from './pipeline';
import { RequestSlots } from './requestBudget';

type ReadCb = (e: Error | undefined, n: number, buf: Buffer | undefined) => void;
import { scratchDir } from '../../../e2e/fixtures/tmp';

function tempFd(): { fd: number; file: string } {
  const file = path.join(scratchDir('localwrite-'), 'f.bin');
  return { fd: fs.openSync(file, 'w+'), file };
}

test('writeInPlace writes every byte at its offset, also when pwrite takes them in parts, and counts its time', () => {
  resetLocalWritesForTest();
  const { fd, file } = tempFd();
  const data = randomBytes(100_000);
  const real = fs.writeSync;
  // A write that takes at most 30,000 bytes per call, as pwrite(2) may.
  const partial = mock.method(fs, 'writeSync', ((f: number, b: Buffer, off: number, len: number, pos: number) =>
    real(f, b, off, Math.min(len, 30_000), pos)) as typeof fs.writeSync);
  const before = pipeStats.localBlockedMs;
  try {
    assert.equal(writeInPlace(fd, data, data.length, 5000), null);
  } finally {
    partial.mock.restore();
  }
  assert.equal(partial.mock.callCount(), 4);
  assert.ok(pipeStats.localBlockedMs > before, 'the time blocked in the write is counted');
  fs.closeSync(fd);
  const got = fs.readFileSync(file);
  assert.equal(got.length, 105_000);
  assert.ok(got.subarray(5000).equals(data));
});

test('writeInPlace returns the error of a failed write (with its code) instead of throwing', () => {
  resetLocalWritesForTest();
  const { fd } = tempFd();
  fs.closeSync(fd);
  const err = writeInPlace(fd, Buffer.from('x'), 1, 0) as NodeJS.ErrnoException | null;
  assert.equal(err?.code, 'EBADF');
  const { fd: fd2 } = tempFd();
  const none = mock.method(fs, 'writeSync', (() => 0) as unknown as typeof fs.writeSync);
  try {
    assert.match(String(writeInPlace(fd2, Buffer.from('abc'), 3, 0)), /wrote nothing/);
  } finally {
    none.mock.restore();
    fs.closeSync(fd2);
  }
});

test('one write slower than SLOW_LOCAL_WRITE_MS sends the next writes to the file threads', () => {
  resetLocalWritesForTest();
  assert.equal(writesInPlace(), true);
  const { fd } = tempFd();
  const real = fs.writeSync;
  // A disk that holds the write (dirty-page throttling): the call returns after more than SLOW_LOCAL_WRITE_MS.
  const slow = mock.method(fs, 'writeSync', ((...a: Parameters<typeof fs.writeSync>) => {
    const t0 = performance.now();
    while (performance.now() - t0 <= SLOW_LOCAL_WRITE_MS + 5);
    return real(...a);
  }) as typeof fs.writeSync);
  try {
    assert.equal(writeInPlace(fd, Buffer.from('abc'), 3, 0), null);
  } finally {
    slow.mock.restore();
  }
  assert.equal(writesInPlace(), false, 'after a slow write, writes leave the thread');
  resetLocalWritesForTest();
  assert.equal(writesInPlace(), true);
  fs.closeSync(fd);
});

test('downloadRange: replies are written in place, and through the file threads after a slow write', async () => {
  const data = randomBytes(256 * 1024);
  for (const slowFirst of [false, true]) {
    resetLocalWritesForTest();
    const { fd, file } = tempFd();
    // Replies as the patched ssh2 gives them: the reply's own bytes when alloc() answers null, overwritten once
    // the callback returns (a write made later would store 0xee).
    const sftp = {
      sluiceReadInto(_h: Buffer, len: number, pos: number, alloc: (n: number) => Buffer | null, cb: ReadCb) {
        setImmediate(() => {
          const bytes = data.subarray(pos, pos + len);
          const given = alloc(len);
          const buf = given ?? Buffer.alloc(len);
          bytes.copy(buf);
          cb(undefined, bytes.length, buf);
          if (!given) buf.fill(0xee);
        });
      },
    } as unknown as SFTPWrapper;
    const real = fs.writeSync;
    let slowDone = !slowFirst;
    const inPlace = mock.method(fs, 'writeSync', ((...a: Parameters<typeof fs.writeSync>) => {
      const t0 = performance.now();
      while (!slowDone && performance.now() - t0 <= SLOW_LOCAL_WRITE_MS + 5);
      slowDone = true;
      return real(...a);
    }) as typeof fs.writeSync);
    const offThread = mock.method(fs, 'write');
    try {
      const n = await downloadRange(sftp, Buffer.from('h'), fd, 0, data.length, {
        chunkSize: 16 * 1024,
        slots: new RequestSlots(1),
      });
      assert.equal(n, data.length);
    } finally {
      inPlace.mock.restore();
      offThread.mock.restore();
    }
    fs.closeSync(fd);
    assert.ok(fs.readFileSync(file).equals(data), `file differs (slow first write: ${slowFirst})`);
    assert.deepEqual(
      [inPlace.mock.callCount(), offThread.mock.callCount()],
      slowFirst ? [1, 15] : [16, 0],
      'writes in place, or only the first after a slow one',
    );
  }
  resetLocalWritesForTest();
});
