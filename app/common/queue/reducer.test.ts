import test from 'node:test';
import assert from 'node:assert/strict';
import {
  applyQueueEvents,
  compactQueueEvents,
  emptyQueue,
  getJob,
  jobsInOrder,
  queueTotals,
  reduceQueue,
  type QueueEvent,
} from './reducer';
import { canTransition, etaSeconds } from '../model/job';
import { job } from './testing/jobs';

test('added jobs keep order and duplicates are ignored', () => {
  let s = reduceQueue(emptyQueue, { type: 'added', jobs: [job('a'), job('b')] });
  s = reduceQueue(s, { type: 'added', jobs: [job('a', { name: 'dup' }), job('c')] });
  assert.deepEqual(s.order, ['a', 'b', 'c']);
  assert.equal(s.byId.a.name, 'a');
});

test('legal transitions apply, illegal ones are ignored and return the same state', () => {
  let s = reduceQueue(emptyQueue, { type: 'added', jobs: [job('a')] });
  s = reduceQueue(s, { type: 'updated', id: 'a', patch: { state: 'running', bytesDone: 10 } });
  s = reduceQueue(s, { type: 'updated', id: 'a', patch: { state: 'done', bytesDone: 100 } });
  assert.equal(s.byId.a.state, 'done');
  const same = reduceQueue(s, { type: 'updated', id: 'a', patch: { state: 'running' } });
  assert.equal(same, s, 'done is terminal');
  assert.equal(reduceQueue(s, { type: 'updated', id: 'zz', patch: { rate: 1 } }), s, 'unknown id is a no-op');
  assert.equal(
    reduceQueue(s, { type: 'updated', id: 'a', patch: { bytesDone: 100 } }),
    s,
    'no-change patch is a no-op',
  );
});

test('the transition table matches the documented lifecycle', () => {
  assert.ok(canTransition('queued', 'running'));
  assert.ok(canTransition('running', 'paused'));
  assert.ok(canTransition('paused', 'queued'));
  assert.ok(canTransition('failed', 'queued'));
  assert.ok(canTransition('cancelled', 'queued'));
  assert.ok(!canTransition('done', 'queued'));
  assert.ok(!canTransition('paused', 'running'));
  assert.ok(!canTransition('queued', 'done'));
});

test('removed and snapshot events', () => {
  let s = reduceQueue(emptyQueue, { type: 'added', jobs: [job('a'), job('b'), job('c')] });
  s = reduceQueue(s, { type: 'removed', ids: ['b', 'nope'] });
  assert.deepEqual(s.order, ['a', 'c']);
  assert.equal(s.byId.b, undefined);
  s = reduceQueue(s, { type: 'snapshot', jobs: [job('x')] });
  assert.deepEqual(
    jobsInOrder(s).map((j) => j.id),
    ['x'],
  );
});

test('a batch over 10,000 jobs does not mutate the previous state', () => {
  const jobs = Array.from({ length: 10_000 }, (_, i) => job(`j${i}`));
  const s0 = reduceQueue(emptyQueue, { type: 'added', jobs });
  const events: QueueEvent[] = jobs.map((j) => ({
    type: 'updated',
    id: j.id,
    patch: { state: 'running', bytesDone: 50, rate: 10 },
  }));
  const s1 = applyQueueEvents(s0, events);
  assert.equal(s0.byId.j5.state, 'queued');
  assert.equal(s1.byId.j5.state, 'running');
  const t = queueTotals(s1);
  assert.equal(t.count.running, 10_000);
  assert.equal(t.bytesDone, 500_000);
  assert.equal(t.rate, 100_000);
});

test('compaction folds progress updates but keeps each state change', () => {
  const events: QueueEvent[] = [
    { type: 'updated', id: 'a', patch: { state: 'running' } },
    { type: 'updated', id: 'a', patch: { bytesDone: 10 } },
    { type: 'updated', id: 'b', patch: { bytesDone: 5 } },
    { type: 'updated', id: 'a', patch: { bytesDone: 20 } },
    { type: 'updated', id: 'a', patch: { state: 'done', bytesDone: 100 } },
    { type: 'updated', id: 'a', patch: { rate: 0 } },
  ];
  const out = compactQueueEvents(events);
  assert.deepEqual(out, [
    { type: 'updated', id: 'a', patch: { state: 'running', bytesDone: 20 } },
    { type: 'updated', id: 'b', patch: { bytesDone: 5 } },
    { type: 'updated', id: 'a', patch: { state: 'done', bytesDone: 100, rate: 0 } },
  ]);
  const start = reduceQueue(emptyQueue, { type: 'added', jobs: [job('a'), job('b')] });
  assert.deepEqual(
    applyQueueEvents(start, out),
    applyQueueEvents(start, events),
    'compacted replay equals full replay',
  );
});

test('eta from rate', () => {
  assert.equal(etaSeconds({ bytesDone: 50, bytesTotal: 150, rate: 50 }), 2);
  assert.equal(etaSeconds({ bytesDone: 50, bytesTotal: 150, rate: 0 }), undefined);
});

test('byId is a read-only view over the job array; updates keep untouched jobs and the index', () => {
  const s0 = reduceQueue(emptyQueue, { type: 'added', jobs: [job('a'), job('b'), job('toString')] });
  const s1 = reduceQueue(s0, { type: 'updated', id: 'a', patch: { bytesDone: 7 } });
  assert.equal(s1.byId.a.bytesDone, 7);
  assert.equal(getJob(s1, 'a')?.bytesDone, 7);
  assert.equal(s1.byId.b, s0.byId.b, 'untouched job keeps its identity');
  assert.equal(s1.index, s0.index, 'an update does not rebuild the index');
  assert.equal(s1.order, s0.order);
  assert.deepEqual(Object.keys(s1.byId), ['a', 'b', 'toString']);
  assert.ok('b' in s1.byId && !('zz' in s1.byId));
  assert.equal(s1.byId.zz, undefined);
  assert.equal(s1.byId.toString.name, 'toString', 'ids shadow nothing and are found like any other');
  assert.throws(() => {
    (s1.byId as Record<string, unknown>).a = job('x');
  }, TypeError);
  assert.equal(getJob(reduceQueue(s1, { type: 'removed', ids: ['a'] }), 'b')?.id, 'b', 'index rebuilt after removal');
});

test('moved: jobs move as one block to the top, the bottom or before a job; a no-op or unknown id changes nothing', () => {
  const s = reduceQueue(emptyQueue, { type: 'added', jobs: ['a', 'b', 'c', 'd'].map((id) => job(id)) });
  const order = (e: QueueEvent): readonly string[] => reduceQueue(s, e).order;
  assert.deepEqual(order({ type: 'moved', ids: ['c', 'd'], to: 'top' }), ['c', 'd', 'a', 'b']);
  assert.deepEqual(order({ type: 'moved', ids: ['a'], to: 'bottom' }), ['b', 'c', 'd', 'a']);
  assert.deepEqual(order({ type: 'moved', ids: ['d', 'a'], to: { before: 'c' } }), ['b', 'd', 'a', 'c']);
  const moved = reduceQueue(s, { type: 'moved', ids: ['c'], to: 'top' });
  assert.deepEqual(
    moved.jobs.map((j) => j.id),
    ['c', 'a', 'b', 'd'],
    'jobs follow the order',
  );
  assert.equal(moved.index.get('a'), 1);
  assert.equal(reduceQueue(s, { type: 'moved', ids: ['a', 'b'], to: 'top' }), s, 'already there');
  assert.equal(reduceQueue(s, { type: 'moved', ids: ['zz'], to: 'top' }), s);
  assert.equal(reduceQueue(s, { type: 'moved', ids: ['a'], to: { before: 'a' } }), s);
  const compacted = compactQueueEvents([
    { type: 'updated', id: 'a', patch: { rate: 1 } },
    { type: 'moved', ids: ['a'], to: 'bottom' },
    { type: 'updated', id: 'a', patch: { rate: 2 } },
  ]);
  assert.equal(compacted.length, 3, 'a move is kept between the updates around it');
});
