/**
 * Claiming a batch's jobs at once (jobClaim.ts claimJobs, the app's batch runs): leased in one transaction, jobs held
 * by a live runner or not queued refused, orphans re-queued first.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { currentOwner, type LeaseOwner } from './lease';
import type { NewJob } from './queueRows';
import { QueueStore } from './queueStore';

const put = (source: string, extra: Partial<NewJob> = {}): NewJob => ({
  target: { siteId: 's' },
  direction: 'upload',
  source,
  dest: '/in',
  ...extra,
});
const me = currentOwner();
const other: LeaseOwner = { pid: process.ppid, host: os.hostname(), startedAt: 1 };

function memStore(t: { after: (fn: () => void) => void }): QueueStore {
  const store = QueueStore.open({ file: ':memory:' });
  t.after(() => store.close());
  return store;
}

test('claimJobs: a batch leased at once; jobs held by a live runner or not queued are refused; orphans re-queued first', (t) => {
  const store = memStore(t);
  const jobs = store.jobs.addBatch([put('/l/a'), put('/l/b'), put('/l/c'), put('/l/d')]);
  const [a, b, c, d] = jobs.map((j) => j.id);
  assert.equal(store.claimJobs([b], other).claims.length, 1);
  store.jobs.setState(c, 'paused');
  const got = store.claimJobs([a, b, c, d, 'zz'], me);
  assert.deepEqual(
    got.claims.map((x) => [x.job.id, x.job.state, x.lease.owner.pid]),
    [
      [a, 'running', me.pid],
      [d, 'running', me.pid],
    ],
  );
  assert.deepEqual(
    got.refused.map((r) => [r.id, r.job?.state]),
    [
      [b, 'running'],
      [c, 'paused'],
      ['zz', undefined],
    ],
  );
  assert.equal(store.leases.holder(b)?.owner.pid, other.pid, 'the other runner keeps its job');
  store.q.db.prepare('UPDATE leases SET pid = ? WHERE job_id = ?').run(2 ** 31 - 1, b);
  const again = store.claimJobs([b], me);
  assert.deepEqual(
    again.claims.map((x) => x.job.id),
    [b],
    "a dead runner's job is re-queued and taken",
  );
});

test('claimBatch: every queued job of the batch running under a lease at once, as claimJobs would leave them', (t) => {
  const store = memStore(t);
  const jobs = store.jobs.addBatch([put('/l/a'), put('/l/b'), put('/l/c'), put('/l/d')], 'batch-1');
  store.jobs.addBatch([put('/l/other')], 'batch-2');
  const [a, b, c, d] = jobs.map((j) => j.id);
  assert.equal(store.claimJobs([b], other).claims.length, 1);
  store.jobs.setState(c, 'paused');
  const claims = store.claimBatch('batch-1', me);
  assert.deepEqual(
    claims.map((x) => [x.job.id, x.job.state, x.lease.owner.pid, x.ranBefore]),
    [
      [a, 'running', me.pid, false],
      [d, 'running', me.pid, false],
    ],
  );
  for (const x of claims) {
    const stored = store.jobs.get(x.job.id)!;
    assert.equal(stored.state, 'running');
    assert.equal(stored.startedAt, x.job.startedAt);
    assert.ok(store.leases.holds(x.lease));
  }
  assert.equal(store.leases.holder(b)?.owner.pid, other.pid, 'the other runner keeps its job');
  assert.equal(store.jobs.count(['queued']), 1, "the other batch's job is left alone");
  store.releaseJob(claims[0].lease, 'paused');
  store.jobs.setState(a, 'queued');
  const again = store.claimBatch('batch-1', me);
  assert.deepEqual(
    again.map((x) => [x.job.id, x.ranBefore]),
    [[a, true]],
  );
});

test('addClaimedBatch: jobs stored running under leases at once; killed, they are orphans re-queued; releaseDone settles many', (t) => {
  const store = memStore(t);
  const dead: LeaseOwner = { pid: 2 ** 22 + 17, host: me.host, startedAt: 1 };
  const claims = store.addClaimedBatch([put('/l/a'), put('/l/b')], 'batch-1', dead);
  assert.deepEqual(
    store.jobs.batch('batch-1').map((j) => [j.source, j.state, store.leases.holder(j.id)?.owner.pid]),
    [
      ['/l/a', 'running', dead.pid],
      ['/l/b', 'running', dead.pid],
    ],
  );
  assert.deepEqual(
    claims.map((c) => [c.job.state, c.ranBefore, c.lease.jobId === c.job.id]),
    [
      ['running', false, true],
      ['running', false, true],
    ],
  );
  assert.equal(store.requeueOrphans(me).length, 2, 'a runner that died leaves orphans, queued again');
  const mine = store.claimBatch('batch-1', me);
  // One lease lost to another runner meanwhile: releaseDone leaves that job alone.
  store.leases.release(mine[1].lease);
  assert.equal(store.leases.acquire(mine[1].job.id, other).ok, true);
  assert.equal(store.releaseDone(mine.map((c) => c.lease)), 1);
  assert.deepEqual(
    store.jobs.batch('batch-1').map((j) => [j.state, store.leases.holder(j.id)?.owner.pid]),
    [
      ['done', undefined],
      ['running', other.pid],
    ],
  );
});
