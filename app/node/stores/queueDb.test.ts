import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { isSluiceError } from '../errors';
import { openQueueDb, QUEUE_DB_FILE, QUEUE_MIGRATIONS } from './queueDb';
import { QueueStore } from './queueStore';
import { QueueChild } from './testing/childRunner';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-queuedb-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The schema as SQL text per object, comparable between two databases. */
function schemaOf(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (
      db
        .prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
        .all() as Array<{ type: string; name: string; sql: string | null }>
    ).map((r) => `${r.type} ${r.name}: ${(r.sql ?? '').replace(/\s+/g, ' ')}`);
  } finally {
    db.close();
  }
}

test('a new database lands in <SLUICE_HOME>/queue.db, in WAL mode with foreign keys, at the newest version', (t) => {
  const home = path.join(tempDir(t), 'home');
  const saved = process.env.SLUICE_HOME;
  process.env.SLUICE_HOME = home;
  t.after(() => {
    if (saved === undefined) delete process.env.SLUICE_HOME;
    else process.env.SLUICE_HOME = saved;
  });
  const q = openQueueDb();
  t.after(() => q.close());
  assert.equal(q.file, path.join(home, QUEUE_DB_FILE));
  assert.equal(q.schemaVersion, QUEUE_MIGRATIONS.length);
  assert.equal(q.db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(q.db.pragma('foreign_keys', { simple: true }), 1);
  assert.equal(q.db.pragma('synchronous', { simple: true }), 1, 'NORMAL');
  assert.equal(fs.statSync(home).mode & 0o777, 0o700);
});

test('migrations: from empty and from every older version the schema ends equal to a fresh one, rows kept', (t) => {
  const dir = tempDir(t);
  const fresh = path.join(dir, 'fresh.db');
  openQueueDb({ file: fresh }).close();
  const want = schemaOf(fresh);
  assert.ok(
    want.some((s) => s.startsWith('table jobs')),
    'the fresh schema has the jobs table',
  );
  for (let v = 0; v < QUEUE_MIGRATIONS.length; v++) {
    const file = path.join(dir, `v${v}.db`);
    const old = openQueueDb({ file, migrations: QUEUE_MIGRATIONS.slice(0, v) });
    assert.equal(old.schemaVersion, v);
    if (v >= 1) {
      old.db
        .prepare(
          `INSERT INTO jobs (id, batch_id, target, direction, source, dest, position, conflict, created_at)
        VALUES ('j', 'b', 'site:s', 'upload', '/a', '/d', 1024, 'ask', 1)`,
        )
        .run();
    }
    old.close();
    const q = openQueueDb({ file });
    assert.equal(q.schemaVersion, QUEUE_MIGRATIONS.length, `from version ${v}`);
    if (v >= 1)
      assert.equal((q.db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE id = 'j'").get() as { n: number }).n, 1);
    q.close();
    assert.deepEqual(schemaOf(file), want, `schema after migrating from version ${v}`);
  }
});

test('a database from a newer Sluice is refused (INVALID_STATE) and left as it is', (t) => {
  const file = path.join(tempDir(t), QUEUE_DB_FILE);
  openQueueDb({ file }).close();
  const raw = new Database(file);
  raw.pragma(`user_version = ${QUEUE_MIGRATIONS.length + 1}`);
  raw.close();
  assert.throws(
    () => openQueueDb({ file }),
    (e: unknown) => isSluiceError(e, 'INVALID_STATE') && /newer than this Sluice/.test(e.message),
  );
  const again = new Database(file, { readonly: true });
  assert.equal(again.pragma('user_version', { simple: true }), QUEUE_MIGRATIONS.length + 1);
  again.close();
});

test('write() is all or nothing; a batch with one bad job adds none', (t) => {
  const store = QueueStore.open({ file: path.join(tempDir(t), QUEUE_DB_FILE) });
  t.after(() => store.close());
  assert.throws(
    () =>
      store.q.write(() => {
        store.jobs.addBatch([{ target: { siteId: 's' }, direction: 'upload', source: '/a', dest: '/d' }]);
        throw new Error('boom');
      }),
    /boom/,
  );
  assert.equal(store.jobs.count(), 0, 'the nested add was rolled back with the outer transaction');
  const bad = { target: { siteId: 's' }, direction: 'sideways' as 'upload', source: '/b', dest: '/d' };
  assert.throws(
    () => store.jobs.addBatch([{ target: { siteId: 's' }, direction: 'upload', source: '/a', dest: '/d' }, bad]),
    (e: unknown) => isSluiceError(e, 'LOCAL_IO') && /CHECK constraint/.test(e.message),
  );
  assert.equal(store.jobs.count(), 0);
});

test('a writer blocked past the busy timeout gets a LOCAL_IO SluiceError naming SQLITE_BUSY', (t) => {
  const file = path.join(tempDir(t), QUEUE_DB_FILE);
  const store = QueueStore.open({ file, busyTimeoutMs: 50 });
  t.after(() => store.close());
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  try {
    assert.throws(
      () => store.jobs.addBatch([{ target: { siteId: 's' }, direction: 'upload', source: '/a', dest: '/d' }]),
      (e: unknown) => isSluiceError(e, 'LOCAL_IO') && /SQLITE_BUSY/.test(e.message),
    );
    assert.equal(store.jobs.count(), 0, 'readers are not blocked by the writer (WAL)');
  } finally {
    other.exec('ROLLBACK');
    other.close();
  }
  assert.equal(
    store.jobs.addBatch([{ target: { siteId: 's' }, direction: 'upload', source: '/a', dest: '/d' }]).length,
    1,
  );
});

test("the WAL conversion waits for another connection's write lock (SQLite runs no busy handler for it)", async (t) => {
  const file = path.join(tempDir(t), QUEUE_DB_FILE);
  const seed = new Database(file);
  seed.exec('CREATE TABLE other(x)');
  seed.close();
  // Another connection (a second process creating the file, here a thread) holds the write lock for 300 ms.
  const holder = new Worker(
    `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const { parentPort, workerData } = require('node:worker_threads');
    const db = new Database(workerData.file);
    db.exec('BEGIN IMMEDIATE');
    db.prepare('SELECT * FROM other').all();
    parentPort.postMessage('locked');
    setTimeout(() => { db.exec('COMMIT'); db.close(); parentPort.postMessage('released'); }, 300);
  `,
    { eval: true, workerData: { file } },
  );
  t.after(() => holder.terminate());
  await once(holder, 'message');
  const released = once(holder, 'message');
  const q = openQueueDb({ file, busyTimeoutMs: 10_000 });
  try {
    assert.equal(String(q.db.pragma('journal_mode', { simple: true })), 'wal');
    assert.equal(q.schemaVersion, QUEUE_MIGRATIONS.length);
  } finally {
    q.close();
  }
  await released;
});

test(
  'two processes create the database and add batches at the same time: every batch whole and contiguous',
  { timeout: 120_000 },
  async (t) => {
    const file = path.join(tempDir(t), QUEUE_DB_FILE);
    const batches = 150;
    const perBatch = 10;
    const children = ['p', 'q'].map((tag) => new QueueChild(['add', file, String(batches), String(perBatch), tag]));
    for (const c of children) {
      const end = await c.done();
      assert.equal(end.code, 0, end.stderr);
      assert.deepEqual(c.lines, ['done']);
    }
    const store = QueueStore.open({ file });
    t.after(() => store.close());
    assert.equal(store.jobs.count(), 2 * batches * perBatch);
    const order = store.jobs.list({ limit: 10_000 }).jobs;
    const runs: string[] = [];
    for (const j of order) if (runs[runs.length - 1] !== j.batchId) runs.push(j.batchId);
    assert.equal(runs.length, 2 * batches, 'each batch is one contiguous run in queue order');
    for (const j of order) {
      const [, tag, b, i] = j.source.split('/');
      assert.equal(j.batchId, `${tag}-${b}`);
      assert.ok(Number(i) < perBatch);
    }
  },
);
