import test, { mock } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { SFTPWrapper } from 'ssh2';
import {
  COUNTERS_PER_CHANNEL,
  COUNTER_BYTES,
  COUNTER_OUTSTANDING,
  ShortFileError,
  downloadRange,
  uploadRange,
} from './pipeline';
import { InFlightBudget, RequestSlots } from './requestBudget';
import { RateBucket, RateGate } from './rateLimit';
import { scratchDir } from '../../../e2e/fixtures/tmp';

type LazyReadCb = (e: Error | undefined, n: number, buf: Buffer | undefined) => void;

/**
 * The patched ssh2's two-step SSH_FXP_WRITE (sluiceWriteBuffer, sluiceSendWrite) over `write`, which gets a copy of
 * the data: a fake packet is a uint32 data length, then the data; every packet counts as sent at once.
 */
function writesInPlace(write: (pos: number, data: Buffer, cb: (e?: Error) => void) => void) {
  return {
    sluiceWriteBuffer(_h: Buffer, len: number): Buffer {
      const out = Buffer.alloc(4 + len);
      out.writeUInt32BE(len, 0);
      return out;
    },
    sluiceSendWrite(out: Buffer, pos: number, cb: (e?: Error) => void): boolean {
      write(pos, Buffer.from(out.subarray(4, 4 + out.readUInt32BE(0))), cb);
      return true;
    },
  };
}

/**
 * A fake SFTP channel over an in-memory file: replies out of order, with short reads, tracking outstanding requests.
 */
function fakeSftp(data: Buffer, opts: { shortEvery?: number; failAt?: number } = {}) {
  let outstanding = 0;
  let maxOutstanding = 0;
  let requests = 0;
  const written = Buffer.alloc(Math.max(data.length, 1 << 20));
  const later = (fn: () => void) => setTimeout(fn, Math.floor(Math.random() * 3));
  const sftp = {
    sluiceReadInto(_h: Buffer, len: number, pos: number, alloc: (len: number) => Buffer, cb: LazyReadCb) {
      outstanding++;
      requests++;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      const n = opts.shortEvery && requests % opts.shortEvery === 0 ? Math.max(1, len >> 1) : len;
      const avail = Math.max(0, Math.min(n, data.length - pos));
      later(() => {
        outstanding--;
        if (avail === 0) {
          cb(undefined, 0, undefined);
          return;
        }
        const buf = alloc(len);
        data.copy(buf, 0, pos, pos + avail);
        cb(undefined, avail, buf);
      });
    },
    ...writesInPlace((pos, buf, cb) => {
      if (written.length < pos + buf.length) throw new Error('fake file too small');
      outstanding++;
      requests++;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      if (opts.failAt !== undefined && pos >= opts.failAt) {
        later(() => {
          outstanding--;
          cb(Object.assign(new Error('Failure'), { code: 4 }));
        });
        return;
      }
      buf.copy(written, pos);
      later(() => {
        outstanding--;
        cb();
      });
    }),
  };
  return { sftp: sftp as unknown as SFTPWrapper, written, stats: () => ({ maxOutstanding, requests }) };
}

function tempFile(content?: Buffer): { path: string; fd: number } {
  const p = path.join(scratchDir('sluice-pipe-'), 'f');
  if (content) fs.writeFileSync(p, content);
  return { path: p, fd: fs.openSync(p, content ? 'r' : 'w+') };
}

test('downloadRange re-requests short reads, keeps at most K outstanding and writes every byte at its offset', async () => {
  const data = randomBytes(1_000_003);
  const { sftp, stats } = fakeSftp(data, { shortEvery: 3 });
  const out = tempFile();
  const counters = new Float64Array(COUNTERS_PER_CHANNEL);
  const slots = new RequestSlots(4);
  const n = await downloadRange(sftp, Buffer.from('h'), out.fd, 0, data.length, { chunkSize: 32768, slots, counters });
  fs.closeSync(out.fd);
  assert.equal(n, data.length);
  assert.ok(fs.readFileSync(out.path).equals(data));
  assert.ok(stats().maxOutstanding <= 4, `max outstanding ${stats().maxOutstanding}`);
  assert.ok(stats().requests > Math.ceil(data.length / 32768), 'short reads caused extra requests');
  assert.equal(counters[COUNTER_BYTES], data.length);
  assert.equal(counters[COUNTER_OUTSTANDING], 0);
  assert.equal(slots.outstanding, 0);
});

test('downloadRange fails with ShortFileError when the remote file ends early', async () => {
  const data = randomBytes(100_000);
  const { sftp } = fakeSftp(data);
  const out = tempFile();
  await assert.rejects(
    downloadRange(sftp, Buffer.from('h'), out.fd, 0, 200_000, { chunkSize: 32768, slots: new RequestSlots(8) }),
    ShortFileError,
  );
  fs.closeSync(out.fd);
});

test('two ranges share one channel budget and an upload range lands at its offsets', async () => {
  const data = randomBytes(700_001);
  const src = tempFile(data);
  const { sftp, written, stats } = fakeSftp(Buffer.alloc(0));
  const slots = new RequestSlots(3);
  const half = 350_000;
  const [a, b] = await Promise.all([
    uploadRange(sftp, Buffer.from('h'), src.fd, 0, half, { chunkSize: 16384, slots }),
    uploadRange(sftp, Buffer.from('h'), src.fd, half, data.length, { chunkSize: 16384, slots }),
  ]);
  fs.closeSync(src.fd);
  assert.equal(a + b, data.length);
  assert.ok(written.subarray(0, data.length).equals(data));
  assert.ok(stats().maxOutstanding <= 3);
});

test('an upload error stops the range and is reported once everything in flight settled', async () => {
  const data = randomBytes(300_000);
  const src = tempFile(data);
  const { sftp } = fakeSftp(Buffer.alloc(0), { failAt: 100_000 });
  const slots = new RequestSlots(8);
  await assert.rejects(
    uploadRange(sftp, Buffer.from('h'), src.fd, 0, data.length, { chunkSize: 16384, slots }),
    /Failure/,
  );
  assert.equal(slots.outstanding, 0);
  fs.closeSync(src.fd);
});

test('an aborted range rejects with AbortError', async () => {
  const data = randomBytes(2_000_000);
  const { sftp } = fakeSftp(data);
  const out = tempFile();
  const ac = new AbortController();
  const p = downloadRange(sftp, Buffer.from('h'), out.fd, 0, data.length, {
    chunkSize: 8192,
    slots: new RequestSlots(2),
    signal: ac.signal,
    onBytes: () => ac.abort(),
  });
  await assert.rejects(p, { name: 'AbortError' });
  fs.closeSync(out.fd);
});

test('an abort does not wait for replies still on their way, and a late reply writes nothing', async () => {
  const data = randomBytes(64 * 1024);
  const pending: Array<() => void> = [];
  let served = 0;
  const sftp = {
    sluiceReadInto(_h: Buffer, len: number, pos: number, alloc: (len: number) => Buffer, cb: LazyReadCb) {
      // The first reply comes at once; the others are held, like replies behind megabytes on a slow link.
      const reply = () => {
        const n = Math.min(len, data.length - pos);
        const buf = alloc(len);
        data.copy(buf, 0, pos, pos + n);
        cb(undefined, n, buf);
      };
      if (served++ === 0) setImmediate(reply);
      else pending.push(reply);
    },
  } as unknown as SFTPWrapper;
  const out = tempFile();
  const ac = new AbortController();
  const p = downloadRange(sftp, Buffer.from('h'), out.fd, 0, data.length, {
    chunkSize: 8192,
    slots: new RequestSlots(4),
    signal: ac.signal,
    onBytes: () => ac.abort(),
  });
  await assert.rejects(p, { name: 'AbortError' });
  assert.ok(pending.length >= 2, `replies still held when the range rejected: ${pending.length}`);
  // The descriptor is still open here (in the engine it may already be closed, or reused by another file).
  const sizeAtAbort = fs.statSync(out.path).size;
  // A reply's local write starts in its callback (fs.write): watching fs.write while the late replies arrive
  // sees any, with no wait for a write that should never come.
  const writes = mock.method(fs, 'write');
  try {
    for (const reply of pending) reply();
    assert.equal(writes.mock.callCount(), 0, 'a reply after the abort started a write to the local file');
  } finally {
    writes.mock.restore();
  }
  assert.equal(fs.statSync(out.path).size, sizeAtAbort, 'a reply after the abort wrote to the local file');
  fs.closeSync(out.fd);
});

test("maxInFlight caps one range below the channel's slots", async () => {
  const data = randomBytes(400_000);
  const { sftp, stats } = fakeSftp(Buffer.alloc(0));
  const src = tempFile(data);
  await uploadRange(sftp, Buffer.from('h'), src.fd, 0, data.length, {
    chunkSize: 8192,
    slots: new RequestSlots(32),
    maxInFlight: 3,
  });
  assert.ok(stats().maxOutstanding <= 3, `outstanding ${stats().maxOutstanding}`);
  assert.ok(stats().maxOutstanding >= 2);
  fs.closeSync(src.fd);
});

test('uploadRange sends SSH_FXP_WRITEs in offset order although local reads finish in any order', async () => {
  const data = randomBytes(2_000_000);
  const src = tempFile(data);
  const order: number[] = [];
  const written = Buffer.alloc(data.length);
  const sftp = writesInPlace((pos, buf, cb) => {
    order.push(pos);
    buf.copy(written, pos);
    setImmediate(() => cb());
  }) as unknown as SFTPWrapper;
  await uploadRange(sftp, Buffer.from('h'), src.fd, 0, data.length, { chunkSize: 8192, slots: new RequestSlots(64) });
  fs.closeSync(src.fd);
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
  assert.ok(written.equals(data));
});

test('a released slot skips a waiter that no longer needs it (no stall of another range on the channel)', () => {
  const slots = new RequestSlots(1);
  assert.ok(slots.tryAcquire());
  let staleWoken = 0;
  let liveGotSlot = false;
  slots.onFree(() => {
    staleWoken++;
  }); // a range that finished meanwhile
  slots.onFree(() => {
    liveGotSlot = slots.tryAcquire();
  }); // a range that still has work
  slots.release();
  assert.equal(staleWoken, 1);
  assert.equal(liveGotSlot, true);
  assert.equal(slots.outstanding, 1);
});

test('uploadRange: a local file shorter than its range sends what it has at the right offsets, then fails with ShortFileError', async () => {
  const data = randomBytes(20_000);
  const src = tempFile(data);
  const written = Buffer.alloc(40_000);
  const lengths: number[] = [];
  const sftp = writesInPlace((pos, buf, cb) => {
    lengths.push(buf.length);
    buf.copy(written, pos);
    setImmediate(() => cb());
  }) as unknown as SFTPWrapper;
  await assert.rejects(
    uploadRange(sftp, Buffer.from('h'), src.fd, 0, 30_000, { chunkSize: 8192, slots: new RequestSlots(4) }),
    ShortFileError,
  );
  fs.closeSync(src.fd);
  assert.ok(written.subarray(0, 20_000).equals(data), 'every byte the file had was written at its offset');
  assert.ok(
    written.subarray(20_000).every((b) => b === 0),
    'nothing past the end of the file',
  );
  assert.ok(lengths.includes(20_000 - 2 * 8192), `the short read went out as a shorter WRITE: ${lengths}`);
});

test('uploadRange reuses a WRITE packet ssh2 had to queue only once its reply arrived, never while it was still queued', async () => {
  const data = randomBytes(3_000_000);
  const src = tempFile(data);
  const written = Buffer.alloc(data.length);
  let allocated = 0;
  let queued = 0;
  let maxQueued = 0;
  // Like ssh2 when the channel window is full: the packet waits in ssh2's queue and its bytes go out later, then
  // the server answers. A packet refilled while queued would put another chunk's bytes at this offset.
  const sftp = {
    sluiceWriteBuffer(_h: Buffer, len: number): Buffer {
      allocated++;
      const out = Buffer.alloc(4 + len);
      out.writeUInt32BE(len, 0);
      return out;
    },
    sluiceSendWrite(out: Buffer, pos: number, cb: (e?: Error) => void): boolean {
      maxQueued = Math.max(maxQueued, ++queued);
      setTimeout(
        () => {
          out.copy(written, pos, 4, 4 + out.readUInt32BE(0));
          queued--;
          setImmediate(() => cb());
        },
        Math.floor(Math.random() * 3),
      );
      return false;
    },
  } as unknown as SFTPWrapper;
  await uploadRange(sftp, Buffer.from('h'), src.fd, 0, data.length, { chunkSize: 8192, slots: new RequestSlots(8) });
  fs.closeSync(src.fd);
  assert.ok(written.equals(data), 'a queued packet was refilled before it went out');
  const chunks = Math.ceil(data.length / 8192);
  assert.ok(maxQueued >= 2);
  assert.ok(allocated <= 8 + 16 + 1, `${allocated} WRITE packets allocated for ${chunks} chunks with 8 in flight`);
});

test('InFlightBudget: the initial limit, one request whatever its size when nothing is in flight, then ~drainMs of the answer rate', () => {
  let now = 0;
  const b = new InFlightBudget({ initialBytes: 100, minBytes: 10, drainMs: 1000, periodMs: 250, now: () => now });
  assert.ok(b.tryAcquire(60));
  assert.ok(b.tryAcquire(40));
  assert.equal(b.tryAcquire(1), false, 'over the initial limit');
  b.release(100, true); // the first answer starts the first period and measures nothing
  assert.equal(b.limitBytes, 100);
  assert.ok(b.tryAcquire(500), 'nothing in flight: a request larger than the limit still goes');
  now = 250;
  b.release(500, true); // 500 bytes in 250 ms = 2000 bytes per 1000 ms
  assert.equal(b.limitBytes, 2000);
  assert.ok(b.tryAcquire(2000));
  now = 500;
  b.release(2000, false); // an error or an abort measures nothing
  assert.equal(b.limitBytes, 2000);
  assert.ok(b.tryAcquire(5));
  now = 750;
  b.release(5, true); // 5 bytes in 500 ms: the limit halves at most per period, then never below minBytes
  assert.equal(b.limitBytes, 1000);
  for (let i = 0; i < 8; i++) {
    now += 250;
    assert.ok(b.tryAcquire(1));
    b.release(1, true);
  }
  assert.equal(b.limitBytes, 10);
});

test('InFlightBudget wakes each waiter once per release: one that still does not fit waits again (no spin)', () => {
  const b = new InFlightBudget({ initialBytes: 10, minBytes: 10, drainMs: 1000, periodMs: 250 });
  assert.ok(b.tryAcquire(6));
  let calls = 0;
  const waiter = (): void => {
    calls++;
    if (!b.tryAcquire(6)) b.onFree(waiter);
  };
  assert.equal(b.tryAcquire(6), false);
  b.onFree(waiter);
  assert.ok(b.tryAcquire(3));
  b.release(3, false); // 6 in flight: the waiter runs once, still does not fit and registers again
  assert.equal(calls, 1);
  b.release(6, false); // nothing in flight: it fits
  assert.equal(calls, 2);
  assert.equal(b.bytesInFlight, 6);
});

test('upload ranges sharing an InFlightBudget never have more than its limit in flight, and land at their offsets', async () => {
  const data = randomBytes(900_000);
  const src = tempFile(data);
  const { sftp, written } = fakeSftp(Buffer.alloc(0));
  const budget = new InFlightBudget({ initialBytes: 64 * 1024, minBytes: 64 * 1024, drainMs: 1000, periodMs: 60_000 });
  let maxInFlight = 0;
  const s = sftp as unknown as { sluiceSendWrite: (out: Buffer, pos: number, cb: (e?: Error) => void) => boolean };
  const send = s.sluiceSendWrite.bind(s);
  s.sluiceSendWrite = (out, pos, cb) => {
    maxInFlight = Math.max(maxInFlight, budget.bytesInFlight);
    return send(out, pos, cb);
  };
  const half = 450_000;
  const [a, b2] = await Promise.all([
    uploadRange(sftp, Buffer.from('h'), src.fd, 0, half, { chunkSize: 16384, slots: new RequestSlots(16), budget }),
    uploadRange(sftp, Buffer.from('h'), src.fd, half, data.length, {
      chunkSize: 16384,
      slots: new RequestSlots(16),
      budget,
    }),
  ]);
  fs.closeSync(src.fd);
  assert.equal(a + b2, data.length);
  assert.ok(written.subarray(0, data.length).equals(data));
  assert.ok(maxInFlight <= 64 * 1024, `${maxInFlight} bytes in flight`);
  assert.ok(maxInFlight >= 32 * 1024, `${maxInFlight} bytes in flight: the budget should still allow several requests`);
  assert.equal(budget.bytesInFlight, 0);
});

test('speed limits: every request of a download and an upload range is charged, and requests wait for tokens', async () => {
  const data = randomBytes(1 << 20);
  for (const direction of ['download', 'upload'] as const) {
    const { sftp, written } = fakeSftp(data);
    const bucket = new RateBucket({ bytesPerSecond: 8 << 20 }); // a 800 KiB burst, then ~30 ms for the rest
    const f = direction === 'download' ? tempFile() : tempFile(data);
    const o = { chunkSize: 32768, slots: new RequestSlots(16), rate: new RateGate([bucket]) };
    const n = await (direction === 'download' ? downloadRange : uploadRange)(
      sftp,
      Buffer.from('h'),
      f.fd,
      0,
      data.length,
      o,
    );
    fs.closeSync(f.fd);
    assert.equal(n, data.length);
    assert.ok(
      (direction === 'download' ? fs.readFileSync(f.path) : written.subarray(0, data.length)).equals(data),
      direction,
    );
    assert.equal(bucket.stats().grantedBytes, data.length, `${direction}: every request charged once`);
    assert.ok(bucket.stats().waits > 0, `${direction}: requests waited for tokens`);
  }
});

test('speed limits: a limit lifted mid-range lets the waiting range finish; an abort ends a range waiting for tokens', async () => {
  const data = randomBytes(256 * 1024);
  const { sftp, stats } = fakeSftp(data);
  const bucket = new RateBucket({ bytesPerSecond: 1024 }); // the first request overdraws it by ~30 s
  const out = tempFile();
  const o = {
    chunkSize: 32768,
    slots: new RequestSlots(16),
    rate: new RateGate([bucket]),
    onBytes: () => bucket.setRate(0),
  };
  assert.equal(await downloadRange(sftp, Buffer.from('h'), out.fd, 0, data.length, o), data.length);
  assert.equal(bucket.stats().grantedBytes, 32768, 'only the request sent before the change was charged');
  assert.ok(fs.readFileSync(out.path).equals(data));

  bucket.setRate(1024);
  bucket.charge(32768);
  const abort = new AbortController();
  const before = stats().requests;
  const waiting = downloadRange(sftp, Buffer.from('h'), out.fd, 0, data.length, {
    ...o,
    onBytes: undefined,
    signal: abort.signal,
  });
  abort.abort();
  await assert.rejects(waiting, (e: Error) => e.name === 'AbortError');
  fs.closeSync(out.fd);
  assert.equal(stats().requests, before, 'no request went out');
  assert.equal(o.rate.waiting, 0, 'the aborted range no longer waits for tokens');
});
