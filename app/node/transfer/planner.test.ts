import test from 'node:test';
import assert from 'node:assert/strict';
import { routeOf, segmentsOf, planSegments, wantsSegments, type Route, type RouteFacts, type Segment } from './planner';

const MiB = 1024 * 1024;
const lengths = (segs: Segment[]) => segs.map(([a, b]) => b - a);

/** Contiguous from 0 to size, every segment non-empty. */
function assertCovers(segs: Segment[], size: number): void {
  assert.equal(segs[0][0], 0);
  for (let i = 1; i < segs.length; i++)
    assert.equal(segs[i][0], segs[i - 1][1], `segment ${i} starts where ${i - 1} ends`);
  assert.equal(segs[segs.length - 1][1], size);
  for (const n of lengths(segs)) assert.ok(n > 0);
}

test('128 MiB over 20 slots: big first, 1 MiB at the end, never growing, within the bounds', () => {
  const size = 128 * MiB;
  const segs = planSegments(size, 20, 16 * MiB, MiB);
  assertCovers(segs, size);
  const len = lengths(segs);
  assert.equal(len[0], Math.ceil(size / 20), 'the first is 1/slots of the file');
  for (let i = 1; i < len.length - 1; i++)
    assert.ok(len[i] <= len[i - 1], `segment ${i} (${len[i]}) not larger than ${i - 1}`);
  for (const n of len.slice(0, -1)) assert.ok(n >= MiB && n <= 16 * MiB);
  // The tail: the last 20 segments (one round of slots) are the minimum, so lanes finish within one small segment.
  assert.deepEqual(len.slice(-20, -1), Array(19).fill(MiB));
  assert.ok(len.length > 40 && len.length < 80, `${len.length} segments`);
});

test('a big file is capped at the segment size; a small one is cut to the minimum; odd sizes end with the remainder', () => {
  const big = planSegments(4096 * MiB, 20, 16 * MiB, MiB);
  assertCovers(big, 4096 * MiB);
  assert.equal(lengths(big)[0], 16 * MiB, 'capped by --segment-size');

  const small = planSegments(5 * MiB + 123, 20, 16 * MiB, MiB);
  assertCovers(small, 5 * MiB + 123);
  assert.deepEqual(lengths(small), [MiB, MiB, MiB, MiB, MiB, 123]);

  assert.deepEqual(planSegments(10, 4, 16 * MiB, MiB), [[0, 10]], 'smaller than the minimum: one segment');
  assertCovers(planSegments(100 * MiB + 7, 1, 16 * MiB, MiB), 100 * MiB + 7);
});

test('a minimum above the maximum is clamped to it', () => {
  const segs = planSegments(10 * MiB, 4, 2 * MiB, 4 * MiB);
  assertCovers(segs, 10 * MiB);
  for (const n of lengths(segs)) assert.ok(n <= 2 * MiB);
});

test('routeOf: one route per reason (table)', () => {
  const base: RouteFacts = {
    size: 64 * MiB,
    segmentSize: 16 * MiB,
    lanes: 4,
    journalled: false,
    resuming: false,
    sparse: false,
  };
  const rows: Array<[string, Partial<RouteFacts>, boolean, Route['kind'], RegExp]> = [
    ['small file', { size: 16 * MiB }, true, 'whole', /fits one segment/],
    ['empty file', { size: 0 }, true, 'whole', /fits one segment/],
    ['big, one lane, no journal', { lanes: 1 }, true, 'whole', /one lane/],
    ['big, one lane, journalled', { lanes: 1, journalled: true }, true, 'segments', /journal/],
    ['big, several lanes', {}, true, 'segments', /several lanes/],
    ['big file, the destination keeps no out-of-order writes', {}, false, 'whole', /out-of-order/],
    ['small resumed file', { size: MiB, resuming: true }, true, 'segments', /resumed/],
    ['resumed file, the destination keeps no out-of-order writes', { resuming: true }, false, 'whole', /out-of-order/],
    ['small sparse file, one lane', { size: MiB, lanes: 1, sparse: true }, true, 'segments', /sparse/],
  ];
  for (const [name, facts, takes, kind, why] of rows) {
    const route = routeOf({ ...base, ...facts }, takes);
    assert.equal(route.kind, kind, name);
    assert.match(route.why, why, name);
    assert.equal(wantsSegments({ ...base, ...facts }), routeOf({ ...base, ...facts }, true).kind === 'segments', name);
  }
});

test('segmentsOf: each missing range cut on its own, offsets kept', () => {
  const segs = segmentsOf(
    [
      [0, 3 * MiB],
      [10 * MiB, 10 * MiB + 100],
    ],
    1,
    2 * MiB,
  );
  assert.equal(segs[0][0], 0);
  assert.ok(
    segs.every(([a, b]) => b - a <= 2 * MiB),
    'none longer than the segment size',
  );
  assert.deepEqual(segs.at(-1), [10 * MiB, 10 * MiB + 100], 'the second range starts at its own offset');
  assert.ok(
    segs.every(([a, b]) => b <= 3 * MiB || a >= 10 * MiB),
    'nothing between the ranges',
  );
  assert.ok(segs.every(([a, b]) => b > a));
  assert.equal(
    segs.reduce((n, [a, b]) => n + b - a, 0),
    3 * MiB + 100,
  );
});
