/**
 * Files' ends recorded by the app's queue (fileOutcomes.ts) and the batch claim (jobClaim.ts claimJobs): rows per job
 * and source, the latest end wins, cleared for a run that starts over, listed per batch; a batch's jobs leased in one
 * transaction, jobs held by a live runner or not queued refused; jobs added with the caller's ids and removed by id.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { currentOwner, type LeaseOwner } from './lease';
import type { NewJob } from './queueRows';
import { QueueStore } from './queueStore';

const put = (source: string, extra: Partial<NewJob> = {}): NewJob => ({ target: { siteId: 's' }, direction: 'upload', source, dest: '/in', ...extra });
const me = currentOwner();
const other: LeaseOwner = { pid: process.ppid, host: os.hostname(), startedAt: 1 };

function memStore(t: { after: (fn: () => void) => void }): QueueStore {
  const store = QueueStore.open({ file: ':memory:' });
  t.after(() => store.close());
  return store;
}

test('file ends: recorded per job and source, the latest wins, listed per batch in order, cleared per job', (t) => {
  const store = memStore(t);
  const [a, b] = store.jobs.addBatch([put('/l/a'), put('/l/dir')], 'B1');
  const [c] = store.jobs.addBatch([put('/l/c')], 'B2');
  store.outcomes.record([
    { jobId: a.id, source: '/l/a', target: '/in/a', size: 3, state: 'failed', error: { code: 'E', message: 'nope' } },
    { jobId: b.id, source: '/l/dir/x', target: '/in/dir/x', size: 5, state: 'skipped', error: { code: 'SKIPPED', message: 'exists' } },
    { jobId: c.id, source: '/l/c', target: '/in/c', size: 1, state: 'committed' },
    { jobId: 'gone', source: '/l/z', target: '/in/z', size: 1, state: 'committed' },
  ]);
  store.outcomes.record([{ jobId: a.id, source: '/l/a', target: '/in/a', size: 3, state: 'committed' }]);
  const { files, total } = store.outcomes.ofBatch('B1', 10);
  assert.equal(total, 2);
  assert.deepEqual(files.map((f) => [f.jobId, f.source, f.state, f.error, f.tempName]), [
    [a.id, '/l/a', 'committed', undefined, ''], [b.id, '/l/dir/x', 'skipped', { code: 'SKIPPED', message: 'exists' }, ''],
  ]);
  assert.equal(store.outcomes.ofBatch('B1', 1).files.length, 1, 'limited');
  assert.deepEqual([...store.outcomes.skippedPerJob()], [[b.id, 1]]);
  store.outcomes.clear([a.id, b.id]);
  assert.equal(store.outcomes.ofBatch('B1', 10).total, 0);
  assert.equal(store.outcomes.ofBatch('B2', 10).total, 1, 'other jobs keep theirs');
  // The engine planning the same source later replaces a recorded end's row; an empty temporary name is no partial file.
  store.outcomes.record([{ jobId: c.id, source: '/l/c', target: '/in/c', size: 1, state: 'failed' }]);
  const plan = store.files.plan(c.id, [{ source: '/l/c', target: '/in/c', size: 2, tempName: '.c.sluice-00000000.part' }]);
  assert.deepEqual(plan.discardedTempNames, []);
  assert.equal(plan.files[0].state, 'planned');
});

test('claimJobs: a batch leased at once; jobs held by a live runner or not queued are refused; orphans re-queued first', (t) => {
  const store = memStore(t);
  const jobs = store.jobs.addBatch([put('/l/a'), put('/l/b'), put('/l/c'), put('/l/d')]);
  const [a, b, c, d] = jobs.map((j) => j.id);
  assert.equal(store.claimJobs([b], other).claims.length, 1);
  store.jobs.setState(c, 'paused');
  const got = store.claimJobs([a, b, c, d, 'zz'], me);
  assert.deepEqual(got.claims.map((x) => [x.job.id, x.job.state, x.lease.owner.pid]), [[a, 'running', me.pid], [d, 'running', me.pid]]);
  assert.deepEqual(got.refused.map((r) => [r.id, r.job?.state]), [[b, 'running'], [c, 'paused'], ['zz', undefined]]);
  assert.equal(store.leases.holder(b)?.owner.pid, other.pid, 'the other runner keeps its job');
  store.q.db.prepare('UPDATE leases SET pid = ? WHERE job_id = ?').run(2 ** 31 - 1, b);
  const again = store.claimJobs([b], me);
  assert.deepEqual(again.claims.map((x) => x.job.id), [b], 'a dead runner\'s job is re-queued and taken');
});

test('jobs added with the caller\'s ids keep them; remove deletes by id with their files', (t) => {
  const store = memStore(t);
  const added = store.jobs.addBatch([put('/l/a', { id: 'mine-1' }), put('/l/b', { id: 'mine-2' })], 'B');
  assert.deepEqual(added.map((j) => j.id), ['mine-1', 'mine-2']);
  assert.equal(store.jobs.get('mine-2')?.source, '/l/b');
  store.outcomes.record([{ jobId: 'mine-1', source: '/l/a', target: '/in/a', size: 1, state: 'committed' }]);
  assert.equal(store.jobs.remove(['mine-1', 'nope']), 1);
  assert.equal(store.jobs.get('mine-1'), undefined);
  assert.equal(store.outcomes.ofBatch('B', 10).total, 0, 'its files went with it');
});
