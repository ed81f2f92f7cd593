/**
 * An expanded batch's lines (renderer/state/batchFiles.ts) and the queue filter over batches (state/appState.ts):
 * each job's reported files in order, or the job itself while none has ended; skipped shows as skipped, failed with
 * its reason; names relative to the dropped folder.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../app/common/model/job';
import { batchViews, summariseBatch } from '../../app/common/queue/batches';
import { applyQueueEvents, emptyQueue } from '../../app/common/queue/reducer';
import { filterBatches } from './appState';
import { fileLines, unlisted } from './batchFiles';

const job = (id: string, over: Partial<Job> = {}): Job => ({
  id,
  batchId: 'b',
  siteId: 's',
  direction: 'upload',
  source: `/l/${id}`,
  dest: '/r',
  name: id,
  state: 'queued',
  bytesDone: 0,
  bytesTotal: 0,
  filesDone: 0,
  filesTotal: 0,
  rate: 0,
  createdAt: 1,
  ...over,
});

test('lines: reported files per job (reason for skipped and failed), the job itself until one of its files ends', () => {
  const view = summariseBatch([
    job('album', { state: 'running' }),
    job('a.txt', { state: 'done', filesDone: 1, filesSkipped: 1 }),
    job('later'),
    job('p', { state: 'paused' }),
  ]);
  const fetched = {
    total: 3,
    files: [
      {
        jobId: 'album',
        source: '/l/album/sub/two.jpg',
        target: '/r/album/sub/two.jpg',
        size: 7,
        state: 'committed' as const,
      },
      {
        jobId: 'a.txt',
        source: '/l/a.txt',
        target: '/r/a.txt',
        size: 3,
        state: 'skipped' as const,
        error: { code: 'SKIPPED', message: 'the target exists' },
      },
      {
        jobId: 'album',
        source: '/l/album/one.jpg',
        target: '/r/album/one.jpg',
        size: 5,
        state: 'failed' as const,
        error: { code: 'E', message: 'Permission denied — OPEN /r/album/one.jpg' },
      },
    ],
  };
  assert.deepEqual(
    fileLines(view, fetched).map((l) => [l.name, l.state, l.note]),
    [
      ['album/sub/two.jpg', 'done', undefined],
      ['album/one.jpg', 'failed', 'Permission denied — OPEN /r/album/one.jpg'],
      ['a.txt', 'skipped', 'the target exists'],
      ['later', 'waiting', undefined],
      ['p', 'paused', undefined],
    ],
  );
  assert.equal(unlisted(fetched), 0);
  assert.equal(unlisted({ files: fetched.files, total: 10 }), 7);
  assert.deepEqual(
    fileLines(view, undefined).map((l) => l.state),
    ['moving', 'skipped', 'waiting', 'paused'],
    'before the files arrive',
  );
});

test('the filter tabs show batches by the state each shows', () => {
  const q = applyQueueEvents(emptyQueue, [
    {
      type: 'added',
      jobs: [
        job('a', { batchId: 'A', state: 'done' }),
        job('b', { batchId: 'A', state: 'failed' }),
        job('c', { batchId: 'C', state: 'running' }),
        job('d', { batchId: 'D', state: 'done' }),
      ],
    },
  ]);
  const views = batchViews(q);
  const ids = (f: Parameters<typeof filterBatches>[1]) => filterBatches(views, f).map((v) => v.batchId);
  assert.deepEqual(ids('all'), ['A', 'C', 'D']);
  assert.deepEqual(ids('failed'), ['A']);
  assert.deepEqual(ids('active'), ['C']);
  assert.deepEqual(ids('done'), ['D']);
});
