/**
 * A sync batch booked in part (enqueue.ts bookFirst, restBooking.ts): claims for every copy at once, the rows left
 * written later; until then nothing is deleted for it, and a run killed before the last row leaves a batch that the
 * next plan of the same sync takes over and completes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueueStore } from '../stores/queueStore';
import { currentOwner } from '../stores/lease';
import { enqueueSyncPlan, findSyncBatch, syncOptionsOf, type SyncStepsOptions } from './enqueue';
import type { ListedEntry, Listing } from './listing';
import { planSync } from './plan';
import { bookInBackground } from './restBooking';
import { runSyncSteps, type SyncEngine } from './runBatch';

const T = 1_700_000_000_000;
const file = (size: number): ListedEntry => ({ kind: 'file', size, mtimeMs: T });
const dir = (): ListedEntry => ({ kind: 'dir', size: 0, mtimeMs: T });
function listing(entries: Record<string, ListedEntry>): Listing {
  return {
    entries: new Map(Object.entries(entries)),
    errors: [],
    skipped: [],
    complete: true,
    rootExists: true,
    timePrecisionMs: 1,
  };
}
const target = { user: 'u', host: 'h', port: 22 };
const key = { target, direction: 'upload' as const, srcRoot: '/l/src', destRoot: '/r/dst' };
const src = listing({ a: dir(), 'a/1': file(1), 'a/2': file(2), 'a/3': file(3), 'a/4': file(4), 'a/5': file(5) });

function memStore(t: { after: (fn: () => void) => void }): QueueStore {
  const store = QueueStore.open({ file: ':memory:' });
  t.after(() => store.close());
  return store;
}

/** DEST's side of runSyncSteps: records what it deletes. */
function engine(removed: string[]): SyncEngine {
  const no = (): never => {
    throw new Error('not expected');
  };
  return {
    mkdir: no,
    rename: no,
    stat: async () => null,
    transfer: no,
    remove: async (p) => void removed.push(p),
    removeListed: async (p) => void removed.push(p),
  };
}

const stepsOf = (store: QueueStore, batchId: string) =>
  store.jobs.batch(batchId).find((j) => syncOptionsOf(j)?.role === 'steps')!;

test('booked in part: claims for every copy, rows for the first; nothing deleted until the last row is written', async (t) => {
  const store = memStore(t);
  const plan = planSync(src, listing({ gone: file(9) }), { delete: true });
  const b = enqueueSyncPlan(store, { ...key, plan, claimFor: currentOwner(), bookFirst: 2 });
  assert.equal(b.claims!.length, 6, 'five copies and the steps job claimed');
  assert.equal(store.jobs.batch(b.batchId).length, 3, 'rows of two copies and the steps job');
  assert.equal((syncOptionsOf(stepsOf(store, b.batchId)) as SyncStepsOptions).booking, true);
  const { copies } = { copies: b.claims!.filter((c) => syncOptionsOf(c.job)?.role === 'copy') };
  store.releaseDone(copies.slice(0, 2).map((c) => c.lease));
  const removed: string[] = [];
  const early = await runSyncSteps(engine(removed), store, stepsOf(store, b.batchId));
  assert.deepEqual(early, { state: 'waiting', copiesLeft: 3 });
  assert.deepEqual(removed, []);

  const stop = bookInBackground(b.rest!);
  t.after(stop);
  while (!b.rest!.done) await new Promise((r) => setImmediate(r));
  assert.equal(store.jobs.batch(b.batchId).length, 6);
  assert.equal((syncOptionsOf(stepsOf(store, b.batchId)) as SyncStepsOptions).booking, false);
  // The claims given before the rows hold the stored leases: the copies settle through them.
  assert.equal(store.releaseDone(copies.slice(2).map((c) => c.lease)), 3);
  const end = await runSyncSteps(engine(removed), store, stepsOf(store, b.batchId));
  assert.deepEqual(end, { state: 'done', deleted: 1, moved: 0 });
  assert.deepEqual(removed, ['/r/dst/gone']);
});

test('killed before its last rows: the next plan takes the batch over, books the copies it lacked, then deletes', async (t) => {
  const store = memStore(t);
  const dead = { ...currentOwner(), startedAt: currentOwner().startedAt + 1 };
  const plan = planSync(src, listing({ gone: file(9) }), { delete: true });
  const b = enqueueSyncPlan(store, { ...key, plan, claimFor: dead, bookFirst: 2 });
  const [first] = b.claims!;
  store.releaseDone([first.lease]);
  // The run dies here: 'a/1' arrived, 'a/2' is booked and unfinished, 'a/3'..'a/5' have no row.
  assert.equal(findSyncBatch(store, key), b.batchId);
  const again = planSync(src, listing({ gone: file(9), a: dir(), 'a/1': file(1) }), { delete: true });
  const r = enqueueSyncPlan(store, { ...key, plan: again, claimFor: currentOwner(), takeOver: b.batchId });
  assert.equal(r.batchId, b.batchId);
  assert.equal(r.kept, 1, "the booked copy 'a/2' kept");
  assert.deepEqual(
    store.jobs
      .batch(r.batchId)
      .filter((j) => syncOptionsOf(j)?.role === 'copy')
      .map((j) => j.source)
      .sort(),
    ['/l/src/a/2', '/l/src/a/3', '/l/src/a/4', '/l/src/a/5'],
    'the plan again, without the copy that arrived',
  );
  const steps = stepsOf(store, r.batchId);
  assert.equal((syncOptionsOf(steps) as SyncStepsOptions).booking, undefined);
  const removed: string[] = [];
  assert.deepEqual(await runSyncSteps(engine(removed), store, steps), { state: 'waiting', copiesLeft: 4 });
  const kept = store.claimBatch(r.batchId, currentOwner());
  store.releaseDone([...kept, ...r.claims!.filter((c) => c.job.id !== steps.id)].map((c) => c.lease));
  assert.deepEqual(await runSyncSteps(engine(removed), store, steps), { state: 'done', deleted: 1, moved: 0 });
  assert.deepEqual(removed, ['/r/dst/gone']);
});
