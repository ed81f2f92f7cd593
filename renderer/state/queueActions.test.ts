import test from 'node:test';
import assert from 'node:assert/strict';
import { err } from '../../app/common/ipc/result';
import type { Job } from '../../app/common/model/job';
import { JOB_INTENTS } from '../../app/common/queue/rules';
import { createFakeBridge } from './testing/fakeBridge';
import {
  BULK_INTENT_LABEL,
  JOB_INTENT_LABEL,
  moveBatchToTop,
  sendBatchIntent,
  sendBulkIntent,
  sendJobIntent,
} from './queueActions';

const job = { id: 'j7', name: 'big.bin' } as Job;

test('each job button invokes its own queue channel with the job id', async () => {
  const bridge = createFakeBridge();
  for (const intent of JOB_INTENTS) assert.equal(await sendJobIntent(bridge, job, intent), undefined, intent);
  assert.deepEqual(
    bridge.calls.map((c) => [c.channel, c.request]),
    JOB_INTENTS.map((intent) => [`queue.${intent}`, { jobId: 'j7' }]),
  );
  assert.deepEqual(
    JOB_INTENTS.map((intent) => JOB_INTENT_LABEL[intent]),
    ['Pause', 'Resume', 'Retry', 'Cancel'],
  );
});

test('a refusal from the engine comes back as its message', async () => {
  const bridge = createFakeBridge();
  bridge.handle('queue.resume', () => err('INVALID_STATE', 'Cannot resume a done job'));
  assert.equal(await sendJobIntent(bridge, job, 'resume'), 'Cannot resume a done job');
  assert.equal(await sendJobIntent(bridge, job, 'pause'), undefined);
});

test("a row's buttons act on its batch; the bulk buttons on every site or one; Top moves the batch to the top", async () => {
  const bridge = createFakeBridge();
  for (const intent of JOB_INTENTS) assert.equal(await sendBatchIntent(bridge, 'b3', intent), undefined);
  assert.equal(await sendBulkIntent(bridge, 'pauseAll'), undefined);
  assert.equal(await sendBulkIntent(bridge, 'resumeAll', 's1'), undefined);
  assert.equal(await sendBulkIntent(bridge, 'retryFailed'), undefined);
  assert.equal(await moveBatchToTop(bridge, 'b3'), undefined);
  assert.deepEqual(
    bridge.calls.map((c) => [c.channel, c.request]),
    [
      ...JOB_INTENTS.map((intent) => [`queue.${intent}`, { batchId: 'b3' }]),
      ['queue.pauseAll', {}],
      ['queue.resumeAll', { siteId: 's1' }],
      ['queue.retryFailed', {}],
      ['queue.move', { batchId: 'b3', to: 'top' }],
    ],
  );
  bridge.handle('queue.retryFailed', () => err('INVALID_STATE', 'No failed jobs to retry'));
  assert.equal(await sendBulkIntent(bridge, 'retryFailed'), 'No failed jobs to retry');
  assert.deepEqual(Object.values(BULK_INTENT_LABEL), ['Pause all', 'Resume all', 'Retry failed']);
});
