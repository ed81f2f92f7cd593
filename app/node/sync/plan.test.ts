/** planSync by tables: every action and reason, the modify window, --size-only, --delete's guard, --max-delete. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ListedEntry, Listing } from './listing';
import { planSync, REASON_TEXT, type CompareOptions, type SyncReason } from './plan';

const T = 1_700_000_000_000;
const file = (size: number, mtimeMs = T): ListedEntry => ({ kind: 'file', size, mtimeMs });
const dir = (): ListedEntry => ({ kind: 'dir', size: 0, mtimeMs: T });

function listing(entries: Record<string, ListedEntry>, more: Partial<Listing> = {}): Listing {
  return {
    entries: new Map(Object.entries(entries)),
    errors: [],
    skipped: [],
    complete: true,
    rootExists: true,
    timePrecisionMs: 1,
    ...more,
  };
}

/** The plan of one path on each side, as `action reason`; `o.remote`: DEST keeps whole seconds (SFTP). */
function one(
  s: ListedEntry | undefined,
  d: ListedEntry | undefined,
  o: CompareOptions & { remote?: boolean } = {},
): string {
  const precision = { timePrecisionMs: o.remote ? 1000 : 1 };
  const plan = planSync(listing(s ? { p: s } : {}), listing(d ? { p: d } : {}, precision), o);
  return plan.items.map((i) => `${i.action} ${i.reason}`).join(', ');
}

const cases: Array<
  [string, ListedEntry | undefined, ListedEntry | undefined, CompareOptions & { remote?: boolean }, string]
> = [
  ['a file only in SRC', file(5), undefined, {}, 'create missing'],
  ['a folder only in SRC', dir(), undefined, {}, 'create missing-folder'],
  ['sizes differ', file(5), file(6), {}, 'update size-differs'],
  ['sizes differ, --size-only', file(5), file(6), { sizeOnly: true }, 'update size-differs'],
  ['SRC newer', file(5, T + 5000), file(5), {}, 'update newer'],
  ['SRC older', file(5, T - 5000), file(5), {}, 'update older'],
  ['same size and time', file(5), file(5), {}, 'same same-size-time'],
  ['0.9 s apart, DEST keeps seconds', file(5, T + 900), file(5), { remote: true }, 'same within-precision'],
  ['1 ms apart, both keep ms', file(5, T + 1), file(5), {}, 'update newer'],
  ['1 s apart, DEST keeps seconds', file(5, T + 1000), file(5), { remote: true }, 'update newer'],
  ['1 s apart, window 2 s', file(5, T + 1000), file(5), { modifyWindowMs: 2000 }, 'same within-window'],
  ['2 s apart, window 2 s (inclusive)', file(5, T - 2000), file(5), { modifyWindowMs: 2000 }, 'same within-window'],
  ['2.001 s apart, window 2 s', file(5, T + 2001), file(5), { modifyWindowMs: 2000 }, 'update newer'],
  ['times differ, --size-only', file(5, T + 9000), file(5), { sizeOnly: true }, 'same same-size'],
  ['a folder on both sides', dir(), dir(), {}, 'same folder-exists'],
  ['file in SRC, folder in DEST', file(5), dir(), { delete: true }, 'skip kind-differs'],
  ['folder in SRC, file in DEST', dir(), file(5), { delete: true }, 'skip kind-differs'],
  ['only in DEST, no --delete', undefined, file(5), {}, ''],
  ['only in DEST, --delete', undefined, file(5), { delete: true }, 'delete not-in-source'],
];
for (const [name, s, d, o, want] of cases) {
  test(`planSync: ${name} → ${want || 'nothing'}`, () => assert.equal(one(s, d, o), want));
}

test('every reason has a text and a row in the table above', () => {
  const covered = new Set(cases.map((c) => c[4].split(' ')[1]).filter(Boolean));
  // The checksum's reasons are decided by checksum.ts (checksum.test.ts).
  const byChecksum = new Set(['same-checksum', 'checksum-differs']);
  for (const r of Object.keys(REASON_TEXT) as SyncReason[])
    assert.ok(covered.has(r) || byChecksum.has(r), `reason ${r} untested`);
});

test('totals count files, folders and bytes per action; deletions come last, sorted', () => {
  const src = listing({ a: dir(), 'a/x': file(10), b: file(3, T + 9000), c: file(7) });
  const dest = listing({ b: file(3), c: file(7), old: dir(), 'old/y': file(100), z: file(1) });
  const plan = planSync(src, dest, { delete: true });
  assert.deepEqual(
    plan.items.map((i) => `${i.action} ${i.path}`),
    ['create a', 'create a/x', 'update b', 'same c', 'delete old', 'delete old/y', 'delete z'],
  );
  assert.deepEqual(plan.totals.create, { files: 1, folders: 1, bytes: 10 });
  assert.deepEqual(plan.totals.update, { files: 1, folders: 0, bytes: 3 });
  assert.deepEqual(plan.totals.delete, { files: 2, folders: 1, bytes: 101 });
  assert.deepEqual(plan.totals.same, { files: 1, folders: 0, bytes: 0 });
  assert.equal(plan.onlyInDest, 0);
  assert.equal(plan.refused, undefined);
});

test('--delete with a listing error on either side: no deletion at all, and the plan says which folder and why', () => {
  const dest = listing({ z: file(1), q: file(2) });
  for (const side of ['src', 'dest'] as const) {
    const error = { path: 'locked', code: 'PERMISSION_DENIED', message: 'permission denied' };
    const s = listing({ a: file(1) }, side === 'src' ? { errors: [error] } : {});
    const d = side === 'dest' ? { ...dest, errors: [error] } : dest;
    const plan = planSync(s, d, { delete: true });
    assert.equal(plan.items.filter((i) => i.action === 'delete').length, 0, side);
    assert.equal(plan.totals.create.files, 1, 'the copies are still planned');
    assert.equal(plan.onlyInDest, 2);
    assert.match(
      plan.deletionsWithheld ?? '',
      new RegExp(`the listing of ${side.toUpperCase()} locked failed: permission denied`),
    );
  }
  const incomplete = planSync(listing({}, { complete: false }), dest, { delete: true });
  assert.equal(incomplete.totals.delete.files, 0);
  assert.match(incomplete.deletionsWithheld ?? '', /did not complete/);
});

test('--max-delete: a plan deleting more is refused, one deleting as many is not', () => {
  const dest = listing({ x: file(1), y: file(1), z: file(1) });
  assert.match(
    planSync(listing({}), dest, { delete: true, maxDelete: 2 }).refused ?? '',
    /deletes 3 paths, more than --max-delete 2: nothing is done/,
  );
  assert.equal(planSync(listing({}), dest, { delete: true, maxDelete: 3 }).refused, undefined);
  assert.equal(planSync(listing({}), dest, { maxDelete: 0 }).refused, undefined, 'without --delete nothing is deleted');
});
