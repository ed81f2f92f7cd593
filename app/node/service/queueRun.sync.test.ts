/**
 * The app's queue runs a sync batch (sync/enqueue.ts) through sync/runBatch.ts (service/queueRun.ts BatchRun): each
 * file lands in its own folder below DEST (not all in the first job's folder, as a plain batch transfer would put
 * them), with its time; the deletions run once the copies are settled `done` (here by the test, as JobQueue settles
 * them from the file events), and not when a copy is not.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openEngine, type Engine } from '../engine/engine';
import { StoreJournal } from '../engine/journal';
import { currentOwner } from '../stores/lease';
import { QueueStore } from '../stores/queueStore';
import { enqueueSyncPlan } from '../sync/enqueue';
import { listLocalTree } from '../sync/localListing';
import { planSync } from '../sync/plan';
import { compileFilters } from '../sync/filters';
import type { Job } from '../../common/model/job';
import { makeTempDir, removeDir, startSshd, treeOf, trustingOptions, type SshdServer } from '../test/helpers';
import { BatchRun } from './queueRun';

let server: SshdServer;
let local: string;
let engine: Engine;
before(async () => {
  server = await startSshd();
  local = await makeTempDir('sluice-queuerun-sync-');
  engine = await openEngine(trustingOptions(server, local, { connections: 1, channels: 2 }));
});
after(async () => {
  await engine?.close();
  await server?.stop();
  if (local) await removeDir(local);
});

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
  fs.utimesSync(path.join(root, rel), 1_700_000_000, 1_700_000_000);
}

async function batchRun(name: string, settle: (jobId: string) => boolean) {
  const src = path.join(local, `${name}-src`);
  const dest = path.join(server.root, `${name}-dest`);
  write(src, 'a/b/deep.txt', 'deep');
  write(src, 'top.txt', 'top');
  write(src, 'a/mid.txt', 'mid');
  write(dest, 'stale.txt', 'stale');
  const limits = { filter: compileFilters([]) };
  const plan = planSync(await listLocalTree(src, limits), await listLocalTree(dest, limits), { delete: true });
  const store = QueueStore.open({ file: path.join(local, `${name}.db`) });
  const target = { siteId: 'site-1' };
  const b = enqueueSyncPlan(store, { target, direction: 'upload', srcRoot: src, destRoot: dest, plan });
  const { claims } = store.claimJobs(
    b.jobs.map((j) => j.id),
    currentOwner(),
  );
  const jobs = b.jobs.map((q): Job => ({
    ...q,
    siteId: 'site-1',
    name: path.basename(q.source),
    rate: 0,
    state: 'running',
  }));
  const run = new BatchRun(b.batchId, 'site-1', jobs, StoreJournal.ofClaims(store, claims), store);
  const settled: string[] = [];
  const end = await run.transfer(
    engine,
    () => Promise.resolve('overwrite'),
    undefined,
    (e) => {
      if (e.type !== 'file' || e.state !== 'done') return;
      const job = b.jobs.find((j) => j.source === e.path)!;
      if (!settle(job.id)) return;
      store.releaseJob(claims.find((c) => c.job.id === job.id)!.lease, 'done');
      settled.push(e.path);
    },
  );
  return { src, dest, end, settled, store };
}

test('a sync batch in the app queue: each file in its folder with its time, then the deletions', async () => {
  const { src, dest, end, settled, store } = await batchRun('all', () => true);
  try {
    assert.ok('report' in end, JSON.stringify(end));
    assert.equal(settled.length, 3);
    assert.deepEqual(await treeOf(dest), await treeOf(src));
    assert.equal(fs.statSync(path.join(dest, 'a/b/deep.txt')).mtimeMs, 1_700_000_000_000);
  } finally {
    store.close();
  }
});

test('a copy not settled done: the steps job fails, nothing is deleted', async () => {
  let first = true;
  const { dest, end, store } = await batchRun('one-left', () => {
    const settle = !first;
    first = false;
    return settle;
  });
  try {
    assert.deepEqual(end, { failure: { code: 'INVALID_STATE', message: 'nothing deleted: 1 copy not done' } });
    assert.equal(fs.readFileSync(path.join(dest, 'stale.txt'), 'utf8'), 'stale');
  } finally {
    store.close();
  }
});
