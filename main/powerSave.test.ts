/** main/powerSave.ts with a mocked electron: one power-save blocker exactly while a job runs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../app/common/model/job';
import { installElectronMock } from './test/mockElectron';

const electron = installElectronMock();
const { keepAwakeWhileTransferring } = require('./powerSave') as typeof import('./powerSave');

const job = (id: string, state: Job['state']): Job => ({
  id,
  batchId: 'b',
  siteId: 's',
  direction: 'download',
  source: `/r/${id}`,
  dest: '/l',
  name: id,
  state,
  bytesDone: 0,
  bytesTotal: 1,
  filesDone: 0,
  filesTotal: 1,
  rate: 0,
  createdAt: 1,
  startedAt: 0,
});

test('the blocker (prevent-app-suspension) is held from the first running job until none runs, then released', () => {
  let listener: ((event: string, payload: unknown) => void) | undefined;
  const service = {
    jobs: () => [job('a', 'queued'), job('b', 'done')],
    subscribe: (l: typeof listener) => {
      listener = l;
      return () => {
        listener = undefined;
      };
    },
  };
  const active = electron.powerSaveBlocker.active;
  active.clear();
  const stop = keepAwakeWhileTransferring(service as never);
  assert.equal(active.size, 0, 'nothing runs yet');
  listener!('queue.delta', { events: [{ type: 'updated', id: 'a', patch: { state: 'running' } }] });
  assert.deepEqual([...active.values()], ['prevent-app-suspension']);
  listener!('queue.delta', { events: [{ type: 'added', jobs: [job('c', 'running')] }] });
  assert.equal(active.size, 1, 'one blocker however many jobs run');
  listener!('queue.delta', { events: [{ type: 'updated', id: 'a', patch: { state: 'done' } }] });
  assert.equal(active.size, 1, 'c still runs');
  listener!('queue.delta', { events: [{ type: 'removed', ids: ['c'] }] });
  assert.equal(active.size, 0, 'released when the last running job goes');
  listener!('queue.snapshot', { jobs: [job('d', 'running')] });
  assert.equal(active.size, 1);
  stop();
  assert.equal(active.size, 0, 'unsubscribing releases it');
  assert.equal(listener, undefined);
});
