import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareFolders, isDifference, type CompareEntry } from './folderCompare';

const T = Date.UTC(2026, 0, 1, 12);
const file = (name: string, size: number, mtimeMs: number): CompareEntry => ({ name, type: 'file', size, mtimeMs });
const dir = (name: string): CompareEntry => ({ name, type: 'dir', size: 0, mtimeMs: T });

test('compareFolders: every status on both sides, mirrored, and the counts', () => {
  const local = [
    file('only-local.txt', 1, T),
    file('newer-local.txt', 10, T + 60_000),
    file('newer-remote.txt', 10, T),
    file('touched.txt', 5, T + 5_000),
    file('same.txt', 7, T + 400),
    file('size.txt', 8, T),
    dir('folder'),
    dir('clash'),
  ];
  const remote = [
    file('only-remote.txt', 1, T),
    file('newer-local.txt', 11, T),
    file('newer-remote.txt', 12, T + 60_000),
    file('touched.txt', 5, T),
    file('same.txt', 7, T),
    file('size.txt', 9, T),
    dir('folder'),
    file('clash', 3, T),
  ];
  const c = compareFolders({ entries: local, timePrecisionMs: 1 }, { entries: remote, timePrecisionMs: 1000 });
  assert.deepEqual(Object.fromEntries(c.left), {
    'only-local.txt': 'only-here',
    'newer-local.txt': 'newer-here',
    'newer-remote.txt': 'newer-there',
    'touched.txt': 'same-size-different-time',
    'same.txt': 'same',
    'size.txt': 'size-differs',
    folder: 'same',
    clash: 'kind-differs',
  });
  assert.deepEqual(Object.fromEntries(c.right), {
    'only-remote.txt': 'only-here',
    'newer-local.txt': 'newer-there',
    'newer-remote.txt': 'newer-here',
    'touched.txt': 'same-size-different-time',
    'same.txt': 'same',
    'size.txt': 'size-differs',
    folder: 'same',
    clash: 'kind-differs',
  });
  assert.equal(c.leftCounts.same, 2);
  assert.equal(c.rightCounts['only-here'], 1);
  assert.equal(isDifference(c.left.get('same.txt')), false);
  assert.equal(isDifference(c.left.get('touched.txt')), true);
  assert.equal(isDifference(undefined), false);
});

test('compareFolders: the precision and the modify window make times equal; size-only ignores them', () => {
  const a = [file('a', 5, T + 999), file('b', 5, T + 1500)];
  const b = [file('a', 5, T), file('b', 5, T)];
  const ms = (timePrecisionMs: number) => ({ entries: a, timePrecisionMs });
  assert.equal(compareFolders(ms(1), { entries: b, timePrecisionMs: 1 }).left.get('a'), 'same-size-different-time');
  assert.equal(compareFolders(ms(1), { entries: b, timePrecisionMs: 1000 }).left.get('a'), 'same');
  assert.equal(compareFolders(ms(1), { entries: b, timePrecisionMs: 1000 }).left.get('b'), 'same-size-different-time');
  const windowed = compareFolders(ms(1), { entries: b, timePrecisionMs: 1000 }, { modifyWindowMs: 2000 });
  assert.equal(windowed.left.get('b'), 'same');
  assert.equal(compareFolders(ms(1), { entries: b, timePrecisionMs: 1 }, { sizeOnly: true }).left.get('b'), 'same');
});

test('compareFolders: links and special files get no mark, on either side', () => {
  const link: CompareEntry = { ...file('l', 5, T), link: { target: 'x', broken: false } };
  const c = compareFolders(
    { entries: [link, { ...file('p', 0, T), type: 'other' }], timePrecisionMs: 1 },
    { entries: [file('l', 5, T), { ...file('s', 0, T), type: 'symlink' }], timePrecisionMs: 1 },
  );
  assert.equal(c.left.size, 0);
  assert.deepEqual(Object.fromEntries(c.right), { l: 'only-here' });
});
