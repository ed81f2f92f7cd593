/**
 * StoreJournal and the partial copies of a target that another command left (#23 item 18): a file this run starts
 * over takes them (their rows forgotten, their names returned for removal) from an interrupted get/put, never from a
 * job a live process holds nor from a job of the queue.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueueStore } from '../stores/queueStore';
import { StoreJournal, type JournalKey } from './journal';

const MiB = 1024 * 1024;
const target = { user: 'root', host: '127.0.0.1', port: 22 };
const key = (sources: string[]): JournalKey => ({ target, direction: 'download', sources, dest: '/data' });
const big = { src: '/srv/big.bin', dst: '/data/big.bin', size: 48 * MiB, mtimeMs: 1_700_000_000_000 };

function memStore(t: { after: (fn: () => void) => void }): QueueStore {
  const store = QueueStore.open({ file: ':memory:' });
  t.after(() => store.close());
  return store;
}

/** An interrupted run of `sources` that wrote 16 MiB of big.bin under its own temporary name. */
async function interrupted(store: QueueStore, sources: string[]): Promise<string> {
  const j = StoreJournal.openIn(store, key(sources));
  const plan = await j.planFile(big, '/data/.big.bin.sluice-00000000.part');
  j.recordRange(big.src, 0, 16 * MiB);
  j.close('paused');
  return plan.temp;
}

test('a file started over takes the partial copy another interrupted get left of its target', async (t) => {
  const store = memStore(t);
  const oldTemp = await interrupted(store, ['/srv/big.bin']);
  const j = StoreJournal.openIn(store, key(['/srv/big.bin', '/srv/small.txt']));
  const plan = await j.planFile(big, '/data/.big.bin.sluice-00000000.part');
  assert.deepEqual(plan.done, []);
  assert.notEqual(plan.temp, oldTemp);
  assert.deepEqual(plan.abandoned, [oldTemp]);
  j.close('done');
  const again = StoreJournal.openIn(store, key(['/srv/big.bin']));
  assert.equal(again.resuming, true, 'the old batch is still there');
  assert.deepEqual(
    (await again.planFile(big, '/data/.big.bin.sluice-00000000.part')).done,
    [],
    'its partial copy is forgotten',
  );
  again.close('done');
});

test('a partial copy held by a live run, or of a queue job, is left alone', async (t) => {
  const store = memStore(t);
  const live = StoreJournal.openIn(store, key(['/srv/big.bin']));
  await live.planFile(big, '/data/.big.bin.sluice-00000000.part');
  const other = StoreJournal.openIn(store, key(['/srv/big.bin', '/srv/x']));
  assert.deepEqual(
    (await other.planFile(big, '/data/.big.bin.sluice-00000000.part')).abandoned,
    [],
    'held by a live run',
  );
  other.close('done');
  live.close('done');

  const [queued] = store.jobs.addBatch([
    { target, direction: 'download', source: '/srv/big.bin', dest: '/data', options: { origin: 'queue' } },
  ]);
  store.files.plan(queued.id, [
    {
      source: big.src,
      target: big.dst,
      size: big.size,
      mtimeMs: big.mtimeMs,
      tempName: '/data/.big.bin.sluice-11111111.part',
    },
  ]);
  const third = StoreJournal.openIn(store, key(['/srv/big.bin', '/srv/y']));
  assert.deepEqual(
    (await third.planFile(big, '/data/.big.bin.sluice-00000000.part')).abandoned,
    [],
    'a job of the queue resumes when run',
  );
  third.close('done');

  // An interrupted run that wrote the target in place (--conflict append): its "temporary" name is the target itself.
  const inPlace = StoreJournal.openIn(store, key(['/srv/big.bin', '/srv/z']));
  await inPlace.planFile(big, big.dst);
  inPlace.close('paused');
  const fourth = StoreJournal.openIn(store, key(['/srv/big.bin', '/srv/w']));
  assert.deepEqual(
    (await fourth.planFile(big, '/data/.big.bin.sluice-00000000.part')).abandoned,
    [],
    'the target itself is never taken',
  );
  fourth.close('done');
});
