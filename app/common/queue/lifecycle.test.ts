/**
 * The queue's rules for engine facts and scheduling (app/common/queue/lifecycle.ts): starts, settled transfers,
 * lost and unreachable sites, and which queued jobs start under a jobs-per-site limit.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { JOB_STATES } from '../model/job';
import { follow, jobsToStart, type JobOutcome } from './lifecycle';
import { applyQueueEvents, getJob, type JobPatch } from './reducer';
import { job, queueOf } from './testing/jobs';

const NOW = 700;
const none = new Set<string>();

test('started: only a queued job starts, stamped and without its old error', () => {
  for (const state of JOB_STATES) {
    const queue = queueOf(job('j', { state, error: { code: 'X', message: 'old' } }));
    const change = follow(queue, { type: 'started', jobId: 'j' }, NOW);
    const expected =
      state === 'queued'
        ? [
            {
              type: 'updated',
              id: 'j',
              patch: { state: 'running', startedAt: NOW, error: undefined, resumedFrom: undefined },
            },
          ]
        : [];
    assert.deepEqual(change, { events: expected, effects: [] }, state);
  }
  assert.deepEqual(follow(queueOf(), { type: 'started', jobId: 'gone' }, NOW), { events: [], effects: [] });
});

test('started: a resumed run starts from the durable bytes and says what its batch had done; a fresh one clears that', () => {
  const queue = queueOf(job('j', { bytesDone: 90, resumedFrom: 5 }));
  const resumed = applyQueueEvents(
    queue,
    follow(queue, { type: 'started', jobId: 'j', bytesDone: 60, resumedFrom: 160 }, NOW).events,
  );
  assert.deepEqual(
    [getJob(resumed, 'j')?.bytesDone, getJob(resumed, 'j')?.resumedFrom],
    [60, 160],
    'durable bytes, not the last sample',
  );
  const fresh = applyQueueEvents(
    queue,
    follow(queue, { type: 'started', jobId: 'j', bytesDone: 0, resumedFrom: 0 }, NOW).events,
  );
  assert.deepEqual([getJob(fresh, 'j')?.bytesDone, getJob(fresh, 'j')?.resumedFrom], [0, undefined]);
});

test('settled: each outcome of a running job, and nothing for a job no longer running', () => {
  const cases: Array<[JobOutcome, JobPatch]> = [
    [
      { state: 'done', files: 3, bytes: 150 },
      { state: 'done', rate: 0, finishedAt: NOW, filesDone: 3, bytesDone: 150, bytesTotal: 150 },
    ],
    [
      { state: 'done', files: 1, bytes: 20 },
      { state: 'done', rate: 0, finishedAt: NOW, filesDone: 1, bytesDone: 40, bytesTotal: 100 },
    ],
    [
      { state: 'failed', error: { code: 'PERMISSION_DENIED', message: 'no' } },
      { state: 'failed', rate: 0, finishedAt: NOW, error: { code: 'PERMISSION_DENIED', message: 'no' } },
    ],
    [{ state: 'paused' }, { state: 'paused', rate: 0 }],
    [{ state: 'cancelled' }, { state: 'cancelled', rate: 0, finishedAt: NOW }],
  ];
  for (const [outcome, patch] of cases) {
    const queue = queueOf(job('j', { state: 'running', bytesDone: 40, rate: 9 }));
    const change = follow(queue, { type: 'settled', jobId: 'j', outcome }, NOW);
    assert.deepEqual(change, { events: [{ type: 'updated', id: 'j', patch }], effects: [] }, outcome.state);
    assert.equal(getJob(applyQueueEvents(queue, change.events), 'j')?.state, outcome.state, 'the reducer accepts it');
  }
  for (const state of JOB_STATES.filter((s) => s !== 'running')) {
    assert.deepEqual(
      follow(queueOf(job('j', { state })), { type: 'settled', jobId: 'j', outcome: { state: 'cancelled' } }, NOW),
      { events: [], effects: [] },
      state,
    );
  }
});

test("siteLost: the site's queued jobs pause, its running ones are stopped as paused, other sites are untouched", () => {
  const queue = queueOf(
    job('q', { state: 'queued' }),
    job('r', { state: 'running' }),
    job('f', { state: 'failed' }),
    job('p', { state: 'paused' }),
    job('q2', { state: 'queued', siteId: 'other' }),
    job('r2', { state: 'running', siteId: 'other' }),
  );
  assert.deepEqual(follow(queue, { type: 'siteLost', siteId: 's' }, NOW), {
    events: [{ type: 'updated', id: 'q', patch: { state: 'paused' } }],
    effects: [{ type: 'stop', jobId: 'r', as: 'paused' }],
  });
});

test("siteUnreachable: the starting job and the site's queued jobs not in flight fail with the connect error", () => {
  const error = { code: 'HOSTKEY_REJECTED', message: 'rejected' };
  const queue = queueOf(
    job('start', { state: 'running' }),
    job('q1'),
    job('busy'),
    job('p', { state: 'paused' }),
    job('r', { state: 'running' }),
    job('q2'),
    job('elsewhere', { siteId: 'other' }),
  );
  const change = follow(
    queue,
    { type: 'siteUnreachable', siteId: 's', jobId: 'start', error, inFlight: new Set(['start', 'busy', 'r']) },
    NOW,
  );
  const patch: JobPatch = { state: 'failed', rate: 0, finishedAt: NOW, error };
  assert.deepEqual(change, {
    events: ['start', 'q1', 'q2'].map((id) => ({ type: 'updated', id, patch })),
    effects: [],
  });
});

test('jobsToStart: queued jobs of the site in queue order, up to the limit counting jobs still in flight', () => {
  const queue = queueOf(
    job('a', { state: 'running' }),
    job('b'),
    job('x', { siteId: 'other' }),
    job('c', { state: 'paused' }),
    job('d'),
    job('e'),
    job('f'),
  );
  const ids = (limit: number, inFlight: ReadonlySet<string>): string[] =>
    jobsToStart(queue, 's', limit, inFlight).map((j) => j.id);
  assert.deepEqual(ids(3, new Set(['a'])), ['b', 'd'], 'a is in flight: two more');
  assert.deepEqual(ids(10, none), ['b', 'd', 'e', 'f']);
  assert.deepEqual(ids(2, new Set(['a', 'x'])), ['b'], 'a job of another site does not count');
  assert.deepEqual(
    ids(3, new Set(['a', 'd'])),
    ['b'],
    'a queued job still in flight (resumed before it was finished off) counts and is not started twice',
  );
  assert.deepEqual(ids(1, new Set(['a'])), [], 'the site is at its limit');
  assert.deepEqual(jobsToStart(queue, 'nobody', 4, none), []);
});
