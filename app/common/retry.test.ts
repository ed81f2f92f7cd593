/**
 * The retry policy (app/common/retry.ts): which codes are retried, the waits (decorrelated jitter between the base and
 * three times the previous wait, capped), and the bounds (tries in all, the sum of the waits).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES } from './errors';
import { DEFAULT_RETRY_POLICY, RetrySchedule, isTransient, nextDelayMs, type RetryDecision } from './retry';

/** A random source that returns `values` in turn (then the last one again). */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)];
}

/** The waits of every retry `schedule` grants for one code, until it stops; and why it stopped. */
function drain(
  schedule: RetrySchedule,
  code = 'CONNECTION_LOST',
): { delays: number[]; attempts: number[]; end: RetryDecision } {
  const delays: number[] = [];
  const attempts: number[] = [];
  for (;;) {
    const d = schedule.next(code);
    if (!d.retry) return { delays, attempts, end: d };
    delays.push(d.delayMs);
    attempts.push(d.attempt);
  }
}

test('transient: lost, reset, refused or stalled connections and timeouts; every other code is permanent', () => {
  const transient = ERROR_CODES.filter(isTransient).sort();
  // A refused connection stays transient: a server being restarted refuses for a while (#29 gave it its own code).
  assert.deepEqual(transient, ['CONNECTION_LOST', 'CONNECTION_REFUSED', 'CONNECTION_STALLED', 'TIMEOUT']);
  for (const code of [
    'HOST_NOT_FOUND',
    'AUTH_FAILED',
    'HOSTKEY_CHANGED',
    'HOSTKEY_UNKNOWN',
    'PERMISSION_DENIED',
    'NO_SUCH_FILE',
    'DISK_FULL',
    'REMOTE_FAILURE',
    'USAGE',
    'ABORTED',
  ]) {
    assert.equal(isTransient(code), false, code);
  }
});

test('each wait lies between the base and three times the previous one (the base for the first), capped', () => {
  const p = { baseDelayMs: 1000, maxDelayMs: 10_000 };
  assert.equal(
    nextDelayMs(undefined, p, () => 0),
    1000,
  );
  assert.equal(
    nextDelayMs(undefined, p, () => 0.5),
    2000,
  );
  assert.equal(
    nextDelayMs(2000, p, () => 0.5),
    3500,
  );
  assert.equal(
    nextDelayMs(2000, p, () => 0.999999),
    6000,
  );
  assert.equal(
    nextDelayMs(8000, p, () => 0.999999),
    10_000,
    'the cap',
  );
  for (let i = 0; i < 200; i++) {
    const prev = 1000 + i * 37;
    const d = nextDelayMs(prev, p, Math.random);
    assert.ok(d >= 1000 && d <= Math.min(10_000, 3 * prev), `${d} ms after ${prev} ms`);
  }
});

test('the default grants 4 retries (5 tries), attempts numbered 2..5, and never waits more than 2 minutes in all', () => {
  assert.deepEqual(drain(new RetrySchedule(DEFAULT_RETRY_POLICY, () => 0)), {
    delays: [2000, 2000, 2000, 2000],
    attempts: [2, 3, 4, 5],
    end: { retry: false, why: 'tries' },
  });
  // The longest waits the jitter can draw: 6, 18 and 54 s, then the 60 s cap cut to the 42 s the 2 minutes leave.
  assert.deepEqual(
    drain(new RetrySchedule(DEFAULT_RETRY_POLICY, () => 0.9999999)).delays,
    [6000, 18_000, 54_000, 42_000],
  );
  for (let i = 0; i < 100; i++) {
    const { delays } = drain(new RetrySchedule(DEFAULT_RETRY_POLICY));
    assert.equal(delays.length, 4);
    assert.ok(delays.reduce((a, b) => a + b, 0) <= 120_000, `waits ${delays.join(', ')}`);
  }
});

test('no time left for a wait: no more tries, whatever the count allows', () => {
  const s = new RetrySchedule(
    { tries: 10, baseDelayMs: 1000, maxDelayMs: 5000, totalDelayMs: 2500 },
    sequence(0, 0, 0),
  );
  assert.deepEqual(drain(s), { delays: [1000, 1000, 500], attempts: [2, 3, 4], end: { retry: false, why: 'time' } });
  assert.equal(s.attempts, 4);
});

test('a permanent code ends the run at once, even with tries left; one try allowed means no retry', () => {
  const s = new RetrySchedule(DEFAULT_RETRY_POLICY, sequence(0.5));
  assert.deepEqual(s.next('PERMISSION_DENIED'), { retry: false, why: 'permanent' });
  assert.deepEqual(s.next('ABORTED'), { retry: false, why: 'permanent' });
  assert.equal(s.attempts, 1);
  assert.equal(s.next('TIMEOUT').retry, true);
  assert.deepEqual(new RetrySchedule({ ...DEFAULT_RETRY_POLICY, tries: 1 }).next('CONNECTION_LOST'), {
    retry: false,
    why: 'tries',
  });
  assert.throws(() => new RetrySchedule({ ...DEFAULT_RETRY_POLICY, tries: 0 }), RangeError);
});
