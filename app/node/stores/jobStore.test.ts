import test from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { isSluiceError } from '../errors';
import type { NewJob } from './queueRows';
import { formatTarget, parseTarget } from './queueRows';
import { QueueStore } from './queueStore';
import { seededRandom } from './testing/queueChild';

function memStore(t: { after: (fn: () => void) => void }, now?: () => number): QueueStore {
  const store = QueueStore.open({ file: ':memory:', now });
  t.after(() => store.close());
  return store;
}

const put = (source: string, extra: Partial<NewJob> = {}): NewJob => ({
  target: { siteId: 'site-1' },
  direction: 'upload',
  source,
  dest: '/in',
  ...extra,
});

test('targets: site and ad-hoc user@host:port (IPv6 in brackets) round-trip; other text is refused', () => {
  for (const t of [
    { siteId: 'a:b' },
    { user: 'alice', host: 'files.example.com', port: 2222 },
    { user: 'u@corp', host: '::1', port: 22 },
  ]) {
    assert.deepEqual(parseTarget(formatTarget(t)), t);
  }
  assert.equal(formatTarget({ user: 'u', host: 'fe80::1', port: 22 }), 'u@[fe80::1]:22');
  for (const bad of ['host:22', 'u@host', 'u@host:x', '@host:22', 'u@a:b:22']) {
    assert.throws(
      () => parseTarget(bad),
      (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
      bad,
    );
  }
});

test('addBatch stores one batch in order, with defaults and options kept', (t) => {
  const store = memStore(t, () => 5000);
  const jobs = store.jobs.addBatch([
    put('/a'),
    put('/b', { conflict: 'skip', priority: 2, options: { verify: 'sha256', speedLimit: 1_000_000, future: [1] } }),
    { target: { user: 'bob', host: 'h', port: 22 }, direction: 'download', source: '/r', dest: '/tmp/x' },
  ]);
  assert.equal(jobs.length, 3);
  for (const j of jobs) assert.deepEqual(store.jobs.get(j.id), j, 'what addBatch returns is what was stored');
  assert.equal(new Set(jobs.map((j) => j.batchId)).size, 1);
  assert.deepEqual(
    jobs.map((j) => [j.state, j.conflict, j.priority, j.createdAt]),
    [
      ['queued', 'ask', 0, 5000],
      ['queued', 'skip', 2, 5000],
      ['queued', 'ask', 0, 5000],
    ],
  );
  assert.deepEqual(store.jobs.get(jobs[1].id)?.options, { verify: 'sha256', speedLimit: 1_000_000, future: [1] });
  assert.deepEqual(store.jobs.get(jobs[2].id)?.target, { user: 'bob', host: 'h', port: 22 });
  assert.deepEqual(
    store.jobs.list({ limit: 10 }).jobs.map((j) => j.source),
    ['/b', '/a', '/r'],
    'priority first, then order added',
  );
  assert.throws(
    () => store.jobs.addBatch([put('')]),
    (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
  );
  assert.equal(store.jobs.get('nope'), undefined);
});

test('setState follows canTransition, stamps times, records and clears the error', (t) => {
  let now = 1000;
  const store = memStore(t, () => now);
  const [job] = store.jobs.addBatch([put('/a')]);
  now = 2000;
  assert.equal(store.jobs.setState(job.id, 'running').startedAt, 2000);
  now = 3000;
  const failed = store.jobs.setState(job.id, 'failed', { code: 'CONNECTION_LOST', message: 'gone' });
  assert.deepEqual([failed.finishedAt, failed.error], [3000, { code: 'CONNECTION_LOST', message: 'gone' }]);
  assert.throws(
    () => store.jobs.setState(job.id, 'done'),
    (e: unknown) => isSluiceError(e, 'INVALID_STATE') && /failed to done/.test(e.message),
  );
  now = 4000;
  const retried = store.jobs.setState(job.id, 'queued');
  assert.deepEqual([retried.error, retried.finishedAt, retried.startedAt], [undefined, undefined, 2000]);
  store.jobs.setState(job.id, 'running');
  assert.equal(store.jobs.setState(job.id, 'done').state, 'done');
  assert.throws(
    () => store.jobs.setState(job.id, 'queued'),
    (e: unknown) => isSluiceError(e, 'INVALID_STATE'),
    'done is terminal',
  );
  assert.equal(store.jobs.setState(job.id, 'done').finishedAt, 4000, 'the same state is a no-op');
  assert.throws(
    () => store.jobs.setState('nope', 'paused'),
    (e: unknown) => isSluiceError(e, 'NOT_FOUND'),
  );
  assert.throws(
    () => store.jobs.setState(job.id, 'bogus' as 'done'),
    (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
  );
});

test('updateProgress sets the counters given and leaves the others', (t) => {
  const store = memStore(t);
  const [job] = store.jobs.addBatch([put('/a')]);
  store.jobs.updateProgress(job.id, { bytesTotal: 100, filesTotal: 3 });
  store.jobs.updateProgress(job.id, { bytesDone: 40 });
  const j = store.jobs.get(job.id)!;
  assert.deepEqual([j.bytesDone, j.bytesTotal, j.filesDone, j.filesTotal], [40, 100, 0, 3]);
  assert.throws(
    () => store.jobs.updateProgress('nope', { bytesDone: 1 }),
    (e: unknown) => isSluiceError(e, 'NOT_FOUND'),
  );
});

test('list: keyset pages and offset pages give the queue order; states filter; page size checked', (t) => {
  const store = memStore(t);
  const jobs = store.jobs.addBatch(
    Array.from({ length: 57 }, (_, i) => put(`/f${i}`, { priority: i % 3 === 0 ? 1 : 0 })),
  );
  store.jobs.setState(jobs[5].id, 'paused');
  const want = store.jobs.list({ limit: 100 }).jobs.map((j) => j.source);
  assert.deepEqual(want.slice(0, 3), ['/f0', '/f3', '/f6']);
  const keyset: string[] = [];
  for (let page = store.jobs.list({ limit: 10 }); ; page = store.jobs.list({ limit: 10, after: page.next })) {
    keyset.push(...page.jobs.map((j) => j.source));
    if (!page.next) break;
  }
  assert.deepEqual(keyset, want);
  const byOffset: string[] = [];
  for (let off = 0; off < 57; off += 8)
    byOffset.push(...store.jobs.list({ limit: 8, offset: off }).jobs.map((j) => j.source));
  assert.deepEqual(byOffset, want);
  assert.deepEqual(
    store.jobs.list({ limit: 10, states: ['paused'] }).jobs.map((j) => j.source),
    ['/f5'],
  );
  assert.equal(store.jobs.count(['queued']), 56);
  assert.equal(store.jobs.list({ limit: 57 }).next?.seq !== undefined, true, 'a full page offers a cursor');
  assert.equal(store.jobs.list({ limit: 58 }).next, undefined);
  for (const limit of [0, 10_001, 1.5])
    assert.throws(
      () => store.jobs.list({ limit }),
      (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
    );
});

test('reorder: a seeded series of moves (top, bottom, before, into one gap until renumbered) matches a model', (t) => {
  const seed = Number(process.env.SLUICE_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
  t.diagnostic(`seed ${seed} (SLUICE_TEST_SEED to replay)`);
  const rnd = seededRandom(seed);
  const store = memStore(t);
  const model = store.jobs.addBatch(Array.from({ length: 30 }, (_, i) => put(`/m${i}`))).map((j) => j.id);
  const order = (): string[] => store.jobs.list({ limit: 100 }).jobs.map((j) => j.id);
  const pick = (): string => model[Math.floor(rnd() * model.length)];
  // 12 moves into the same gap exhaust the 1024 step and force a renumbering.
  const anchor = model[10];
  for (let i = 0; i < 12; i++) {
    const id = model[model.length - 1 - i];
    store.jobs.moveBefore(id, anchor);
    model.splice(model.indexOf(id), 1);
    model.splice(model.indexOf(anchor), 0, id);
    assert.deepEqual(order(), model, `gap move ${i}`);
  }
  for (let i = 0; i < 200; i++) {
    const id = pick();
    const kind = Math.floor(rnd() * 3);
    const before = pick();
    if (kind === 2 && before === id) continue;
    model.splice(model.indexOf(id), 1);
    if (kind === 0) {
      store.jobs.moveToTop(id);
      model.unshift(id);
    } else if (kind === 1) {
      store.jobs.moveToBottom(id);
      model.push(id);
    } else {
      store.jobs.moveBefore(id, before);
      model.splice(model.indexOf(before), 0, id);
    }
    assert.deepEqual(order(), model, `move ${i} (${['top', 'bottom', 'before'][kind]})`);
  }
  assert.throws(
    () => store.jobs.moveToTop('nope'),
    (e: unknown) => isSluiceError(e, 'NOT_FOUND'),
  );
  assert.throws(
    () => store.jobs.moveBefore(model[0], 'nope'),
    (e: unknown) => isSluiceError(e, 'NOT_FOUND'),
  );
});

test('moveToTop goes above higher priorities too; setPriority puts a job at the end of its new priority', (t) => {
  const store = memStore(t);
  const [a, b, c] = store.jobs.addBatch([put('/a'), put('/b', { priority: 5 }), put('/c')]);
  const sources = (): string[] => store.jobs.list({ limit: 10 }).jobs.map((j) => j.source);
  assert.deepEqual(sources(), ['/b', '/a', '/c']);
  store.jobs.moveToTop(c.id);
  assert.deepEqual(sources(), ['/c', '/b', '/a']);
  assert.equal(store.jobs.get(c.id)?.priority, 5);
  store.jobs.setPriority(a.id, 5);
  assert.deepEqual(sources(), ['/c', '/b', '/a']);
  store.jobs.setPriority(b.id, 0);
  assert.deepEqual(sources(), ['/c', '/a', '/b']);
  store.jobs.moveToBottom(c.id);
  assert.deepEqual(sources(), ['/a', '/b', '/c']);
  assert.throws(
    () => store.jobs.setPriority(a.id, 0.5),
    (e: unknown) => isSluiceError(e, 'INVALID_REQUEST'),
  );
});

test('findBatch finds "the same command run again": same target, direction, destination and set of sources', (t) => {
  const store = memStore(t);
  const site = { siteId: 'site-1' };
  const key = { target: site, direction: 'upload' as const, dest: '/in', sources: ['/a', '/b'] };
  assert.equal(store.jobs.findBatch(key), undefined);
  const first = store.jobs.addBatch([put('/a'), put('/b')]);
  store.jobs.addBatch([put('/a')]);
  store.jobs.addBatch([put('/a'), put('/b'), put('/c')]);
  store.jobs.addBatch([put('/a', { dest: '/other' }), put('/b', { dest: '/other' })]);
  store.jobs.addBatch([put('/a', { target: { siteId: 'site-2' } }), put('/b', { target: { siteId: 'site-2' } })]);
  const found = store.jobs.findBatch({ ...key, sources: ['/b', '/a'] });
  assert.equal(found?.batchId, first[0].batchId);
  assert.deepEqual(
    found?.jobs.map((j) => j.source),
    ['/a', '/b'],
  );
  for (const j of first) {
    store.jobs.setState(j.id, 'running');
    store.jobs.setState(j.id, 'done');
  }
  assert.equal(store.jobs.findBatch(key), undefined, 'a finished command run again is a new run');
  assert.equal(store.jobs.findBatch(key, { includeDone: true })?.batchId, first[0].batchId);
  const second = store.jobs.addBatch([put('/b'), put('/a')]);
  assert.equal(store.jobs.findBatch(key, { includeDone: true })?.batchId, second[0].batchId, 'the newest batch wins');
  assert.equal(store.jobs.findBatch({ ...key, direction: 'download' }), undefined);
});

test('clearFinished deletes finished jobs with their files, ranges and leases, per batch if asked', (t) => {
  const store = memStore(t);
  const [a, b, c, d] = store.jobs.addBatch([put('/a'), put('/b'), put('/c'), put('/d')]);
  const [e] = store.jobs.addBatch([put('/e')]);
  const file = store.files.plan(a.id, [{ source: '/a/x', target: '/in/a/x', size: 10, tempName: '.x.part' }]).files[0];
  store.journal.record(file.id, [[0, 5]]);
  const lease = store.leases.acquire(a.id, { pid: process.pid, host: 'h', startedAt: 1 });
  assert.ok(lease.ok);
  for (const j of [a, b, e]) {
    store.jobs.setState(j.id, 'running');
    store.jobs.setState(j.id, 'done');
  }
  store.jobs.setState(c.id, 'cancelled');
  store.jobs.setState(d.id, 'paused');
  assert.equal(store.jobs.clearFinished({ batchId: e.batchId }), 1);
  assert.equal(store.jobs.clearFinished({ states: ['cancelled'] }), 1);
  assert.equal(store.jobs.clearFinished(), 2);
  assert.deepEqual(
    store.jobs.list({ limit: 10 }).jobs.map((j) => j.source),
    ['/d'],
  );
  assert.equal(store.files.get(file.id), undefined);
  assert.deepEqual(store.journal.ranges(file.id), []);
  assert.equal(store.leases.holder(a.id), undefined);
  assert.throws(
    () => store.jobs.clearFinished({ states: ['paused'] }),
    (err: unknown) => isSluiceError(err, 'INVALID_REQUEST'),
  );
});

test(
  '100,000 jobs: added in batches, listed page by page in order, with index-only ordering (times printed)',
  { timeout: 300_000 },
  (t) => {
    const store = memStore(t);
    const total = 100_000;
    let t0 = performance.now();
    for (let b = 0; b < 10; b++) {
      store.jobs.addBatch(
        Array.from({ length: total / 10 }, (_, i) => put(`/big/${b}/${i}`, { priority: i % 100 === 0 ? 1 : 0 })),
      );
    }
    t.diagnostic(`add 100,000 jobs in 10 batches: ${(performance.now() - t0).toFixed(0)} ms`);
    t0 = performance.now();
    let seen = 0;
    let prev: { priority: number; position: number } | undefined;
    for (let page = store.jobs.list({ limit: 1000 }); ; page = store.jobs.list({ limit: 1000, after: page.next })) {
      for (const j of page.jobs) {
        if (prev)
          assert.ok(
            prev.priority > j.priority || (prev.priority === j.priority && prev.position <= j.position),
            'queue order',
          );
        prev = j;
      }
      seen += page.jobs.length;
      if (!page.next) break;
    }
    assert.equal(seen, total);
    t.diagnostic(`list all 100,000 in keyset pages of 1000: ${(performance.now() - t0).toFixed(0)} ms`);
    t0 = performance.now();
    assert.equal(store.jobs.list({ limit: 1000, offset: total - 1000 }).jobs.length, 1000);
    t.diagnostic(`the last page by offset: ${(performance.now() - t0).toFixed(1)} ms`);
    t0 = performance.now();
    const claim = store.claimNext({ pid: process.pid, host: 'h', startedAt: 1 });
    t.diagnostic(`claimNext: ${(performance.now() - t0).toFixed(1)} ms; count: ${store.jobs.count(['queued'])}`);
    assert.equal(claim?.job.source, '/big/0/0');
    const plan = (sql: string): string =>
      (store.q.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join('; ');
    for (const sql of [
      'SELECT * FROM jobs ORDER BY priority DESC, position, seq LIMIT 10 OFFSET 10',
      'SELECT * FROM jobs WHERE priority = 0 AND (position, seq) > (1, 1) ORDER BY position, seq LIMIT 10',
      'SELECT * FROM jobs WHERE priority < 1 ORDER BY priority DESC, position, seq LIMIT 10',
      "SELECT * FROM jobs WHERE state = 'queued' ORDER BY priority DESC, position, seq LIMIT 1",
    ]) {
      const p = plan(sql);
      assert.doesNotMatch(p, /TEMP B-TREE|SCAN jobs$/, `${sql}: ${p}`);
    }
  },
);

test("jobs added with the caller's ids keep them; remove deletes by id with their files", (t) => {
  const store = memStore(t);
  const added = store.jobs.addBatch([put('/l/a', { id: 'mine-1' }), put('/l/b', { id: 'mine-2' })], 'B');
  assert.deepEqual(
    added.map((j) => j.id),
    ['mine-1', 'mine-2'],
  );
  assert.equal(store.jobs.get('mine-2')?.source, '/l/b');
  store.files.recordEnds([{ jobId: 'mine-1', source: '/l/a', target: '/in/a', size: 1, state: 'committed' }]);
  assert.equal(store.jobs.remove(['mine-1', 'nope']), 1);
  assert.equal(store.jobs.get('mine-1'), undefined);
  assert.equal(store.files.ofBatch('B', 10).total, 0, 'its files went with it');
});
