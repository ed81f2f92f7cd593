import test from 'node:test';
import assert from 'node:assert/strict';
import { isSluiceError } from '../errors';
import { coalesce, coveredBytes, gaps, type ByteRange } from './byteRanges';
import { QueueStore } from './queueStore';
import { seededRandom } from './testing/queueChild';

function memStore(t: { after: (fn: () => void) => void }): QueueStore {
  const store = QueueStore.open({ file: ':memory:' });
  t.after(() => store.close());
  return store;
}

/** A job with files of the given sizes; their ids. */
function filesOf(store: QueueStore, sizes: number[]): number[] {
  const job = store.jobs.addBatch([{ target: { siteId: 's' }, direction: 'download', source: '/r', dest: '/l' }])[0].id;
  return store.files
    .plan(
      job,
      sizes.map((size, i) => ({ source: `/r/${i}`, target: `/l/r/${i}`, size, tempName: `.${i}.part` })),
    )
    .files.map((f) => f.id);
}

/** The ranges of a bitmap: runs of true. */
function runsOf(bits: boolean[], want = true): ByteRange[] {
  const out: ByteRange[] = [];
  for (let i = 0; i < bits.length; i++) {
    if (bits[i] !== want) continue;
    const start = i;
    while (i < bits.length && bits[i] === want) i++;
    out.push([start, i]);
  }
  return out;
}

test('coalesce merges overlapping and adjacent ranges and drops empty ones; gaps and coveredBytes', () => {
  assert.deepEqual(
    coalesce([
      [10, 20],
      [0, 5],
      [5, 7],
      [15, 30],
      [40, 40],
    ]),
    [
      [0, 7],
      [10, 30],
    ],
  );
  assert.deepEqual(gaps([], 10), [[0, 10]]);
  assert.deepEqual(gaps([[0, 10]], 10), []);
  assert.deepEqual(
    gaps(
      [
        [2, 4],
        [8, 20],
      ],
      10,
    ),
    [
      [0, 2],
      [4, 8],
    ],
  );
  assert.deepEqual(gaps([[12, 20]], 10), [[0, 10]], 'ranges past the size are ignored');
  assert.equal(
    coveredBytes([
      [0, 10],
      [5, 15],
    ]),
    15,
  );
});

test('record coalesces in the database: a seeded random series against a bitmap model (invariant after each)', (t) => {
  const seed = Number(process.env.SLUICE_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
  t.diagnostic(`seed ${seed} (SLUICE_TEST_SEED to replay)`);
  const rnd = seededRandom(seed);
  const store = memStore(t);
  const size = 600;
  const [a, b] = filesOf(store, [size, size]);
  const bits = new Array<boolean>(size).fill(false);
  for (let i = 0; i < 300; i++) {
    const batch: ByteRange[] = [];
    for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
      const start = Math.floor(rnd() * size);
      const end = Math.min(size, start + Math.floor(rnd() * 40));
      batch.push([start, end]);
      bits.fill(true, start, end);
    }
    store.journal.record(a, batch);
    const stored = store.journal.ranges(a);
    for (let k = 1; k < stored.length; k++)
      assert.ok(stored[k][0] > stored[k - 1][1], `disjoint and not adjacent: ${JSON.stringify(stored)}`);
    assert.deepEqual(stored, runsOf(bits), `after step ${i}`);
    assert.deepEqual(store.journal.missingRanges(a, size), runsOf(bits, false));
    assert.equal(store.journal.doneBytes(a), bits.filter(Boolean).length);
  }
  assert.deepEqual(store.journal.ranges(b), [], 'another file is untouched');
});

test('record: ranges of several files in one transaction; unknown files are dropped, malformed ranges refused', (t) => {
  const store = memStore(t);
  const [a, b] = filesOf(store, [100, 100]);
  store.journal.recordMany([
    [a, [[0, 10]]],
    [b, [[50, 60]]],
    [12345, [[0, 1]]],
  ]);
  assert.deepEqual([store.journal.ranges(a), store.journal.ranges(b)], [[[0, 10]], [[50, 60]]]);
  for (const bad of [
    [-1, 3],
    [5, 4],
    [0.5, 2],
    [0, Number.NaN],
  ] as const) {
    assert.throws(
      () =>
        store.journal.recordMany([
          [a, [[20, 30]]],
          [b, [bad]],
        ]),
      (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
    );
  }
  assert.deepEqual(store.journal.ranges(a), [[0, 10]], 'a refused batch records nothing');
  store.journal.record(a, [[10, 10]]);
  assert.deepEqual(store.journal.ranges(a), [[0, 10]], 'an empty range is nothing');
  store.journal.clear(a);
  assert.deepEqual(store.journal.missingRanges(a, 100), [[0, 100]]);
});
