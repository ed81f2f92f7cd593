/** BatchFinishWatch (app/common/queue/batchFinish.ts): which finished batches earn a desktop notification. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BatchFinishWatch } from './batchFinish';
import { job } from './testing/jobs';

const MIN = 60_000;

test('a batch is reported once, when its last job finishes, if it ran for a minute or more', () => {
  const w = new BatchFinishWatch();
  assert.deepEqual(w.push([{ type: 'added', jobs: [job('a'), job('b')] }]), []);
  assert.deepEqual(w.push([{ type: 'updated', id: 'a', patch: { state: 'running', startedAt: 1_000 } }]), []);
  assert.deepEqual(
    w.push([{ type: 'updated', id: 'a', patch: { state: 'done', finishedAt: 30_000 } }]),
    [],
    'b is still queued',
  );
  w.push([{ type: 'updated', id: 'b', patch: { state: 'running', startedAt: 30_000 } }]);
  const [finished, ...more] = w.push([
    {
      type: 'updated',
      id: 'b',
      patch: { state: 'failed', finishedAt: 1_000 + MIN, error: { code: 'X', message: 'x' } },
    },
  ]);
  assert.equal(more.length, 0);
  assert.equal(finished.view.batchId, 'b');
  assert.equal(finished.durationMs, MIN);
  assert.deepEqual([finished.done, finished.failed, finished.cancelled], [1, 1, 0]);
  assert.deepEqual(w.push([{ type: 'updated', id: 'b', patch: { rate: 0 } }]), [], 'told once');
});

test('a short batch, and one already finished in the snapshot, are not reported; a retried batch is reported again', () => {
  const w = new BatchFinishWatch();
  w.push([
    {
      type: 'snapshot',
      jobs: [
        job('old', {
          batchId: 'o',
          state: 'failed',
          startedAt: 0,
          finishedAt: 2 * MIN,
          error: { code: 'X', message: 'x' },
        }),
      ],
    },
  ]);
  assert.deepEqual(w.push([{ type: 'updated', id: 'old', patch: { rate: 0 } }]), []);
  w.push([{ type: 'added', jobs: [job('s', { batchId: 'short' })] }]);
  assert.deepEqual(
    w.push([{ type: 'updated', id: 's', patch: { state: 'done', startedAt: 0, finishedAt: MIN - 1 } }]),
    [],
  );
  w.push([{ type: 'updated', id: 'old', patch: { state: 'queued', finishedAt: undefined } }]);
  w.push([{ type: 'updated', id: 'old', patch: { state: 'running', startedAt: 5 * MIN } }]);
  const again = w.push([{ type: 'updated', id: 'old', patch: { state: 'done', finishedAt: 7 * MIN } }]);
  assert.equal(again.length, 1);
  assert.equal(again[0].durationMs, 2 * MIN);
});
