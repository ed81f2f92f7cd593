import test from 'node:test';
import assert from 'node:assert/strict';
import { isSluiceError, SluiceError } from '../errors';
import type { ByteRange } from './byteRanges';
import type { RangeJournal } from './rangeJournal';
import { DEFAULT_FLUSH_BYTES, DEFAULT_FLUSH_MS, RangeRecorder } from './rangeRecorder';
import { QueueStore } from './queueStore';
import { FakeTimers } from './testing/fakeTimers';

const MiB = 1024 * 1024;

function setUp(t: { after: (fn: () => void) => void }): { store: QueueStore; file: number } {
  const store = QueueStore.open({ file: ':memory:' });
  t.after(() => store.close());
  const job = store.jobs.addBatch([{ target: { siteId: 's' }, direction: 'upload', source: '/big', dest: '/in' }])[0]
    .id;
  const file = store.files.plan(job, [{ source: '/big', target: '/in/big', size: 1024 * MiB, tempName: '.big.part' }])
    .files[0].id;
  return { store, file };
}

test('defaults: 64 MiB or 2 s, whichever first', () => {
  assert.equal(DEFAULT_FLUSH_BYTES, 64 * MiB);
  assert.equal(DEFAULT_FLUSH_MS, 2000);
});

test('the timer flushes: armed by the first unwritten range, once, and written when it fires', (t) => {
  const { store, file } = setUp(t);
  const timers = new FakeTimers();
  const flushes: Array<{ files: number; bytes: number }> = [];
  const rec = store.recorder({ timers, onFlush: (f) => flushes.push(f) });
  rec.record(file, 0, MiB);
  rec.record(file, MiB, 2 * MiB);
  assert.deepEqual(timers.delays(), [2000], 'one timer for the batch');
  assert.deepEqual(store.journal.ranges(file), [], 'nothing written before the timer');
  assert.equal(rec.pendingBytes, 2 * MiB);
  assert.equal(timers.fire(), 1);
  assert.deepEqual(store.journal.ranges(file), [[0, 2 * MiB]]);
  assert.deepEqual(flushes, [{ files: 1, bytes: 2 * MiB }]);
  assert.deepEqual(timers.delays(), [], 'no timer while nothing is pending');
  rec.record(file, 5 * MiB, 6 * MiB);
  assert.deepEqual(timers.delays(), [2000], 'armed again by the next range');
});

test('64 MiB of new ranges flush at once, without the timer; flush() and close() write the rest', (t) => {
  const { store, file } = setUp(t);
  const timers = new FakeTimers();
  const rec = store.recorder({ timers });
  for (let i = 0; i < 63; i++) rec.record(file, i * MiB, (i + 1) * MiB);
  assert.deepEqual(store.journal.ranges(file), []);
  rec.record(file, 63 * MiB, 64 * MiB);
  assert.deepEqual(store.journal.ranges(file), [[0, 64 * MiB]], 'flushed on size');
  assert.deepEqual(timers.delays(), [], 'the size flush disarmed the timer');
  assert.equal(rec.pendingBytes, 0);
  rec.record(file, 100 * MiB, 101 * MiB);
  rec.flush();
  assert.deepEqual(store.journal.ranges(file), [
    [0, 64 * MiB],
    [100 * MiB, 101 * MiB],
  ]);
  rec.record(file, 64 * MiB, 100 * MiB);
  rec.close();
  assert.deepEqual(store.journal.ranges(file), [[0, 101 * MiB]]);
  assert.deepEqual(timers.delays(), []);
  assert.throws(
    () => rec.record(file, 5, 4),
    (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
  );
});

test('a failed write keeps the ranges pending: the timer reports it and retries, flush() throws it', () => {
  const timers = new FakeTimers();
  let fail = true;
  const written: Array<[number, ByteRange[]]> = [];
  const journal = {
    recordMany(entries: Iterable<readonly [number, readonly ByteRange[]]>) {
      if (fail) throw new SluiceError('LOCAL_IO', 'Queue database: database is locked (SQLITE_BUSY)');
      for (const [id, r] of entries) written.push([id, [...r]]);
    },
  } as unknown as RangeJournal;
  const errors: unknown[] = [];
  const rec = new RangeRecorder(journal, { timers, flushBytes: 1000, onError: (e) => errors.push(e) });
  rec.record(7, 0, 10);
  rec.record(7, 10, 20);
  timers.fire();
  assert.equal(errors.length, 1);
  assert.ok(isSluiceError(errors[0], 'LOCAL_IO'));
  assert.equal(rec.pendingBytes, 20, 'kept');
  assert.deepEqual(timers.delays(), [DEFAULT_FLUSH_MS], 'the retry is armed');
  assert.throws(
    () => rec.flush(),
    (e: unknown) => isSluiceError(e, 'LOCAL_IO'),
  );
  rec.record(7, 30, 40);
  fail = false;
  timers.fire();
  assert.deepEqual(
    written,
    [
      [
        7,
        [
          [0, 20],
          [30, 40],
        ],
      ],
    ],
    'written once, coalesced',
  );
  assert.equal(rec.pendingBytes, 0);
});
