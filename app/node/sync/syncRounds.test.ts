/**
 * The round trips a sync saves, with fakes that record what is asked when: the remote root's STAT, REALPATH and
 * listing leave together (the walk does not wait for the STAT), and the deletions of a run remove each path as its
 * listing gave it (SSH_FXP_REMOVE or RMDIR at once, no STAT first).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { compileFilters } from './filters';
import { listRemoteTree, type RemoteLister } from './remoteListing';
import { enqueueSyncPlan } from './enqueue';
import { planSync } from './plan';
import { runSyncSteps, type SyncEngine } from './runBatch';
import type { Listing } from './listing';
import type { RemoteEntry } from '../ssh/workerProtocol';
import { QueueStore } from '../stores/queueStore';

const file = (name: string): RemoteEntry => ({ name, type: 'file', size: 1, mtimeMs: 1_000 }) as RemoteEntry;

test('the root is listed while its STAT and REALPATH are on their way; a missing root drops that listing', async () => {
  const asked: string[] = [];
  let answerStat: (v: null | { type: 'dir' }) => void = () => undefined;
  const lister: RemoteLister = {
    stat: (p) => {
      asked.push(`stat ${p}`);
      return new Promise((resolve) => (answerStat = resolve as typeof answerStat));
    },
    realpath: async (p) => {
      asked.push(`realpath ${p}`);
      return p;
    },
    listEach: async (p, onNames) => {
      asked.push(`list ${p}`);
      await onNames(p === '/r' ? [file('a'), file('b')] : []);
      return 2;
    },
  };
  const listing = listRemoteTree(lister, '/r', { filter: compileFilters([]) });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(asked.sort(), ['list /r', 'realpath /r', 'stat /r'], 'all three asked before the STAT answered');
  answerStat({ type: 'dir' });
  assert.deepEqual([...(await listing).entries.keys()].sort(), ['a', 'b']);
  const missing = listRemoteTree(lister, '/r', { filter: compileFilters([]) });
  await new Promise((resolve) => setImmediate(resolve));
  answerStat(null);
  const l = await missing;
  assert.deepEqual([l.rootExists, l.entries.size, l.errors], [false, 0, []]);
});

test('deletions: each path removed as listed (REMOVE or RMDIR), no STAT before; a path gone meanwhile counts', async (t) => {
  const store = QueueStore.open({ file: ':memory:' });
  t.after(() => store.close());
  const listed = (entries: Array<[string, 'file' | 'dir']>): Listing => ({
    entries: new Map(entries.map(([p, kind]) => [p, { kind, size: 0, mtimeMs: 0 }])),
    errors: [],
    skipped: [],
    complete: true,
    rootExists: true,
    timePrecisionMs: 1000,
  });
  const plan = planSync(
    listed([]),
    listed([
      ['old', 'dir'],
      ['old/x.txt', 'file'],
      ['gone.txt', 'file'],
    ]),
    { delete: true },
  );
  const batch = enqueueSyncPlan(store, {
    target: { host: 'h', port: 22, user: 'u' },
    direction: 'upload',
    srcRoot: '/l',
    destRoot: '/r',
    plan,
    destRootExists: true,
  });
  const asked: string[] = [];
  const engine = {
    removeListed: async (p: string, kind: 'file' | 'dir') => {
      asked.push(`${kind} ${p}`);
      if (p === '/r/gone.txt') throw Object.assign(new Error('gone'), { code: 'NO_SUCH_FILE' });
    },
    remove: async (p: string) => void asked.push(`remove ${p}`),
    stat: async (p: string) => {
      asked.push(`stat ${p}`);
      return null;
    },
  } as unknown as SyncEngine;
  const end = await runSyncSteps(engine, store, batch.steps);
  assert.equal(end.state, 'done');
  assert.equal(asked[0], 'file /r/old/x.txt', "a folder's contents first");
  assert.deepEqual(
    asked.slice(1).sort(),
    ['dir /r/old', 'file /r/gone.txt', 'stat /r/gone.txt'],
    'a STAT only to tell a failed removal from a path already gone',
  );
  assert.equal((batch.steps.options.sync as { foldersDone?: boolean }).foldersDone, true, 'no folder to make');
});
