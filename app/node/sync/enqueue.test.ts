/** enqueueSyncPlan: a plan as one batch (copies + the steps job), refusals, and taking over an unfinished batch. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSluiceError } from '../errors';
import { QueueStore } from '../stores/queueStore';
import { currentOwner } from '../stores/lease';
import { enqueueSyncPlan, findSyncBatch, syncBatchRunning, syncOptionsOf, type SyncStepsOptions } from './enqueue';
import type { ListedEntry, Listing } from './listing';
import { planSync } from './plan';

const T = 1_700_000_000_000;
const file = (size: number, mtimeMs = T): ListedEntry => ({ kind: 'file', size, mtimeMs });
const dir = (): ListedEntry => ({ kind: 'dir', size: 0, mtimeMs: T });
function listing(entries: Record<string, ListedEntry>, more: Partial<Listing> = {}): Listing {
  const l = { entries: new Map(Object.entries(entries)), errors: [], skipped: [], complete: true };
  return { ...l, rootExists: true, timePrecisionMs: 1, ...more };
}
const target = { user: 'u', host: 'h', port: 22 };

function memStore(t: { after: (fn: () => void) => void }): QueueStore {
  const store = QueueStore.open({ file: ':memory:' });
  t.after(() => store.close());
  return store;
}

const src = listing({
  a: dir(),
  'a/x': file(5),
  'a/b': dir(),
  'a/b/y': file(7, T + 9000),
  top: file(1),
  same: file(3),
});
const dest = listing({ 'a/b': dir(), 'a/b/y': file(7), same: file(3), old: dir(), 'old/z': file(2), gone: file(4) });

test('a plan is one batch: a copy job per file into its folder, then the steps job with folders and deletions', (t) => {
  const store = memStore(t);
  const plan = planSync(src, dest, { delete: true });
  const b = enqueueSyncPlan(store, { target, direction: 'upload', srcRoot: '/l/src', destRoot: '/r/dst', plan });
  const jobs = store.jobs.batch(b.batchId);
  assert.equal(jobs.length, 4);
  assert.deepEqual(
    jobs.map((j) => [j.source, j.dest, j.conflict, j.state]),
    [
      ['/l/src/a/b/y', '/r/dst/a/b', 'overwrite', 'queued'],
      ['/l/src/a/x', '/r/dst/a', 'overwrite', 'queued'],
      ['/l/src/top', '/r/dst', 'overwrite', 'queued'],
      ['/l/src', '/r/dst', 'overwrite', 'queued'],
    ],
  );
  assert.deepEqual(syncOptionsOf(jobs[0]), { role: 'copy', rel: 'a/b/y', size: 7, mtimeMs: T + 9000, replaces: true });
  const steps = syncOptionsOf(jobs[3]) as SyncStepsOptions;
  assert.equal(steps.role, 'steps');
  assert.deepEqual(steps.folders, ['a']);
  // Deepest first: the folder after its file.
  assert.deepEqual(
    steps.deletions.map((d) => d.rel),
    ['old/z', 'gone', 'old'],
  );
  assert.equal(b.copies, 3);
  assert.equal(b.bytes, 13);
  assert.equal(b.steps.id, jobs[3].id);
  assert.equal(findSyncBatch(store, { target, direction: 'upload', srcRoot: '/l/src', destRoot: '/r/dst' }), b.batchId);
});

test('refused: over --max-delete; deletions the listings do not allow; left-out paths make no job', (t) => {
  const store = memStore(t);
  const refused = planSync(src, dest, { delete: true, maxDelete: 1 });
  assert.throws(
    () => enqueueSyncPlan(store, { target, direction: 'upload', srcRoot: '/s', destRoot: '/d', plan: refused }),
    (e: unknown) => isSluiceError(e, 'USAGE'),
  );
  const plan = planSync(src, dest, { delete: true });
  assert.throws(
    () =>
      enqueueSyncPlan(store, {
        target,
        direction: 'upload',
        srcRoot: '/s',
        destRoot: '/d',
        plan: { ...plan, deletionsWithheld: 'the listing of DEST a failed: denied' },
      }),
    (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
  );
  assert.equal(store.jobs.count(), 0);
  const b = enqueueSyncPlan(store, {
    target,
    direction: 'download',
    srcRoot: '/r',
    destRoot: '/l',
    plan,
    leaveOut: new Set(['top', 'gone']),
  });
  assert.deepEqual(
    b.jobs.map((j) => j.source),
    ['/r/a/b/y', '/r/a/x', '/r'],
  );
  assert.deepEqual(
    (syncOptionsOf(b.steps) as SyncStepsOptions).deletions.map((d) => d.rel),
    ['old/z', 'old'],
  );
});

test('taking over an unfinished batch keeps the copies the new plan still has, with their files; drops the rest', (t) => {
  const store = memStore(t);
  const key = { target, direction: 'upload' as const, srcRoot: '/l/src', destRoot: '/r/dst' };
  const first = enqueueSyncPlan(store, { ...key, plan: planSync(src, dest, { delete: true }) });
  const [y, x, top] = first.jobs;
  store.jobs.setState(y.id, 'running');
  store.files.plan(y.id, [{ source: y.source, target: '/r/dst/a/b/y', size: 7, tempName: '/r/dst/a/b/.y.part' }]);
  store.jobs.setState(y.id, 'paused');
  store.jobs.setState(x.id, 'running');
  store.jobs.setState(x.id, 'done');
  store.files.plan(top.id, [{ source: top.source, target: '/r/dst/top', size: 1, tempName: '/r/dst/.top.part' }]);
  // Meanwhile `top` arrived by other means and `a/x` changed: the new plan copies a/b/y and a/x again.
  const src2 = listing({ ...Object.fromEntries(src.entries), 'a/x': file(6) });
  const dest2 = listing({ ...Object.fromEntries(dest.entries), top: file(1), 'a/x': file(5) });
  const found = findSyncBatch(store, key);
  assert.equal(found, first.batchId);
  const second = enqueueSyncPlan(store, { ...key, plan: planSync(src2, dest2), takeOver: found });
  assert.equal(second.batchId, first.batchId);
  assert.equal(second.kept, 1);
  const jobs = store.jobs.batch(first.batchId);
  assert.deepEqual(
    jobs.map((j) => [j.source, j.state]),
    [
      ['/l/src/a/b/y', 'queued'],
      ['/l/src/a/x', 'queued'],
      ['/l/src', 'queued'],
    ],
  );
  assert.equal(jobs[0].id, y.id, 'the paused copy keeps its id');
  assert.equal(store.files.list(y.id).length, 1, 'and its file row (its journal)');
  assert.notEqual(jobs[1].id, x.id, 'a done copy is not reused');
  assert.deepEqual(
    second.dropped.map((d) => [d.job.source, d.tempNames]),
    [
      ['/l/src/a/x', []],
      ['/l/src/top', ['/r/dst/.top.part']],
      ['/l/src', []],
    ],
  );
  assert.equal((syncOptionsOf(jobs[2]) as SyncStepsOptions).deletions.length, 0);
});

test('a batch a live runner holds is running: not taken over, and a second run is told', (t) => {
  const store = memStore(t);
  const key = { target, direction: 'upload' as const, srcRoot: '/l/src', destRoot: '/r/dst' };
  const b = enqueueSyncPlan(store, { ...key, plan: planSync(src, dest) });
  assert.equal(syncBatchRunning(store, key), false);
  const { claims } = store.claimJobs([b.jobs[0].id], currentOwner());
  assert.equal(syncBatchRunning(store, key), true);
  assert.equal(findSyncBatch(store, key), undefined);
  store.releaseJob(claims[0].lease, 'paused');
  assert.equal(syncBatchRunning(store, key), false);
  assert.equal(findSyncBatch(store, key), b.batchId);
});
