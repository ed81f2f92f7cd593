import test from 'node:test';
import assert from 'node:assert/strict';
import { canFileTransition, FILE_STATES } from '../../common/model/jobFile';
import { isSluiceError } from '../errors';
import type { PlannedFile } from './queueRows';
import { QueueStore } from './queueStore';

function memStore(t: { after: (fn: () => void) => void }): QueueStore {
  const store = QueueStore.open({ file: ':memory:' });
  t.after(() => store.close());
  return store;
}

function jobOf(store: QueueStore): string {
  return store.jobs.addBatch([{ target: { siteId: 's' }, direction: 'upload', source: '/src', dest: '/in' }])[0].id;
}

const planned = (name: string, size: number, extra: Partial<PlannedFile> = {}): PlannedFile => ({
  source: `/src/${name}`,
  target: `/in/src/${name}`,
  size,
  mtimeMs: 1_700_000_000_000,
  fingerprint: `fp-${name}`,
  tempName: `.${name}.sluice-1.part`,
  ...extra,
});

test('file states: only the documented transitions are legal', () => {
  const legal = FILE_STATES.flatMap((from) =>
    FILE_STATES.filter((to) => to !== from && canFileTransition(from, to)).map((to) => `${from}>${to}`),
  );
  assert.deepEqual(legal.sort(), [
    'failed>planned',
    'moving>failed',
    'moving>planned',
    'moving>verifying',
    'planned>failed',
    'planned>moving',
    'planned>skipped',
    'verifying>committed',
    'verifying>failed',
    'verifying>moving',
  ]);
});

test('plan stores files; planning an unchanged source again keeps its row, state, temporary name and journal', (t) => {
  const store = memStore(t);
  const job = jobOf(store);
  const first = store.files.plan(job, [
    planned('a', 100),
    planned('b', 0, { mtimeMs: undefined, fingerprint: undefined }),
  ]);
  assert.deepEqual(first.discardedTempNames, []);
  const [a, b] = first.files;
  assert.deepEqual([a.state, a.size, a.tempName, a.fingerprint], ['planned', 100, '.a.sluice-1.part', 'fp-a']);
  assert.equal(b.mtimeMs, undefined);
  store.files.setState(a.id, 'moving');
  store.journal.record(a.id, [[0, 60]]);
  const again = store.files.plan(job, [
    planned('a', 100, { tempName: '.a.sluice-2.part' }),
    planned('b', 0, { mtimeMs: undefined, fingerprint: undefined }),
  ]);
  assert.deepEqual(
    again.files.map((f) => [f.id, f.state, f.tempName]),
    [
      [a.id, 'moving', '.a.sluice-1.part'],
      [b.id, 'planned', '.b.sluice-1.part'],
    ],
  );
  assert.deepEqual(
    store.journal.missingRanges(a.id, 100),
    [[60, 100]],
    'the resume finds its partial file and its ranges',
  );
});

test('plan: a changed source starts over (new temporary name, no ranges) and the old partial file is reported', (t) => {
  const store = memStore(t);
  const job = jobOf(store);
  const [a, b, c] = store.files.plan(job, [planned('a', 100), planned('b', 100), planned('c', 100)]).files;
  store.files.setState(a.id, 'moving');
  store.journal.record(a.id, [[0, 50]]);
  store.files.setState(b.id, 'failed', { code: 'LOCAL_IO', message: 'x' });
  const res = store.files.plan(job, [
    planned('a', 100, { fingerprint: 'changed', tempName: '.a.sluice-2.part' }),
    planned('b', 120, { tempName: '.b.sluice-2.part' }),
    planned('c', 100, { mtimeMs: 1, tempName: '.c.sluice-2.part' }),
  ]);
  assert.deepEqual(
    res.discardedTempNames,
    ['.a.sluice-1.part', '.b.sluice-1.part'],
    'a planned file never had a partial file',
  );
  assert.deepEqual(
    res.files.map((f) => [f.id, f.state, f.tempName, f.error]),
    [
      [a.id, 'planned', '.a.sluice-2.part', undefined],
      [b.id, 'planned', '.b.sluice-2.part', undefined],
      [c.id, 'planned', '.c.sluice-2.part', undefined],
    ],
  );
  assert.deepEqual(store.journal.ranges(a.id), []);
});

test('plan refuses an unknown job and malformed files, atomically', (t) => {
  const store = memStore(t);
  const job = jobOf(store);
  assert.throws(
    () => store.files.plan('nope', [planned('a', 1)]),
    (e: unknown) => isSluiceError(e, 'NOT_FOUND'),
  );
  for (const bad of [
    planned('a', -1),
    planned('a', 1.5),
    planned('a', 1, { tempName: '' }),
    planned('a', 1, { target: '' }),
  ]) {
    assert.throws(
      () => store.files.plan(job, [planned('ok', 1), bad]),
      (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
    );
  }
  assert.deepEqual(store.files.list(job), [], 'nothing of a refused plan is stored');
});

test('setState: legal moves only; failed keeps the error, planned and committed clear the journal', (t) => {
  const store = memStore(t);
  const job = jobOf(store);
  const [a] = store.files.plan(job, [planned('a', 100)]).files;
  assert.throws(
    () => store.files.setState(a.id, 'committed'),
    (e: unknown) => isSluiceError(e, 'INVALID_STATE') && /planned to committed/.test(e.message),
  );
  store.files.setState(a.id, 'moving');
  store.journal.record(a.id, [[0, 30]]);
  assert.deepEqual(store.files.setState(a.id, 'failed', { code: 'CONNECTION_LOST', message: 'gone' }).error, {
    code: 'CONNECTION_LOST',
    message: 'gone',
  });
  assert.equal(store.journal.doneBytes(a.id), 30, 'a failed file keeps its ranges for the retry');
  assert.equal(store.files.setState(a.id, 'planned').error, undefined);
  assert.equal(store.journal.doneBytes(a.id), 0, 'planned starts over');
  store.files.setState(a.id, 'moving');
  store.journal.record(a.id, [[0, 100]]);
  store.files.setState(a.id, 'verifying');
  assert.equal(store.files.setState(a.id, 'committed').state, 'committed');
  assert.deepEqual(store.journal.ranges(a.id), [], 'a committed file needs no journal');
  assert.throws(
    () => store.files.setState(a.id, 'moving'),
    (e: unknown) => isSluiceError(e, 'INVALID_STATE'),
  );
  assert.throws(
    () => store.files.setState(999, 'moving'),
    (e: unknown) => isSluiceError(e, 'NOT_FOUND'),
  );
});

test('list pages by id and filters by state; recountJob rebuilds the counters from files and journal', (t) => {
  const store = memStore(t);
  const job = jobOf(store);
  const files = store.files.plan(
    job,
    Array.from({ length: 25 }, (_, i) => planned(`f${i}`, 1000)),
  ).files;
  const paged: number[] = [];
  for (
    let page = store.files.list(job, { limit: 10 });
    page.length > 0;
    page = store.files.list(job, { limit: 10, afterId: page[page.length - 1].id })
  ) {
    paged.push(...page.map((f) => f.id));
  }
  assert.deepEqual(
    paged,
    files.map((f) => f.id),
  );
  for (const f of files.slice(0, 3)) {
    store.files.setState(f.id, 'moving');
    store.files.setState(f.id, 'verifying');
    store.files.setState(f.id, 'committed');
  }
  store.files.setState(files[3].id, 'skipped');
  store.files.setState(files[4].id, 'moving');
  store.journal.record(files[4].id, [
    [0, 250],
    [900, 1000],
  ]);
  assert.deepEqual(
    store.files.list(job, { states: ['committed', 'skipped'] }).map((f) => f.id),
    files.slice(0, 4).map((f) => f.id),
  );
  const c = store.files.recountJob(job);
  assert.deepEqual(c, { filesTotal: 25, filesDone: 4, bytesTotal: 25_000, bytesDone: 4 * 1000 + 350 });
  const j = store.jobs.get(job)!;
  assert.deepEqual([j.filesTotal, j.filesDone, j.bytesTotal, j.bytesDone], [25, 4, 25_000, 4350]);
  assert.throws(
    () => store.files.recountJob('nope'),
    (e: unknown) => isSluiceError(e, 'NOT_FOUND'),
  );
  assert.throws(
    () => store.files.list(job, { states: ['bogus' as 'planned'] }),
    (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
  );
});

test('file ends: recorded per job and source, the latest wins, listed per batch in order; a planned row keeps its temporary name', (t) => {
  const store = memStore(t);
  const put = (source: string) => ({ target: { siteId: 's' }, direction: 'upload' as const, source, dest: '/in' });
  const [a, b] = store.jobs.addBatch([put('/l/a'), put('/l/dir')], 'B1');
  const [c] = store.jobs.addBatch([put('/l/c')], 'B2');
  store.files.recordEnds([
    { jobId: a.id, source: '/l/a', target: '/in/a', size: 3, state: 'failed', error: { code: 'E', message: 'nope' } },
    {
      jobId: b.id,
      source: '/l/dir/x',
      target: '/in/dir/x',
      size: 5,
      state: 'skipped',
      error: { code: 'SKIPPED', message: 'exists' },
    },
    { jobId: c.id, source: '/l/c', target: '/in/c', size: 1, state: 'committed' },
    { jobId: 'gone', source: '/l/z', target: '/in/z', size: 1, state: 'committed' },
  ]);
  store.files.recordEnds([{ jobId: a.id, source: '/l/a', target: '/in/a', size: 3, state: 'committed' }]);
  const { files, total } = store.files.ofBatch('B1', 10);
  assert.equal(total, 2);
  assert.deepEqual(
    files.map((f) => [f.jobId, f.source, f.state, f.error, f.tempName]),
    [
      [a.id, '/l/a', 'committed', undefined, ''],
      [b.id, '/l/dir/x', 'skipped', { code: 'SKIPPED', message: 'exists' }, ''],
    ],
  );
  assert.equal(store.files.ofBatch('B1', 1).files.length, 1, 'limited');
  assert.deepEqual([...store.files.skippedPerJob()], [[b.id, 1]]);
  // The engine planning the same source later replaces a recorded end's row; an empty temporary name is no partial
  // file.
  const plan = store.files.plan(c.id, [
    { source: '/l/c', target: '/in/c', size: 2, tempName: '.c.sluice-00000000.part' },
  ]);
  assert.deepEqual(plan.discardedTempNames, []);
  assert.equal(plan.files[0].state, 'planned');
  store.files.recordEnds([
    { jobId: c.id, source: '/l/c', target: '/in/c', size: 2, state: 'failed', error: { code: 'E', message: 'x' } },
  ]);
  assert.deepEqual(
    store.files.findBySource(c.id, '/l/c')?.tempName,
    '.c.sluice-00000000.part',
    'a planned row keeps its temporary name',
  );
  assert.equal(store.files.findBySource(c.id, '/l/nope'), undefined);
});

test('discardUnfinished: a cancelled job forgets its partial files (names returned) and keeps its finished ones', (t) => {
  const store = memStore(t);
  const job = jobOf(store);
  const other = jobOf(store);
  const [done, partial, waiting, failed] = store.files.plan(job, [
    planned('done', 10),
    planned('partial', 10),
    planned('waiting', 10),
    planned('failed', 10),
  ]).files;
  for (const s of ['moving', 'verifying', 'committed'] as const) store.files.setState(done.id, s);
  store.files.setState(partial.id, 'moving');
  store.journal.record(partial.id, [[0, 4]]);
  store.files.setState(failed.id, 'failed');
  store.files.plan(other, [planned('kept', 10)]);
  assert.deepEqual(store.files.countJob(job), { filesTotal: 4, filesDone: 1, bytesTotal: 40, bytesDone: 14 });
  const temps = store.files.discardUnfinished([job]);
  assert.deepEqual(temps.sort(), [partial.tempName, waiting.tempName, failed.tempName].sort());
  assert.deepEqual(
    store.files.list(job).map((f) => f.source),
    [done.source],
    'the committed file stays',
  );
  assert.deepEqual(store.journal.ranges(partial.id), [], 'its ranges went with it');
  assert.equal(store.files.list(other).length, 1, 'other jobs keep theirs');
});

test('recordCommitted: many jobs files in one call; a planned row keeps its id and loses its ranges; recountJobs, anyOf', (t) => {
  const store = memStore(t);
  const a = jobOf(store);
  const b = jobOf(store);
  assert.equal(store.files.anyOf([a, b]), false);
  const [early] = store.files.plan(a, [planned('x', 10)]).files;
  store.journal.record(early.id, [[0, 4]]);
  store.files.recordCommitted([
    { ...planned('x', 10), jobId: a },
    { ...planned('y', 20), jobId: b },
    { ...planned('z', 30), jobId: 'gone' },
  ]);
  assert.equal(store.files.anyOf(['gone', b]), true);
  const x = store.files.findBySource(a, '/src/x');
  assert.deepEqual([x?.id, x?.state, store.journal.ranges(early.id)], [early.id, 'committed', []]);
  assert.equal(store.files.findBySource(b, '/src/y')?.state, 'committed');
  store.files.recountJobs([a, b, 'gone']);
  assert.deepEqual(
    [a, b].map((id) => {
      const j = store.jobs.get(id)!;
      return [j.filesDone, j.filesTotal, j.bytesDone];
    }),
    [
      [1, 1, 10],
      [1, 1, 20],
    ],
  );
});
