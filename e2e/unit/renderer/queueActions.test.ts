import test from 'node:test';
import assert from 'node:assert/strict';
import { err } from '../../../app/common/ipc/result';
import type { Job } from '../../../app/common/model/job';
import { JOB_INTENTS } from '../../../app/common/queue/rules';
import { createFakeBridge } from '../../../renderer/bridge/fakeBridge';
import { JOB_INTENT_LABEL, sendJobIntent } from '../../../renderer/state/queueActions';

const job = { id: 'j7', name: 'big.bin' } as Job;

test('each job button invokes its own queue channel with the job id', async () => {
  const bridge = createFakeBridge();
  for (const intent of JOB_INTENTS) assert.equal(await sendJobIntent(bridge, job, intent), undefined, intent);
  assert.deepEqual(bridge.calls.map((c) => [c.channel, c.request]), JOB_INTENTS.map((intent) => [`queue.${intent}`, { jobId: 'j7' }]));
  assert.deepEqual(JOB_INTENTS.map((intent) => JOB_INTENT_LABEL[intent]), ['Pause', 'Resume', 'Retry', 'Cancel']);
});

test('a refusal from the engine comes back as its message', async () => {
  const bridge = createFakeBridge();
  bridge.handle('queue.resume', () => err('INVALID_STATE', 'Cannot resume a done job'));
  assert.equal(await sendJobIntent(bridge, job, 'resume'), 'Cannot resume a done job');
  assert.equal(await sendJobIntent(bridge, job, 'pause'), undefined);
});
