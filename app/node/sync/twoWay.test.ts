/** planTwoWay by tables: each side new, changed or deleted since the stored listing; conflicts, first run, safety. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import type { ListedEntry, Listing } from './listing';
import { conflictName, planTwoWay, stateAfter, twoWayBatches, type StoredEntry, type TwoWayOptions } from './twoWay';
import { readSyncState, syncStatePath, writeSyncState } from './syncState';

const T = 1_700_000_000_000;
const f = (size: number, mtimeMs = T): ListedEntry => ({ kind: 'file', size, mtimeMs });
const d = (): ListedEntry => ({ kind: 'dir', size: 0, mtimeMs: T });
const o: TwoWayOptions = { conflictSuffix: 'host-20261128-120000' };

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
const remoteListing = (e: Record<string, ListedEntry>, more: Partial<Listing> = {}) =>
  listing(e, { timePrecisionMs: 1000, ...more });
const was = (size: number, mtimeMs = T): StoredEntry => ({
  kind: 'file',
  local: { size, mtimeMs },
  remote: { size, mtimeMs },
});

/** One path `p` (plus an unchanged `keep` so neither side is empty): its `action reason`. */
function one(l?: ListedEntry, r?: ListedEntry, s?: StoredEntry | null, opts: Partial<TwoWayOptions> = {}): string {
  const keep = { keep: f(1) };
  const stored =
    s === null ? undefined : new Map<string, StoredEntry>([['keep', was(1)], ...(s ? [['p', s] as const] : [])]);
  const plan = planTwoWay(
    listing({ ...keep, ...(l ? { p: l } : {}) }),
    remoteListing({ ...keep, ...(r ? { p: r } : {}) }),
    stored,
    { ...o, ...opts },
  );
  return plan.items
    .filter((i) => i.path === 'p')
    .map((i) => `${i.action} ${i.reason}`)
    .join(', ');
}

const cases: Array<[string, ListedEntry | undefined, ListedEntry | undefined, StoredEntry | null | undefined, string]> =
  [
    ['new here', f(5), undefined, undefined, 'upload new-local'],
    ['new on the server', undefined, f(5), undefined, 'download new-remote'],
    ['new on both, same size and time', f(5), f(5), undefined, 'same same-contents'],
    ['new on both, 0.5 s apart (the server keeps seconds)', f(5, T + 500), f(5), undefined, 'same same-contents'],
    ['new on both, different', f(5), f(6), undefined, 'conflict differ-first-run'],
    ['unchanged on both', f(5), f(5), was(5), 'same unchanged'],
    ['changed here', f(6, T + 9000), f(5), was(5), 'upload changed-local'],
    ['changed here, same size, 2 ms later', f(5, T + 2), f(5), was(5), 'upload changed-local'],
    ['changed on the server', f(5), f(7, T + 9000), was(5), 'download changed-remote'],
    ['changed on the server within its 1 s', f(5), f(5, T + 999), was(5), 'same unchanged'],
    ['changed on both, differently', f(6, T + 9000), f(7, T + 9000), was(5), 'conflict changed-both'],
    ['changed on both, the same way', f(6, T + 9000), f(6, T + 9000), was(5), 'same same-contents'],
    ['deleted here, unchanged there', undefined, f(5), was(5), 'delete-remote deleted-local'],
    ['deleted on the server, unchanged here', f(5), undefined, was(5), 'delete-local deleted-remote'],
    ['deleted here, changed there', undefined, f(9, T + 9000), was(5), 'download changed-remote-deleted-local'],
    ['deleted there, changed here', f(9, T + 9000), undefined, was(5), 'upload changed-local-deleted-remote'],
    ['deleted on both', undefined, undefined, was(5), ''],
    ['first run (no stored listing): only here', f(5), undefined, null, 'upload new-local'],
    ['first run: only there', undefined, f(5), null, 'download new-remote'],
    ['first run: differs', f(5), f(6), null, 'conflict differ-first-run'],
    ['a file here, a folder there', f(5), d(), undefined, 'skip kind-differs'],
  ];
for (const [name, l, r, s, want] of cases) {
  test(`planTwoWay: ${name} → ${want || 'nothing'}`, () => assert.equal(one(l, r, s), want));
}

test("planTwoWay: an interrupted copy's temporary file on either side is not synced", () => {
  const plan = planTwoWay(
    listing({ 'd/.a.bin.sluice-0123abcd.part': f(5) }),
    remoteListing({ '.b.sluice-89abcdef.part': f(5), 'x.sluice-89abcdef.part': f(1) }),
    undefined,
    o,
  );
  assert.deepEqual(
    plan.items.map((i) => `${i.action} ${i.path}`),
    ['download x.sluice-89abcdef.part'],
  );
});

test('planTwoWay: size-only and the modify window count as unchanged', () => {
  assert.equal(one(f(5, T + 9000), f(5), was(5), { sizeOnly: true }), 'same unchanged');
  assert.equal(one(f(5, T + 1500), f(5), was(5), { modifyWindowMs: 2000 }), 'same unchanged');
});

test('planTwoWay: a folder deleted here is deleted there with what it holds, unless something new is in it', () => {
  const stored = new Map<string, StoredEntry>([
    ['keep', was(1)],
    ['a', { kind: 'dir' }],
    ['a/x', was(1)],
    ['b', { kind: 'dir' }],
    ['b/x', was(1)],
  ]);
  const plan = planTwoWay(
    listing({ keep: f(1) }),
    remoteListing({ keep: f(1), a: d(), 'a/x': f(1), b: d(), 'b/x': f(1), 'b/new': f(2) }),
    stored,
    o,
  );
  const got = Object.fromEntries(plan.items.map((i) => [i.path, i.action]));
  assert.deepEqual(got, {
    keep: 'same',
    a: 'delete-remote',
    'a/x': 'delete-remote',
    b: 'download',
    'b/new': 'download',
    'b/x': 'delete-remote',
  });
  const batches = twoWayBatches(plan);
  assert.deepEqual(
    batches.upload.items.map((i) => `${i.action} ${i.path}`),
    ['delete a', 'delete a/x', 'delete b/x'],
  );
  assert.deepEqual(
    batches.download.items.map((i) => `${i.action} ${i.path}`),
    ['create b', 'create b/new'],
  );
});

test('planTwoWay: first run never deletes; new folders are created on the other side', () => {
  const plan = planTwoWay(listing({ a: d(), 'a/x': f(1) }), remoteListing({ b: d() }), undefined, o);
  assert.equal(plan.firstRun, true);
  assert.deepEqual(
    plan.items.map((i) => `${i.action} ${i.path}`),
    ['upload a', 'upload a/x', 'download b'],
  );
});

test('planTwoWay: a listing error withholds deletions (kept, said why); copies still planned', () => {
  const plan = planTwoWay(
    listing(
      { keep: f(1), n: f(3) },
      { errors: [{ path: 'locked', code: 'PERMISSION_DENIED', message: 'Permission denied' }] },
    ),
    remoteListing({ keep: f(1), gone: f(2) }),
    new Map([
      ['keep', was(1)],
      ['gone', was(2)],
    ]),
    o,
  );
  assert.deepEqual(
    plan.items.map((i) => `${i.action} ${i.path}`),
    ['skip gone', 'same keep', 'upload n'],
  );
  assert.match(plan.deletionsWithheld ?? '', /listing of locked here failed: Permission denied/);
});

test('planTwoWay: --max-delete counts both sides; an empty side with a stored listing is refused', () => {
  const stored = new Map([
    ['a', was(1)],
    ['b', was(1)],
    ['c', was(1)],
  ]);
  const plan = planTwoWay(listing({ a: f(1) }), remoteListing({ b: f(1), c: f(1) }), stored, { ...o, maxDelete: 2 });
  assert.match(plan.refused ?? '', /deletes 3 paths, more than --max-delete 2/);
  const empty = planTwoWay(listing({}), remoteListing({ a: f(1), b: f(1) }), stored, o);
  assert.match(empty.refused ?? '', /the local folder is empty or missing, but the last run left 3 paths/);
});

test('a conflict: the server copy renamed, the local file uploaded, the server copy downloaded under its new name', () => {
  const plan = planTwoWay(
    listing({ 'doc/r.txt': f(6, T + 9000), doc: d() }),
    remoteListing({ 'doc/r.txt': f(7, T + 9000), doc: d() }),
    new Map<string, StoredEntry>([
      ['doc', { kind: 'dir' }],
      ['doc/r.txt', was(5)],
    ]),
    o,
  );
  const c = plan.items.find((i) => i.action === 'conflict');
  assert.equal(c?.conflictPath, 'doc/r.conflict-host-20261128-120000.txt');
  const b = twoWayBatches(plan);
  assert.deepEqual(b.renames, [{ from: 'doc/r.txt', to: 'doc/r.conflict-host-20261128-120000.txt' }]);
  assert.deepEqual(
    b.upload.items.map((i) => `${i.action} ${i.path} ${i.src?.size}`),
    ['create doc/r.txt 6'],
  );
  assert.deepEqual(
    b.download.items.map((i) => `${i.action} ${i.path} ${i.src?.size}`),
    ['create doc/r.conflict-host-20261128-120000.txt 7'],
  );
  const after = stateAfter(plan);
  assert.deepEqual(after.get('doc/r.txt')?.remote, { size: 6, mtimeMs: T + 9000 });
  assert.deepEqual(after.get('doc/r.conflict-host-20261128-120000.txt')?.local, { size: 7, mtimeMs: T + 9000 });
});

test('conflictName: before the last extension; dot files and names without one get it at the end; -2 when taken', () => {
  const none = () => false;
  assert.equal(conflictName('a/b.tar.gz', 'h-1', none), 'a/b.tar.conflict-h-1.gz');
  assert.equal(conflictName('.bashrc', 'h-1', none), '.bashrc.conflict-h-1');
  assert.equal(conflictName('Makefile', 'h-1', none), 'Makefile.conflict-h-1');
  assert.equal(
    conflictName('x.txt', 'h-1', (p) => p === 'x.conflict-h-1.txt'),
    'x.conflict-h-1-2.txt',
  );
});

test("the stored listing: written whole, read back; another pair's file or a damaged one is an error", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-syncstate-'));
  try {
    const key = { server: 'u@h:22', localRoot: '/l', remoteRoot: '/r' };
    assert.equal(readSyncState(home, key), undefined);
    const entries = new Map<string, StoredEntry>([
      ['d', { kind: 'dir' }],
      ['d/f', { kind: 'file', local: { size: 1, mtimeMs: 2 }, remote: { size: 1, mtimeMs: 0 } }],
    ]);
    writeSyncState(home, key, entries);
    assert.deepEqual(readSyncState(home, key), entries);
    const file = syncStatePath(home, key);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { localRoot: string };
    fs.writeFileSync(file, JSON.stringify({ ...doc, localRoot: '/other' }));
    assert.throws(() => readSyncState(home, key), /not one of this pair/);
    fs.writeFileSync(file, '{"ver');
    assert.throws(() => readSyncState(home, key), /is damaged/);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test('stateAfter: the run applied (server times cut to seconds), the next plan finds everything the same', () => {
  const stored = new Map<string, StoredEntry>([
    ['keep', was(1)],
    ['gone', was(2)],
    ['c.txt', was(5)],
  ]);
  const l = listing({ keep: f(1), 'c.txt': f(6, T + 9123), 'new.txt': f(3, T + 4567), dir: d(), 'dir/x': f(4, T + 1) });
  const r = remoteListing({ keep: f(1), gone: f(2), 'c.txt': f(7, T + 9000), 'up.txt': f(8, T + 5000) });
  const plan = planTwoWay(l, r, stored, o);
  // What the run leaves: each copy's target with its source's size and time (the server keeps whole seconds).
  const sec = (e: ListedEntry): ListedEntry => ({ ...e, mtimeMs: Math.floor(e.mtimeMs / 1000) * 1000 });
  const nl = new Map(l.entries);
  const nr = new Map(r.entries);
  for (const it of plan.items) {
    const le = l.entries.get(it.path);
    const re = r.entries.get(it.path);
    if (it.action === 'upload') nr.set(it.path, sec(le!));
    if (it.action === 'download') nl.set(it.path, re!);
    if (it.action === 'delete-local') nl.delete(it.path);
    if (it.action === 'delete-remote') nr.delete(it.path);
    if (it.action === 'conflict') {
      nr.set(it.path, sec(le!));
      nr.set(it.conflictPath!, re!);
      nl.set(it.conflictPath!, re!);
    }
  }
  assert.deepEqual(
    plan.items.map((i) => `${i.action} ${i.path}`),
    [
      'conflict c.txt',
      'upload dir',
      'upload dir/x',
      'same keep',
      'upload new.txt',
      'download up.txt',
      'delete-remote gone',
    ],
  );
  const next = planTwoWay(listing(Object.fromEntries(nl)), remoteListing(Object.fromEntries(nr)), stateAfter(plan), o);
  assert.deepEqual(
    next.items.filter((i) => i.action !== 'same').map((i) => `${i.action} ${i.path}`),
    [],
    'nothing left to do',
  );
});
