/**
 * The service's queue in queue.db, against a fake engine (test/serviceHarness.ts): a drop of many files is one engine
 * transfer whose files settle their jobs one by one and are listed with their ends; the queue survives a restart (a
 * close, or a runner that died with jobs running) and resumes by itself; counters are written on state changes, not
 * per sample; jobs another runner holds are never run; the batch, site and queue-wide intents; move to top; a run's
 * journal kept across a pause and resumed from, "resumed from" said; cancel removing partial files; deltas of what
 * changed only.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { QueueStore } from '../stores/queueStore';
import type { LeaseOwner } from '../stores/lease';
import { jobsInOrder } from '../../common/queue/reducer';
import { acceptHostKey, harness, reopen, until, type Harness } from '../test/serviceHarness';
import { LeftoverJournal } from '../stores/leftovers';
import type { EventPayloads } from '../../common/ipc/contract';

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid!;
}

async function enqueue(h: Harness, sources: string[], direction: 'upload' | 'download' = 'upload'): Promise<string[]> {
  const r = await h.service.invoke('queue.enqueue', {
    siteId: h.siteId,
    direction,
    sources,
    dest: direction === 'upload' ? '/r' : '/l',
  });
  assert.ok(r.ok, JSON.stringify(r));
  return r.value.jobIds;
}

const states = (h: Harness): string[] => h.service.jobs().map((j) => j.state);

/** A connected harness with one job running on `source`, held by the fake engine. */
async function runningJob(
  t: Parameters<typeof harness>[0],
  source: string,
  opts: Parameters<typeof harness>[1] = {},
): Promise<{ h: Harness; id: string }> {
  const h = await harness(t, opts);
  await acceptHostKey(h);
  h.engine.behaviour = () => 'hold';
  const [id] = await enqueue(h, [source]);
  await until(h, () => h.engine.isHeld(source), `${source} running`);
  return { h, id };
}

test('a drop of many files is one engine transfer; each file settles its job; the batch lists its files with their ends', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.behaviour = (s) => (s.endsWith('bad') ? 'fail' : s.endsWith('kept') ? 'skip' : 'ok');
  const ids = await enqueue(h, ['/l/a', '/l/bad', '/l/kept']);
  await until(h, () => h.service.jobs().every((j) => j.state === 'done' || j.state === 'failed'), 'all settled');
  assert.equal(h.engine.requests.length, 1, 'one transfer for the whole drop');
  const [req] = h.engine.requests;
  const batchId = h.service.jobs()[0].batchId;
  assert.deepEqual(
    { id: req.id, sources: req.sources, dest: req.dest },
    { id: batchId, sources: ['/l/a', '/l/bad', '/l/kept'], dest: '/r' },
  );
  assert.deepEqual(states(h), ['done', 'failed', 'done']);
  const [, bad, kept] = h.service.jobs();
  assert.equal(kept.filesSkipped, 1, 'a skipped file is counted as skipped');
  assert.equal(bad.error?.code, 'PERMISSION_DENIED');
  assert.equal(
    bad.error?.message,
    'Permission denied — OPEN /r/bad',
    "reason first, the user's path, no temporary name",
  );

  const files = await h.service.invoke('queue.files', { batchId });
  assert.ok(files.ok);
  assert.equal(files.value.total, 3);
  assert.deepEqual(
    files.value.files.map((f) => [f.jobId, f.source, f.state, f.error?.code]),
    [
      [ids[0], '/l/a', 'committed', undefined],
      [ids[1], '/l/bad', 'failed', 'PERMISSION_DENIED'],
      [ids[2], '/l/kept', 'skipped', 'SKIPPED'],
    ],
  );
  assert.ok(!JSON.stringify(files.value).includes('.part'), 'no temporary name reaches the UI');
  assert.deepEqual(jobsInOrder(h.replayed()), h.service.jobs());
  const unknown = await h.service.invoke('queue.files', { batchId: 'nope' });
  assert.equal(unknown.ok ? '' : unknown.error.code, 'NOT_FOUND');
});

test('batch intents: pausing a running batch stops its one transfer; resume runs what is left; retry failed', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  let second = false;
  h.engine.behaviour = (s) => (s === '/l/b' && !second ? 'hold' : s === '/l/c' && !second ? 'fail' : 'ok');
  await enqueue(h, ['/l/a', '/l/b']);
  await until(h, () => h.engine.isHeld('/l/b'), 'b held');
  const batchId = h.service.jobs()[0].batchId;
  assert.ok((await h.service.invoke('queue.pause', { batchId })).ok);
  await until(h, () => states(h).join() === 'done,paused', 'a done before the pause, b paused');
  const again = await h.service.invoke('queue.pause', { batchId });
  assert.equal(again.ok ? '' : again.error.code, 'INVALID_STATE', 'nothing left to pause');
  second = true;
  assert.ok((await h.service.invoke('queue.resume', { batchId })).ok);
  await until(h, () => states(h).join() === 'done,done', 'resumed');
  assert.deepEqual(
    h.engine.requests.map((r) => r.sources),
    [['/l/a', '/l/b'], ['/l/b']],
    'the second run has only what was left',
  );

  second = false;
  await enqueue(h, ['/l/c']);
  await until(h, () => states(h)[2] === 'failed', 'c failed');
  second = true;
  assert.ok((await h.service.invoke('queue.retryFailed', {})).ok);
  await until(h, () => states(h)[2] === 'done', 'c retried');
  const none = await h.service.invoke('queue.retryFailed', { siteId: h.siteId });
  assert.equal(none.ok ? '' : none.error.message, 'No failed jobs to retry on this site');
});

test('pause all and resume all, per site; move to top changes which batch runs next and is kept in queue.db', async (t) => {
  const h = await harness(t, { jobsPerSite: 1 });
  await acceptHostKey(h);
  h.engine.behaviour = () => 'hold';
  await enqueue(h, ['/l/first']);
  await enqueue(h, ['/l/second']);
  await enqueue(h, ['/l/third']);
  await until(h, () => h.engine.isHeld('/l/first'), 'first running');
  assert.ok((await h.service.invoke('queue.pauseAll', { siteId: h.siteId })).ok);
  await until(h, () => states(h).every((s) => s === 'paused'), 'all paused');
  const third = h.service.jobs()[2].batchId;
  assert.ok((await h.service.invoke('queue.move', { batchId: third, to: 'top' })).ok);
  assert.deepEqual(
    h.service.jobs().map((j) => j.name),
    ['third', 'first', 'second'],
  );
  const moved = await h.service.invoke('queue.move', { batchId: third, to: 'top' });
  assert.equal(moved.ok ? '' : moved.error.code, 'INVALID_STATE', 'already at the top');
  assert.ok((await h.service.invoke('queue.resumeAll', {})).ok);
  await until(h, () => h.engine.isHeld('/l/third'), 'the moved batch runs first');
  assert.equal(h.engine.isHeld('/l/first'), false);

  const h2 = await reopen(h);
  assert.deepEqual(
    h2.service.jobs().map((j) => j.name),
    ['third', 'first', 'second'],
    'the order comes back from queue.db',
  );
});

test('restart: the queue comes back from queue.db with its states, and the jobs running at close resume by themselves', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.behaviour = (s) => (s === '/l/slow' || s === '/l/parked' ? 'hold' : s === '/l/bad' ? 'fail' : 'ok');
  const [done] = await enqueue(h, ['/l/done']);
  await until(h, () => states(h)[0] === 'done', 'first done');
  const [bad] = await enqueue(h, ['/l/bad']);
  await until(h, () => states(h)[1] === 'failed', 'bad failed');
  const [slow] = await enqueue(h, ['/l/slow']);
  const [parked] = await enqueue(h, ['/l/parked']);
  await until(h, () => h.engine.isHeld('/l/slow') && h.engine.isHeld('/l/parked'), 'both running');
  assert.ok((await h.service.invoke('queue.pause', { jobId: parked })).ok);
  await until(h, () => states(h)[3] === 'paused', 'parked paused');
  const before = h.service.jobs();

  h.engine.behaviour = (s) => (s === '/l/bad' ? 'fail' : 'ok');
  const h2 = await reopen(h);
  const after = h2.service.jobs();
  assert.deepEqual(
    after.map((j) => j.id),
    [done, bad, slow, parked],
  );
  assert.deepEqual(after.map((j) => j.state).slice(0, 2), ['done', 'failed']);
  assert.equal(after[3].state, 'paused', 'a paused job stays paused');
  assert.deepEqual(after[1].error, before[1].error);
  assert.equal(after[0].bytesDone, before[0].bytesDone, 'counters are kept');
  await until(h2, () => h2.service.jobs()[2].state === 'done', 'the interrupted job resumed by itself and finished');
  assert.equal(h2.engine.requests.at(-1)?.sources[0], '/l/slow');
  assert.equal(h2.service.jobs()[3].state, 'paused');
});

test('a runner that died with jobs running: its jobs go back to the queue and start by themselves', async (t) => {
  const { h, id } = await runningJob(t, '/l/orphan');
  await h.service.close();
  // What a killed process leaves: the job running under a lease whose process is gone.
  const store = QueueStore.open({ home: h.home });
  const dead: LeaseOwner = { pid: await deadPid(), host: os.hostname(), startedAt: 1 };
  const claimed = store.claimJobs([id], dead);
  assert.equal(claimed.claims.length, 1);
  assert.equal(store.jobs.get(id)?.state, 'running');
  store.close();

  h.engine.behaviour = () => 'ok';
  const h2 = await reopen(h);
  await until(h2, () => h2.service.jobs()[0].state === 'done', 'the orphan ran again');
  const check = QueueStore.open({ home: h.home });
  t.after(() => check.close());
  assert.equal(check.jobs.get(id)?.state, 'done');
  assert.equal(check.leases.holder(id), undefined, 'its lease is released');
});

test('a job another live runner holds is shown but never run; its end is followed from the store', async (t) => {
  const h = await harness(t, { queueTimings: { heartbeatMs: 20 } });
  await acceptHostKey(h);
  await h.service.close();
  const store = QueueStore.open({ home: h.home });
  t.after(() => store.close());
  const other: LeaseOwner = { pid: process.ppid, host: os.hostname(), startedAt: 1 };
  const [theirs] = store.jobs.addBatch([
    { target: { siteId: h.siteId }, direction: 'upload', source: '/l/theirs', dest: '/r' },
  ]);
  const {
    claims: [claim],
  } = store.claimJobs([theirs.id], other);

  const h2 = await reopen(h, { queueTimings: { heartbeatMs: 20 } });
  assert.equal(h2.service.jobs()[0].state, 'running');
  await enqueue(h2, ['/l/mine']);
  await until(h2, () => h2.service.jobs()[1]?.state === 'done', 'our job done');
  assert.deepEqual(
    h2.engine.requests.map((r) => r.sources),
    [['/l/mine']],
    "the other runner's job was not run here",
  );
  store.jobs.updateProgress(theirs.id, { bytesDone: 7, bytesTotal: 7, filesDone: 1, filesTotal: 1 });
  store.releaseJob(claim.lease, 'done');
  await until(h2, () => h2.service.jobs()[0].state === 'done', 'their end seen');
  assert.equal(h2.service.jobs()[0].bytesDone, 7);
});

test('counters reach queue.db with state changes, not with every progress sample', async (t) => {
  const { h, id } = await runningJob(t, '/l/big', { queueTimings: { progressMs: 3_600_000 } });
  await until(h, () => h.service.jobs()[0].bytesDone === 50, 'progress seen');
  const store = QueueStore.open({ home: h.home });
  t.after(() => store.close());
  assert.equal(store.jobs.get(id)?.bytesDone, 0, 'not written per sample');
  assert.ok((await h.service.invoke('queue.pause', { jobId: id })).ok);
  await until(h, () => h.service.jobs()[0].state === 'paused', 'paused');
  assert.deepEqual(
    [store.jobs.get(id)?.state, store.jobs.get(id)?.bytesDone],
    ['paused', 50],
    'written with the state change',
  );
});

test('a file an earlier run of the job committed is done, not skipped; a new job with an existing target asks', async (t) => {
  const { h, id } = await runningJob(t, '/l/r');
  assert.ok((await h.service.invoke('queue.pause', { jobId: id })).ok);
  await until(h, () => states(h)[0] === 'paused', 'paused');
  // The pause's abort came too late for the commit: the engine's journal knows the file is there, the job's own.
  h.engine.behaviour = () => 'earlier';
  assert.ok((await h.service.invoke('queue.resume', { jobId: id })).ok);
  await until(h, () => states(h)[0] === 'done', 'resumed and done');
  assert.equal(h.events.filter((e) => e.name === 'conflict.prompt').length, 0, 'not asked');
  assert.equal(h.service.jobs()[0].filesSkipped, undefined, 'its own file is done, not skipped');

  h.engine.behaviour = () => 'conflict';
  const prompt = h.next('conflict.prompt');
  await enqueue(h, ['/l/r']);
  const p = await prompt;
  assert.ok(
    (await h.service.invoke('conflict.answer', { promptId: p.promptId, choice: 'overwrite', forAll: false })).ok,
  );
  await until(h, () => states(h)[1] === 'done', 'the new job done');
  assert.deepEqual(h.engine.conflictAnswers, ['overwrite']);
});

const MiB = 1024 * 1024;

test('pause keeps the journal and the partial file; resume starts from the durable bytes and says "resumed from"', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  const dest = fs.mkdtempSync(path.join(h.home, 'dl-'));
  h.engine.fileSize = 8 * MiB;
  h.engine.behaviour = () => 'hold';
  const r = await h.service.invoke('queue.enqueue', {
    siteId: h.siteId,
    direction: 'download',
    sources: ['/r/big.bin'],
    dest,
  });
  assert.ok(r.ok);
  const [id] = r.value.jobIds;
  await until(h, () => h.engine.isHeld('/r/big.bin'), 'held');
  assert.equal(h.engine.requests[0].journal?.resuming, false, 'the run has the journal of its job, nothing to resume');
  assert.ok((await h.service.invoke('queue.pause', { jobId: id })).ok);
  await until(h, () => states(h)[0] === 'paused', 'paused');
  const temp = h.engine.tempOf.get('/r/big.bin')!;
  assert.equal(path.dirname(temp), dest);
  assert.ok(fs.existsSync(temp), 'the partial file is kept');
  const store = QueueStore.open({ home: h.home });
  t.after(() => store.close());
  const [row] = store.files.list(id);
  assert.deepEqual([row.state, store.journal.doneBytes(row.id)], ['moving', 4 * MiB], 'its durable range is kept');

  const started: Array<{ bytesDone?: number; resumedFrom?: number }> = [];
  h.service.subscribe((name, payload) => {
    if (name !== 'queue.delta') return;
    for (const e of (payload as EventPayloads['queue.delta']).events)
      if (e.type === 'updated' && e.patch.state === 'running') started.push(e.patch);
  });
  h.engine.behaviour = () => 'ok';
  assert.ok((await h.service.invoke('queue.resume', { jobId: id })).ok);
  await until(h, () => states(h)[0] === 'done', 'resumed and done');
  assert.equal(h.engine.requests[1].journal?.resuming, true);
  assert.deepEqual(
    started.map((p) => [p.bytesDone, p.resumedFrom]),
    [[4 * MiB, 4 * MiB]],
    'started from what was durable, and said so',
  );
  assert.equal(h.replayed().jobs[0].resumedFrom, 4 * MiB, 'the renderer has it');
  assert.equal(store.files.list(id)[0].state, 'committed');
  assert.equal(fs.existsSync(temp), false);
});

test('cancel removes the partial files pause kept: locally, through the connection, or as leftovers when disconnected', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.fileSize = 5 * MiB;
  h.engine.behaviour = () => 'hold';
  const dest = fs.mkdtempSync(path.join(h.home, 'dl-'));
  const down = await h.service.invoke('queue.enqueue', {
    siteId: h.siteId,
    direction: 'download',
    sources: ['/r/d.bin'],
    dest,
  });
  assert.ok(down.ok);
  await until(h, () => h.engine.isHeld('/r/d.bin'), 'download held');
  assert.ok((await h.service.invoke('queue.pause', { jobId: down.value.jobIds[0] })).ok);
  const temp = h.engine.tempOf.get('/r/d.bin')!;
  await until(h, () => states(h)[0] === 'paused', 'paused');
  assert.ok(fs.existsSync(temp), 'pause keeps it');
  assert.ok((await h.service.invoke('queue.cancel', { jobId: down.value.jobIds[0] })).ok);
  await until(h, () => !fs.existsSync(temp), 'the local partial file removed');

  // Uploads: a local source of 5 MiB (the journal fingerprints it), its partial copy on the server.
  const src = path.join(h.home, 'u.bin');
  fs.writeFileSync(src, Buffer.alloc(5 * MiB, 1));
  const [running] = await enqueue(h, [src]);
  await until(h, () => h.engine.isHeld(src), 'upload held');
  assert.ok((await h.service.invoke('queue.cancel', { jobId: running })).ok);
  await until(
    h,
    () => h.engine.removed.includes(h.engine.tempOf.get(src)!),
    'removed through the connection once the run ended',
  );
  assert.equal(h.service.jobs()[1].state, 'cancelled');

  assert.ok((await h.service.invoke('queue.retry', { jobId: running })).ok);
  await until(h, () => h.engine.isHeld(src), 'retried: held again');
  assert.ok((await h.service.invoke('queue.pause', { jobId: running })).ok);
  await until(h, () => states(h)[1] === 'paused', 'paused');
  assert.ok((await h.service.invoke('session.disconnect', { siteId: h.siteId })).ok);
  assert.ok((await h.service.invoke('queue.cancel', { jobId: running })).ok);
  const leftovers = new LeftoverJournal(h.home, { host: '127.0.0.1', port: 2222, user: 'u' });
  await until(h, () => leftovers.pending().length === 1, 'recorded as a leftover for the next transfer to the server');
  assert.deepEqual(
    leftovers.pending().map((l) => l.entry),
    [{ kind: 'temp', path: h.engine.tempOf.get(src)! }],
  );
  const store = QueueStore.open({ home: h.home });
  t.after(() => store.close());
  assert.deepEqual(store.files.list(running), [], 'a retry starts over');
});

test('queue deltas carry only jobs that changed: a progress sample of a 3-job run sends the one job it moved', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.behaviour = () => 'hold';
  const updated: string[] = [];
  h.service.subscribe((name, payload) => {
    if (name === 'queue.delta')
      for (const e of (payload as EventPayloads['queue.delta']).events) if (e.type === 'updated') updated.push(e.id);
  });
  const ids = await enqueue(h, ['/l/a', '/l/b', '/l/c']);
  await until(h, () => h.engine.isHeld('/l/a'), 'held');
  // Three starts, then the sample: its rate goes to the first job; the others' counters did not change.
  assert.deepEqual(updated, [...ids, ids[0]]);
});
