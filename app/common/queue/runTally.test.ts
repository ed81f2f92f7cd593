/**
 * A run's books (app/common/queue/runTally.ts) and failure texts (files.ts): files go to the job whose source they are
 * or lie under, a file job settles with its one file, progress splits per job (the rate to one job only, so sums stay
 * right), outcomes at the end; failures read reason first, with the user's path and no temporary name.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { failureSummary, failureText, fileLine } from './files';
import { batchesToStart, follow } from './lifecycle';
import { getJob, applyQueueEvents } from './reducer';
import { allSkipped } from './batches';
import { PathOwners } from './pathOwners';
import { RunTally, type RunSample } from './runTally';
import { job, queueOf } from './testing/jobs';

const sample = (over: Partial<RunSample> = {}): RunSample => ({
  bytesDone: 0,
  bytesTotal: 0,
  filesDone: 0,
  filesTotal: 0,
  rate: 0,
  files: [],
  ...over,
});

test('files go to the deepest source that is them or a folder above them; targets likewise', () => {
  const t = new RunTally([
    { jobId: 'dir', source: '/l/photos/', target: '/r/photos' },
    { jobId: 'f', source: '/l/photos-2.txt', target: '/r/photos-2.txt' },
    { jobId: 'win', source: 'C:\\data' },
  ]);
  assert.equal(t.jobOf('/l/photos/a/b.jpg'), 'dir');
  assert.equal(t.jobOf('/l/photos-2.txt'), 'f', 'a common prefix is not a folder above');
  assert.equal(t.jobOf('C:\\data\\x.bin'), 'win');
  assert.equal(t.jobOf('/elsewhere'), 'dir', 'unknown paths go to the first job');
  assert.equal(t.jobOfTarget('/r/photos/a/b.jpg'), 'dir');
  assert.equal(t.jobOfTarget('/r/photos-2.txt'), 'f');
});

test('path owners: the deepest owner wins, whatever the order; `/` and a drive own what lies under them', () => {
  const owners = new PathOwners([
    ['/', 'root'],
    ['/a/b/', 'deep'],
    ['/a', 'a'],
    ['/a', 'second a'],
    ['D:\\', 'drive'],
  ]);
  assert.equal(owners.ownerOf('/a/b/c/d.txt'), 'deep');
  assert.equal(owners.ownerOf('/a/bc'), 'a', 'of equal paths the first counts');
  assert.equal(owners.ownerOf('/x'), 'root');
  assert.equal(owners.ownerOf('D:\\data\\x.bin'), 'drive');
  assert.equal(owners.ownerOf('relative/path'), 'root', 'nothing above it: the first owner');
  assert.equal(owners.exactly('/a/b'), 'deep');
  assert.equal(owners.exactly('/a/b/c'), undefined);
  assert.throws(() => new PathOwners([]));
});

test("a single job's outcome counts its own files: a skipped file stays skipped, one an earlier run committed is done", () => {
  // The engine's report counts the earlier run's commit as skipped (it sent nothing for it) and this run's files only.
  const end = { report: { files: 1, skipped: 2, bytes: 10, failed: [] } };
  const t = new RunTally([{ jobId: 'd', source: '/l/d' }]);
  t.fileEnded({ path: '/l/d/new', target: '/r/d/new', size: 10, state: 'done' });
  t.fileEnded({ path: '/l/d/kept', target: '/r/d/kept', size: 5, state: 'skipped', reason: 'the target exists' });
  t.fileEnded({
    path: '/l/d/old',
    target: '/r/d/old',
    size: 7,
    state: 'skipped',
    reason: 'already copied by an earlier run of this job',
    earlier: true,
  });
  assert.deepEqual(
    t.progress(sample({ bytesDone: 10, bytesTotal: 22, filesDone: 1, filesTotal: 3 })),
    [{ jobId: 'd', patch: { bytesDone: 17, bytesTotal: 22, filesDone: 3, filesTotal: 3, rate: 0 } }],
    "the earlier file's bytes count as done",
  );
  assert.deepEqual(t.finalOutcome('d', end), { state: 'done', files: 3, bytes: 17, skipped: 1 });
  const all = new RunTally([{ jobId: 'd', source: '/l/d' }]);
  all.fileEnded({ path: '/l/d/a', target: '/r/d/a', size: 5, state: 'skipped', reason: 'the target exists' });
  all.fileEnded({ path: '/l/d/b', target: '/r/d/b', size: 5, state: 'skipped', reason: 'the target exists' });
  const outcome = all.finalOutcome('d', { report: { files: 0, skipped: 2, bytes: 0, failed: [] } });
  assert.deepEqual(outcome, { state: 'done', files: 2, bytes: 0, skipped: 2 });
  assert.ok(
    allSkipped({ state: 'done', filesSkipped: outcome.state === 'done' ? (outcome.skipped ?? 0) : 0, filesTotal: 2 }),
    'the row shows skipped',
  );
  const file = new RunTally([{ jobId: 'f', source: '/l/f' }]);
  assert.deepEqual(
    file.fileEnded({ path: '/l/f', target: '/r/f', size: 4, state: 'skipped', earlier: true }),
    { jobId: 'f', outcome: { state: 'done', files: 1, bytes: 4, skipped: 0 } },
    'a file job an earlier run committed is done',
  );
});

test('a file job settles with its file (done, skipped or failed); a folder job waits for the run', () => {
  const t = new RunTally([
    { jobId: 'a', source: '/l/a' },
    { jobId: 's', source: '/l/s' },
    { jobId: 'x', source: '/l/x' },
    { jobId: 'd', source: '/l/d' },
  ]);
  assert.deepEqual(t.fileEnded({ path: '/l/a', target: '/r/a', size: 10, state: 'done' }), {
    jobId: 'a',
    outcome: { state: 'done', files: 1, bytes: 10, skipped: 0 },
  });
  assert.deepEqual(t.fileEnded({ path: '/l/s', target: '/r/s', size: 10, state: 'skipped', reason: 'exists' }), {
    jobId: 's',
    outcome: { state: 'done', files: 1, bytes: 0, skipped: 1 },
  });
  const failed = t.fileEnded({
    path: '/l/x',
    target: '/r/x',
    size: 10,
    state: 'failed',
    error: { code: 'PERMISSION_DENIED', message: 'OPEN /r/x (temporary .x.sluice-1234abcd.part): permission denied' },
  });
  assert.deepEqual(failed, {
    jobId: 'x',
    outcome: { state: 'failed', error: { code: 'PERMISSION_DENIED', message: 'Permission denied — OPEN /r/x' } },
  });
  assert.deepEqual(t.fileEnded({ path: '/l/d/1', target: '/r/d/1', size: 4, state: 'done' }), { jobId: 'd' });
  assert.deepEqual(t.unsettled(), ['d']);
  assert.deepEqual(
    t.finalOutcome('d', { report: { files: 9, skipped: 0, bytes: 9, failed: [] } }),
    { state: 'done', files: 1, bytes: 4, skipped: 0 },
    "its own files, not the run's",
  );
  assert.deepEqual(t.unsettled(), []);
});

test("progress: one job takes the run's counters; several split them by the files in flight and one takes the rate", () => {
  const one = new RunTally([{ jobId: 'a', source: '/l/a' }]);
  assert.deepEqual(one.progress(sample({ bytesDone: 5, bytesTotal: 9, filesDone: 1, filesTotal: 3, rate: 4 })), [
    { jobId: 'a', patch: { bytesDone: 5, bytesTotal: 9, filesDone: 1, filesTotal: 3, rate: 4 } },
  ]);
  const t = new RunTally([
    { jobId: 'a', source: '/l/a' },
    { jobId: 'd', source: '/l/d' },
  ]);
  t.fileEnded({ path: '/l/d/1', target: '/r/d/1', size: 4, state: 'done' });
  const patches = t.progress(
    sample({
      rate: 8,
      files: [
        { path: '/l/a', bytes: 2, size: 10 },
        { path: '/l/d/2', bytes: 1, size: 3 },
      ],
    }),
  );
  assert.deepEqual(patches, [
    { jobId: 'a', patch: { bytesDone: 2, bytesTotal: 10, filesDone: 0, filesTotal: 1, rate: 8 } },
    { jobId: 'd', patch: { bytesDone: 5, bytesTotal: 7, filesDone: 1, filesTotal: 2, rate: 0 } },
  ]);
});

test("outcomes at the end: a failed transfer fails its open jobs; a report's failures fail the job they belong to", () => {
  const t = new RunTally([
    { jobId: 'a', source: '/l/a' },
    { jobId: 'd', source: '/l/d' },
  ]);
  assert.deepEqual(t.finalOutcome('a', { failure: { code: 'CONNECTION_LOST', message: 'gone' } }), {
    state: 'failed',
    error: { code: 'CONNECTION_LOST', message: 'gone' },
  });
  t.fileEnded({
    path: '/l/d/1',
    target: '/r/d/1',
    size: 4,
    state: 'failed',
    error: { code: 'NO_SPACE', message: 'WRITE /r/d/1 at offset 0: no space' },
  });
  t.fileEnded({
    path: '/l/d/2',
    target: '/r/d/2',
    size: 4,
    state: 'failed',
    error: { code: 'NO_SPACE', message: 'x' },
  });
  assert.deepEqual(t.finalOutcome('d', { report: { files: 0, skipped: 0, bytes: 0, failed: [] } }), {
    state: 'failed',
    error: { code: 'NO_SPACE', message: 'No space — WRITE /r/d/1 at offset 0 (and 1 more)' },
  });
  const single = new RunTally([{ jobId: 'a', source: '/l/a' }]);
  single.fileEnded({
    path: '/l/a/x',
    target: '/r/a/x',
    size: 4,
    state: 'failed',
    error: { code: 'NO_SPACE', message: 'x' },
  });
  assert.equal(
    single.finalOutcome('a', { report: { files: 3, skipped: 0, bytes: 30, failed: [] } }).state,
    'failed',
    "a single job's own failures count",
  );
});

test('failure texts: reason first, the path the engine named, never a temporary name; other messages kept', () => {
  assert.equal(
    failureText('/r/a: no such file or folder on the server'),
    'No such file or folder on the server — /r/a',
  );
  assert.equal(failureText('Cannot write C:\\l\\x: disk full (ENOSPC)'), 'Disk full (ENOSPC) — Cannot write C:\\l\\x');
  const nested =
    'folder /r/x does not exist on the server (OPEN /r/x/a (temporary .a.sluice-0000aaaa.part): no such file)';
  assert.equal(failureText(nested), 'folder /r/x does not exist on the server (OPEN /r/x/a: no such file)');
  assert.equal(failureText('Cancelled', '/l/a'), 'Cancelled — /l/a', "a message naming no path gets the user's");
  assert.deepEqual(failureSummary([{ path: '/l/a', code: 'E', message: 'Local file /l/a: gone' }]), {
    code: 'E',
    message: 'Gone — Local file /l/a',
  });
  assert.deepEqual(
    ['planned', 'moving', 'verifying', 'committed', 'skipped', 'failed'].map((s) => fileLine(s as never)),
    ['waiting', 'moving', 'moving', 'done', 'skipped', 'failed'],
  );
});

test('runs: the queued jobs of a batch start together, one run per batch at a time, up to the limit of runs per site', () => {
  const q = queueOf(
    job('a1', { batchId: 'A' }),
    job('b1', { batchId: 'B', state: 'running' }),
    job('a2', { batchId: 'A' }),
    job('b2', { batchId: 'B' }),
    job('c1', { batchId: 'C' }),
    job('x', { batchId: 'X', siteId: 'other' }),
    job('d1', { batchId: 'D' }),
  );
  const runs = (limit: number, inFlight: string[]): string[][] =>
    batchesToStart(q, 's', limit, new Set(inFlight)).map((r) => r.map((j) => j.id));
  assert.deepEqual(runs(4, ['b1']), [['a1', 'a2'], ['c1'], ['d1']], 'B has a run in flight: b2 waits for it');
  assert.deepEqual(runs(2, ['b1']), [['a1', 'a2']]);
  assert.deepEqual(runs(1, ['b1']), []);
  assert.deepEqual(runs(9, ['b1', 'x']), [['a1', 'a2'], ['c1'], ['d1']], "another site's run does not count");
  const queued = follow(
    queueOf(job('r', { state: 'running', rate: 5 })),
    { type: 'settled', jobId: 'r', outcome: { state: 'queued' } },
    1,
  );
  assert.equal(
    getJob(applyQueueEvents(queueOf(job('r', { state: 'running' })), queued.events), 'r')?.state,
    'queued',
    "a stopped run's job goes back in line",
  );
});
