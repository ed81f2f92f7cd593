import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isSluiceError, SluiceError } from '../errors';
import {
  currentOwner,
  DEFAULT_STALE_AFTER_MS,
  keepLease,
  type HeartbeatResult,
  type Lease,
  type LeaseOwner,
  type LeaseStore,
} from './lease';
import { QUEUE_DB_FILE } from './queueDb';
import type { NewJob } from './queueRows';
import { QueueStore } from './queueStore';
import { QueueChild } from './testing/childRunner';
import { FakeTimers } from './testing/fakeTimers';

const HOST = os.hostname();
const put = (source: string, extra: Partial<NewJob> = {}): NewJob => ({
  target: { siteId: 's' },
  direction: 'upload',
  source,
  dest: '/in',
  ...extra,
});

function memStore(t: { after: (fn: () => void) => void }, now?: () => number): QueueStore {
  const store = QueueStore.open({ file: ':memory:', now });
  t.after(() => store.close());
  return store;
}

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid!;
}

const me = currentOwner();
/** Another live process of this host: the test runner that spawned us. */
const parent: LeaseOwner = { pid: process.ppid, host: HOST, startedAt: 1 };

test('acquire: free -> ours; held by a live process -> refused with the holder; heartbeat and release', (t) => {
  let now = 1000;
  const store = memStore(t, () => now);
  const [job] = store.jobs.addBatch([put('/a')]);
  const got = store.leases.acquire(job.id, me);
  assert.ok(got.ok);
  assert.equal(got.tookOverFrom, undefined);
  const refused = store.leases.acquire(job.id, parent);
  assert.ok(!refused.ok);
  assert.deepEqual(refused.holder.owner, me);
  now = 2000;
  assert.deepEqual(store.leases.heartbeat(got.lease), { held: true, state: 'queued' });
  assert.equal(store.leases.holder(job.id)?.heartbeatAt, 2000);
  assert.equal(store.leases.release(got.lease), true);
  assert.equal(store.leases.release(got.lease), false);
  assert.deepEqual(store.leases.heartbeat(got.lease), { held: false, state: 'queued' });
  assert.ok(store.leases.acquire(job.id, parent).ok, 'free again');
  assert.throws(
    () => store.leases.acquire('nope', me),
    (e: unknown) => isSluiceError(e, 'NOT_FOUND'),
  );
});

test('stale leases are taken over: dead pid on this host, our own pid from an earlier process, old heartbeat elsewhere', async (t) => {
  let now = 1000;
  const store = memStore(t, () => now);
  const [a, b, c] = store.jobs.addBatch([put('/a'), put('/b'), put('/c')]);
  const dead: LeaseOwner = { pid: await deadPid(), host: HOST, startedAt: 5 };
  assert.ok(store.leases.acquire(a.id, dead).ok);
  const took = store.leases.acquire(a.id, me);
  assert.ok(took.ok);
  assert.deepEqual(took.tookOverFrom?.owner, dead);

  assert.ok(store.leases.acquire(b.id, { ...me, startedAt: me.startedAt - 60_000 }).ok);
  assert.ok(!store.leases.acquire(b.id, parent).ok, 'for another asker the pid is alive and the heartbeat fresh');
  assert.ok(store.leases.acquire(b.id, me).ok, 'our pid with another start time was a previous process');

  const elsewhere: LeaseOwner = { pid: process.pid, host: 'other-host.example', startedAt: 7 };
  assert.ok(store.leases.acquire(c.id, elsewhere).ok);
  now = 1000 + DEFAULT_STALE_AFTER_MS;
  assert.ok(!store.leases.acquire(c.id, me).ok, 'exactly the timeout old: still held');
  now += 1;
  const late = store.leases.acquire(c.id, me);
  assert.ok(late.ok);
  assert.equal(late.tookOverFrom?.owner.host, 'other-host.example');
});

test('keepLease beats on its timer, reports the job state, stops on loss and on stop()', (t) => {
  let now = 1000;
  const store = memStore(t, () => now);
  const [job] = store.jobs.addBatch([put('/a')]);
  const timers = new FakeTimers();
  const got = store.leases.acquire(job.id, me);
  assert.ok(got.ok);
  const beats: HeartbeatResult[] = [];
  let lost = 0;
  keepLease(store.leases, got.lease, { timers, intervalMs: 5000, onBeat: (r) => beats.push(r), onLost: () => lost++ });
  assert.deepEqual(timers.delays(), [5000]);
  now = 6000;
  timers.fire();
  store.jobs.setState(job.id, 'paused');
  timers.fire();
  assert.deepEqual(beats, [
    { held: true, state: 'queued' },
    { held: true, state: 'paused' },
  ]);
  assert.equal(store.leases.holder(job.id)?.heartbeatAt, 6000);
  now = 6000 + DEFAULT_STALE_AFTER_MS + 1;
  const other = store.leases.acquire(job.id, parent);
  assert.ok(other.ok, 'a heartbeat older than the timeout is stale');
  timers.fire();
  assert.equal(lost, 1);
  assert.deepEqual(timers.delays(), [], 'no more heartbeats once lost');

  const [job2] = store.jobs.addBatch([put('/b')]);
  const got2 = store.leases.acquire(job2.id, me);
  assert.ok(got2.ok);
  const keeper = keepLease(store.leases, got2.lease, { timers, onLost: () => lost++ });
  keeper.stop();
  assert.deepEqual(timers.delays(), []);
});

test('keepLease: a failing heartbeat is reported and tried again', () => {
  const timers = new FakeTimers();
  let fail = true;
  const leases = {
    heartbeat: (): HeartbeatResult => {
      if (fail) throw new SluiceError('LOCAL_IO', 'Queue database: database is locked (SQLITE_BUSY)');
      return { held: true, state: 'running' };
    },
  } as unknown as LeaseStore;
  const errors: unknown[] = [];
  const beats: HeartbeatResult[] = [];
  keepLease(leases, {} as Lease, {
    timers,
    onLost: () => assert.fail('not lost'),
    onError: (e) => errors.push(e),
    onBeat: (r) => beats.push(r),
  });
  timers.fire();
  assert.equal(errors.length, 1);
  assert.equal(timers.delays().length, 1, 'armed again');
  fail = false;
  timers.fire();
  assert.deepEqual(beats, [{ held: true, state: 'running' }]);
});

test('claimNext takes jobs in queue order under a lease, honours filters, skips leased jobs, re-queues orphans', async (t) => {
  const store = memStore(t);
  const [a, b] = store.jobs.addBatch([put('/a'), put('/b')]);
  const [c] = store.jobs.addBatch([put('/c', { priority: 1, target: { user: 'u', host: 'h', port: 22 } })]);
  assert.ok(store.leases.acquire(a.id, parent).ok, 'someone else is about to run /a');
  const first = store.claimNext(me);
  assert.equal(first?.job.source, '/c');
  assert.equal(first?.job.state, 'running');
  assert.equal(store.leases.holder(c.id)?.owner.pid, me.pid);
  assert.equal(
    store.claimNext(me, { target: { user: 'u', host: 'h', port: 22 } }),
    undefined,
    'the only job there is taken',
  );
  assert.equal(store.claimNext(me, { batchId: a.batchId })?.job.id, b.id, '/a is leased by another live runner');
  assert.equal(store.claimNext(me), undefined);

  const dead: LeaseOwner = { pid: await deadPid(), host: HOST, startedAt: 1 };
  store.q.db.prepare('UPDATE leases SET pid = ? WHERE job_id = ?').run(dead.pid, c.id);
  assert.deepEqual(store.requeueOrphans(me), [c.id], 'its runner died');
  assert.equal(store.jobs.get(c.id)?.state, 'queued');
  const again = store.claimNext(me);
  assert.equal(again?.job.id, c.id);
  assert.equal(again?.job.state, 'running');
});

test('releaseJob sets the state and frees the lease in one step; a lost lease is refused', (t) => {
  const store = memStore(t);
  const [a, b] = store.jobs.addBatch([put('/a'), put('/b')]);
  const ca = store.claimNext(me)!;
  assert.equal(store.releaseJob(ca.lease, 'running').state, 'running');
  assert.ok(store.leases.holds(ca.lease), 'running keeps the lease');
  const done = store.releaseJob(ca.lease, 'failed', { code: 'CONNECTION_LOST', message: 'reset' });
  assert.deepEqual([done.state, done.error?.code], ['failed', 'CONNECTION_LOST']);
  assert.equal(store.leases.holder(a.id), undefined);
  assert.throws(
    () => store.releaseJob(ca.lease, 'queued'),
    (e: unknown) => isSluiceError(e, 'INVALID_STATE') && /lost/.test(e.message),
  );
  const cb = store.claimNext(me)!;
  assert.equal(cb.job.id, b.id);
  store.q.db.prepare('UPDATE leases SET token = ? WHERE job_id = ?').run('taken-over', b.id);
  assert.throws(
    () => store.releaseJob(cb.lease, 'done'),
    (e: unknown) => isSluiceError(e, 'INVALID_STATE'),
  );
  assert.equal(store.jobs.get(b.id)?.state, 'running', 'the job is left to the runner that holds it');
});

test(
  'two processes contend for one lease: one wins; once it is killed its lease is taken over',
  { timeout: 120_000 },
  async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-lease-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, QUEUE_DB_FILE);
    const store = QueueStore.open({ file });
    t.after(() => store.close());
    const [job] = store.jobs.addBatch([put('/a')]);
    const children = [new QueueChild(['lease', file, job.id]), new QueueChild(['lease', file, job.id])];
    t.after(async () => {
      for (const c of children) await c.kill();
    });
    const answers = await Promise.all(
      children.map(
        async (c) =>
          JSON.parse(await c.waitForLine((l) => l.startsWith('{'))) as { ok: boolean; pid: number; holderPid: number },
      ),
    );
    const winners = answers.filter((a) => a.ok);
    assert.equal(winners.length, 1, JSON.stringify(answers));
    const winner = winners[0].pid;
    assert.equal(answers.find((a) => !a.ok)?.holderPid, winner, 'the loser names the winner');
    assert.ok(!store.leases.acquire(job.id, me).ok, 'held while the winner lives');

    const winnerChild = children.find((c) => c.proc.pid === winner)!;
    assert.equal((await winnerChild.kill('SIGKILL')).signal, 'SIGKILL');
    const took = store.leases.acquire(job.id, me);
    assert.ok(
      took.ok,
      "a killed owner's lease is taken over at once (its pid is gone), not after the heartbeat timeout",
    );
    assert.equal(took.tookOverFrom?.owner.pid, winner);
  },
);

test('two processes claim from one queue: every job is run exactly once', { timeout: 120_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-claim-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, QUEUE_DB_FILE);
  const store = QueueStore.open({ file });
  t.after(() => store.close());
  const jobs = store.jobs.addBatch(Array.from({ length: 300 }, (_, i) => put(`/j${i}`)));
  const children = [new QueueChild(['claim', file]), new QueueChild(['claim', file])];
  const claimed: string[][] = [];
  for (const c of children) {
    const end = await c.done();
    assert.equal(end.code, 0, end.stderr);
    claimed.push(c.lines.filter((l) => l.startsWith('claimed ')).map((l) => l.slice(8)));
  }
  t.diagnostic(`claims per process: ${claimed.map((c) => c.length).join(' + ')}`);
  const all = claimed.flat();
  assert.equal(all.length, jobs.length, 'no job claimed twice');
  assert.deepEqual(new Set(all), new Set(jobs.map((j) => j.id)));
  assert.equal(store.jobs.count(['done']), jobs.length);
});
