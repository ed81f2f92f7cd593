/**
 * The queue's user-intent rules (app/common/queue/rules.ts), table-driven over every job state × every job intent:
 * the events and effects of an accepted intent, the refusal of the others, and that the renderer's predicates
 * (`allowedIntents`, `canJob`, `can`) agree with `decide` everywhere.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { JOB_STATES, type JobState } from '../model/job';
import { applyQueueEvents, getJob, type JobPatch } from './reducer';
import {
  JOB_INTENTS,
  allowedIntents,
  can,
  canJob,
  decide,
  jobName,
  jobRefusal,
  type EnqueueIntent,
  type JobIntentType,
  type QueueEffect,
} from './rules';
import { job, queueOf } from './testing/jobs';

const NOW = 500;

interface Accepted {
  /** The patch of the one `updated` event, or null when the intent emits no event. */
  patch: JobPatch | null;
  effects: QueueEffect[];
  /** The state the job has once the events are applied (running jobs keep theirs until their transfer settles). */
  after: JobState;
}

const stopAs = (as: 'paused' | 'cancelled'): QueueEffect[] => [{ type: 'stop', jobId: 'j', as }];
const scheduleSite: QueueEffect[] = [{ type: 'schedule', siteId: 's' }];
const cancelled: Accepted = {
  patch: { state: 'cancelled', rate: 0, finishedAt: NOW },
  effects: [],
  after: 'cancelled',
};
const retried: Accepted = {
  patch: { state: 'queued', error: undefined, rate: 0, finishedAt: undefined },
  effects: scheduleSite,
  after: 'queued',
};

/** Every state × every job intent: what is accepted and what it does; anything missing is refused. */
const TABLE: Record<JobState, Partial<Record<JobIntentType, Accepted>>> = {
  queued: {
    pause: { patch: { state: 'paused' }, effects: [], after: 'paused' },
    cancel: cancelled,
  },
  running: {
    pause: { patch: null, effects: stopAs('paused'), after: 'running' },
    cancel: { patch: null, effects: stopAs('cancelled'), after: 'running' },
  },
  paused: {
    resume: { patch: { state: 'queued' }, effects: scheduleSite, after: 'queued' },
    cancel: cancelled,
  },
  failed: { retry: retried, cancel: cancelled },
  cancelled: { retry: retried },
  done: {},
};

for (const state of JOB_STATES) {
  for (const intent of JOB_INTENTS) {
    const expected = TABLE[state][intent];
    test(`${intent} a ${state} job: ${expected ? 'accepted' : 'refused'}`, () => {
      const j = job('j', {
        state,
        rate: state === 'running' ? 10 : 0,
        error: state === 'failed' ? { code: 'X', message: 'x' } : undefined,
      });
      const queue = queueOf(j, job('other', { state }));
      const decision = decide(queue, { type: intent, jobId: 'j' }, NOW);
      assert.equal(canJob(j, intent), expected !== undefined, 'canJob agrees with decide');
      assert.equal(can(queue, { type: intent, jobId: 'j' }), expected !== undefined, 'can agrees with decide');
      if (!expected) {
        assert.deepEqual(decision, {
          ok: false,
          refusal: { code: 'INVALID_STATE', message: `Cannot ${intent} a ${state} job` },
        });
        assert.deepEqual(jobRefusal(j, intent), { code: 'INVALID_STATE', message: `Cannot ${intent} a ${state} job` });
        return;
      }
      assert.ok(decision.ok);
      assert.deepEqual(decision.events, expected.patch ? [{ type: 'updated', id: 'j', patch: expected.patch }] : []);
      assert.deepEqual(decision.effects, expected.effects);
      const next = applyQueueEvents(queue, decision.events);
      assert.equal(getJob(next, 'j')?.state, expected.after, 'the reducer accepts the transition');
      assert.equal(getJob(next, 'other'), getJob(queue, 'other'), 'other jobs are untouched');
    });
  }
}

test('allowedIntents lists the accepted intents of each state in button order', () => {
  const buttons = Object.fromEntries(JOB_STATES.map((state) => [state, allowedIntents(job('j', { state }))]));
  assert.deepEqual(buttons, {
    queued: ['pause', 'cancel'],
    running: ['pause', 'cancel'],
    paused: ['resume', 'cancel'],
    done: [],
    failed: ['retry', 'cancel'],
    cancelled: ['retry'],
  });
});

test('an intent for an unknown job is refused NOT_FOUND', () => {
  const queue = queueOf(job('a'));
  for (const intent of JOB_INTENTS) {
    assert.deepEqual(decide(queue, { type: intent, jobId: 'nope' }), {
      ok: false,
      refusal: { code: 'NOT_FOUND', message: 'No job nope' },
    });
    assert.equal(can(queue, { type: intent, jobId: 'nope' }), false);
  }
});

test('clearFinished removes done and cancelled jobs only, and is refused when there are none', () => {
  const states: JobState[] = ['queued', 'running', 'paused', 'done', 'failed', 'cancelled', 'done'];
  const queue = queueOf(...states.map((state, i) => job(`j${i}`, { state })));
  assert.ok(can(queue, { type: 'clearFinished' }));
  const decision = decide(queue, { type: 'clearFinished' });
  assert.deepEqual(decision, { ok: true, events: [{ type: 'removed', ids: ['j3', 'j5', 'j6'] }], effects: [] });
  const cleared = applyQueueEvents(queue, decision.ok ? decision.events : []);
  assert.deepEqual(cleared.order, ['j0', 'j1', 'j2', 'j4']);
  assert.equal(can(cleared, { type: 'clearFinished' }), false);
  assert.deepEqual(decide(cleared, { type: 'clearFinished' }), {
    ok: false,
    refusal: { code: 'INVALID_STATE', message: 'No finished jobs to clear' },
  });
});

const enqueue = (over: Partial<EnqueueIntent> = {}): EnqueueIntent => ({
  type: 'enqueue',
  siteId: 's2',
  direction: 'download',
  sources: ['/r/a.txt', '/r/dir/'],
  dest: '/l',
  batchId: 'b9',
  jobIds: ['n1', 'n2'],
  ...over,
});

test('enqueue adds one queued job per source in one batch and schedules the site', () => {
  const queue = queueOf(job('a'));
  const decision = decide(queue, enqueue(), NOW);
  assert.ok(decision.ok);
  assert.deepEqual(decision.effects, [{ type: 'schedule', siteId: 's2' }]);
  const next = applyQueueEvents(queue, decision.events);
  assert.deepEqual(next.order, ['a', 'n1', 'n2']);
  assert.deepEqual(getJob(next, 'n2'), {
    id: 'n2',
    batchId: 'b9',
    siteId: 's2',
    direction: 'download',
    source: '/r/dir/',
    dest: '/l',
    name: 'dir',
    state: 'queued',
    bytesDone: 0,
    bytesTotal: 0,
    filesDone: 0,
    filesTotal: 0,
    rate: 0,
    createdAt: NOW,
  });
  assert.equal(getJob(next, 'n1')?.name, 'a.txt');
});

test('enqueue is refused without sources, without one distinct id per source, or with an id already queued', () => {
  const queue = queueOf(job('a'));
  const code = (intent: EnqueueIntent): string => {
    const d = decide(queue, intent);
    return d.ok ? 'ok' : d.refusal.code;
  };
  assert.equal(code(enqueue({ sources: [], jobIds: [] })), 'INVALID_REQUEST');
  assert.equal(code(enqueue({ jobIds: ['n1'] })), 'INVALID_REQUEST');
  assert.equal(code(enqueue({ jobIds: ['n1', 'n1'] })), 'INVALID_REQUEST');
  assert.equal(code(enqueue({ jobIds: ['n1', 'a'] })), 'INVALID_STATE');
  assert.equal(can(queue, enqueue()), true);
});

test('job names: the last path segment, with / or \\, trailing separators ignored; a bare root keeps its text', () => {
  assert.equal(jobName('/srv/data/file.bin'), 'file.bin');
  assert.equal(jobName('/srv/data/'), 'data');
  assert.equal(jobName('C:\\Users\\me\\photos\\'), 'photos');
  assert.equal(jobName('plain'), 'plain');
  assert.equal(jobName('/'), '/');
});
