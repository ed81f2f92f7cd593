/** main/notifications.ts with a mocked electron: a finished batch of a minute or more shows one notification. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../app/common/model/job';
import { installElectronMock } from './test/mockElectron';

const electron = installElectronMock();
const { notifyFinishedBatches } = require('./notifications') as typeof import('./notifications');

const job = (id: string, over: Partial<Job> = {}): Job => ({
  id,
  batchId: 'b',
  siteId: 's',
  direction: 'upload',
  source: `/l/${id}`,
  dest: '/r',
  name: id,
  state: 'running',
  bytesDone: 0,
  bytesTotal: 1048576,
  filesDone: 0,
  filesTotal: 1,
  rate: 0,
  createdAt: 1,
  startedAt: 0,
  ...over,
});

test('a batch that finishes after 2 minutes is announced once, with its files, bytes, time and failures', () => {
  let listener: ((event: string, payload: unknown) => void) | undefined;
  const service = {
    jobs: () => [job('a'), job('b')],
    subscribe: (l: typeof listener) => {
      listener = l;
      return () => {
        listener = undefined;
      };
    },
  };
  const shown = (electron.Notification as unknown as { shown: Array<{ title: string; body: string }> }).shown;
  shown.length = 0;
  const stop = notifyFinishedBatches(service as never);
  listener!('queue.delta', {
    events: [
      { type: 'updated', id: 'a', patch: { state: 'done', bytesDone: 1048576, filesDone: 1, finishedAt: 60_000 } },
    ],
  });
  assert.equal(shown.length, 0, 'b still runs');
  listener!('queue.delta', {
    events: [
      { type: 'updated', id: 'b', patch: { state: 'failed', finishedAt: 120_000, error: { code: 'X', message: 'x' } } },
    ],
  });
  listener!('queue.delta', { events: [{ type: 'updated', id: 'b', patch: { rate: 0 } }] });
  assert.deepEqual(shown, [
    {
      title: 'Sluice: transfer finished with failures',
      body: 'a and 1 more: 1 file(s), 1.0 MiB uploaded in 2:00, 1 failed',
    },
  ]);
  stop();
  assert.equal(listener, undefined);
});
