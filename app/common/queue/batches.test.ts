/**
 * Batches (app/common/queue/batches.ts) and the intents on several jobs (groupRules.ts, order.ts): a batch's state and
 * sums, views kept identical while their jobs are, the batch/site/queue-wide intents decided job by job with the
 * per-job table, moving a batch, and that the renderer's predicates agree with `decide`.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { JOB_STATES, type JobState } from '../model/job';
import { allSkipped, batchState, batchViews, bytesBeforeRun, summariseBatch } from './batches';
import { applyQueueEvents, getJob, movedOrder } from './reducer';
import { JOB_INTENTS, allowedBatchIntents, can, canJob, decide, type QueueIntent } from './rules';
import { job, queueOf } from './testing/jobs';

const NOW = 900;

test('a batch shows running before queued, paused, failed, cancelled; done only when every job is', () => {
  const of = (...s: JobState[]) => batchState(s.map((state) => ({ state })));
  assert.equal(of('done', 'running', 'failed'), 'running');
  assert.equal(of('done', 'queued', 'paused'), 'queued');
  assert.equal(of('paused', 'failed'), 'paused');
  assert.equal(of('done', 'failed', 'cancelled'), 'failed');
  assert.equal(of('done', 'cancelled'), 'cancelled');
  assert.equal(of('done', 'done'), 'done');
});

test('a batch view sums its jobs; a view is reused while its jobs are unchanged', () => {
  const q = queueOf(
    job('a', { batchId: 'b1', state: 'done', bytesDone: 100, filesDone: 1, filesSkipped: 1 }),
    job('x', { batchId: 'b2' }),
    job('c', { batchId: 'b1', state: 'running', bytesDone: 30, rate: 7 }),
    job('d', { batchId: 'b1', state: 'failed', error: { code: 'E', message: 'm' } }),
  );
  const views = batchViews(q);
  assert.deepEqual([...views.keys()], ['b1', 'b2'], 'a batch sits where its first job is');
  const b1 = views.get('b1')!;
  assert.deepEqual(
    {
      name: b1.name,
      state: b1.state,
      bytesDone: b1.bytesDone,
      bytesTotal: b1.bytesTotal,
      files: [b1.filesDone, b1.filesTotal, b1.filesSkipped],
      rate: b1.rate,
      error: b1.error,
    },
    {
      name: 'a and 2 more',
      state: 'running',
      bytesDone: 130,
      bytesTotal: 300,
      files: [1, 3, 1],
      rate: 7,
      error: { code: 'E', message: 'm' },
    },
  );
  assert.equal(views.get('b2')!.name, 'x');
  const next = applyQueueEvents(q, [{ type: 'updated', id: 'x', patch: { bytesDone: 5 } }]);
  const again = batchViews(next, views);
  assert.equal(again.get('b1'), b1, 'unchanged batch: same object');
  assert.notEqual(again.get('b2'), views.get('b2'));
  assert.ok(allSkipped(summariseBatch([job('s', { state: 'done', filesDone: 1, filesTotal: 1, filesSkipped: 1 })])));
  assert.ok(!allSkipped(summariseBatch([job('s', { state: 'done', filesDone: 2, filesTotal: 2, filesSkipped: 1 })])));
});

test('a batch intent applies the per-job rule to each job that accepts it, and is refused when none does', () => {
  for (const intent of JOB_INTENTS) {
    for (const a of JOB_STATES) {
      for (const b of JOB_STATES) {
        const q = queueOf(job('j1', { state: a }), job('j2', { state: b }), job('o', { batchId: 'other', state: a }));
        const d = decide(q, { type: intent, batchId: 'b' }, NOW);
        const accepting = ['j1', 'j2'].filter((id) => canJob(getJob(q, id)!, intent));
        assert.equal(d.ok, accepting.length > 0, `${intent} ${a}+${b}`);
        assert.deepEqual(
          allowedBatchIntents([getJob(q, 'j1')!, getJob(q, 'j2')!]).includes(intent),
          d.ok,
          'the row offers it exactly then',
        );
        if (!d.ok) continue;
        const perJob = accepting.map((id) => decide(q, { type: intent, jobId: id }, NOW));
        assert.deepEqual(
          d.events,
          perJob.flatMap((x) => (x.ok ? x.events : [])),
        );
        assert.ok(
          d.effects.length <= perJob.flatMap((x) => (x.ok ? x.effects : [])).length,
          'one schedule per site at most',
        );
        assert.ok(!d.events.some((e) => e.type === 'updated' && e.id === 'o'), 'other batches untouched');
      }
    }
  }
  assert.deepEqual(decide(queueOf(job('a')), { type: 'pause', batchId: 'nope' }), {
    ok: false,
    refusal: { code: 'NOT_FOUND', message: 'No batch nope' },
  });
  assert.deepEqual(decide(queueOf(job('a', { state: 'done' })), { type: 'pause', batchId: 'b' }), {
    ok: false,
    refusal: { code: 'INVALID_STATE', message: 'Cannot pause a done batch' },
  });
});

test('pause all, resume all and retry failed: per site or everything; retry failed leaves cancelled jobs alone', () => {
  const q = queueOf(
    job('q'),
    job('r', { state: 'running' }),
    job('p', { state: 'paused' }),
    job('f', { state: 'failed' }),
    job('c', { state: 'cancelled' }),
    job('q2', { siteId: 's2' }),
    job('f2', { siteId: 's2', state: 'failed' }),
  );
  const ids = (intent: QueueIntent): string[] => {
    const d = decide(q, intent, NOW);
    assert.ok(d.ok);
    return [
      ...d.events.map((e) => (e.type === 'updated' ? `${e.id}:${e.patch.state}` : '')),
      ...d.effects.map((e) => (e.type === 'stop' ? `${e.jobId}:stop-${e.as}` : `schedule:${e.siteId}`)),
    ];
  };
  assert.deepEqual(ids({ type: 'pauseAll' }), ['q:paused', 'q2:paused', 'r:stop-paused']);
  assert.deepEqual(ids({ type: 'pauseAll', siteId: 's2' }), ['q2:paused']);
  assert.deepEqual(ids({ type: 'resumeAll' }), ['p:queued', 'schedule:s']);
  assert.deepEqual(ids({ type: 'retryFailed' }), ['f:queued', 'f2:queued', 'schedule:s', 'schedule:s2']);
  assert.deepEqual(ids({ type: 'retryFailed', siteId: 's' }), ['f:queued', 'schedule:s']);
  assert.deepEqual(decide(q, { type: 'resumeAll', siteId: 's2' }), {
    ok: false,
    refusal: { code: 'INVALID_STATE', message: 'No paused jobs to resume on this site' },
  });
  assert.equal(can(queueOf(job('d', { state: 'done' })), { type: 'pauseAll' }), false);
});

test('move: a batch moves as a block to the top, the bottom or before another batch; no-ops and unknowns are refused', () => {
  const q = queueOf(
    job('a1', { batchId: 'A' }),
    job('b1', { batchId: 'B' }),
    job('a2', { batchId: 'A' }),
    job('c1', { batchId: 'C' }),
  );
  const order = (intent: QueueIntent): string[] | string => {
    const d = decide(q, intent);
    return d.ok ? [...applyQueueEvents(q, d.events).order] : d.refusal.code;
  };
  assert.deepEqual(order({ type: 'move', batchId: 'C', to: 'top' }), ['c1', 'a1', 'b1', 'a2']);
  assert.deepEqual(order({ type: 'move', batchId: 'A', to: 'bottom' }), ['b1', 'c1', 'a1', 'a2']);
  assert.deepEqual(
    order({ type: 'move', batchId: 'A', to: 'top' }),
    ['a1', 'a2', 'b1', 'c1'],
    'the batch gathers at its place',
  );
  assert.deepEqual(order({ type: 'move', batchId: 'C', to: { before: 'B' } }), ['a1', 'c1', 'b1', 'a2']);
  assert.equal(order({ type: 'move', batchId: 'C', to: 'bottom' }), 'INVALID_STATE', 'already there');
  assert.equal(order({ type: 'move', batchId: 'C', to: { before: 'C' } }), 'INVALID_REQUEST');
  assert.equal(order({ type: 'move', batchId: 'Z', to: 'top' }), 'NOT_FOUND');
  assert.equal(order({ type: 'move', batchId: 'C', to: { before: 'Z' } }), 'NOT_FOUND');
  const finished = queueOf(job('a'), job('d', { batchId: 'D', state: 'done' }));
  assert.equal(can(finished, { type: 'move', batchId: 'D', to: 'top' }), false, 'nothing left to run in it');
  assert.equal(movedOrder(['a', 'b'], ['a', 'zz'], 'top'), undefined, 'unknown ids move nothing');
});

test("a run resumes its batch from the bytes its other jobs did and its own jobs' durable bytes; the row shows the latest", () => {
  const jobs = [job('a', { state: 'done', bytesDone: 100 }), job('b', { bytesDone: 70 }), job('c', { bytesDone: 30 })];
  assert.equal(
    bytesBeforeRun(jobs, new Set(['b', 'c']), new Map([['b', 64]])),
    164,
    "sampled bytes of the run's jobs do not count",
  );
  assert.equal(bytesBeforeRun(jobs.slice(1), new Set(['b', 'c']), new Map()), 0, 'a fresh run');
  const view = summariseBatch([
    job('a', { state: 'done', resumedFrom: 40 }),
    job('b', { state: 'running', resumedFrom: 164 }),
    job('c'),
  ]);
  assert.equal(view.resumedFrom, 164);
  assert.equal(summariseBatch([job('a'), job('b')]).resumedFrom, undefined);
});
