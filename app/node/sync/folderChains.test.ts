/**
 * makeFolderChains (runBatch.ts): each folder is made as soon as its parent is, and a copy waits only for its own
 * folder's chain, so the first copies start while deeper folders are still being made (as `put -r` does); a folder
 * that cannot be made fails the copies below it, not the others. syncTransferRequest hands each file its folder's wait.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SluiceError } from '../errors';
import type { QueuedJob } from '../stores/queueRows';
import { makeFolderChains, syncTransferRequest, type SyncEngine } from './runBatch';

/** An engine whose MKDIRs wait until the test answers them, in any order. */
function heldEngine(): { engine: SyncEngine; sent: string[]; answer(p: string, e?: Error): void } {
  const waiting = new Map<string, { ok: () => void; fail: (e: Error) => void }>();
  const sent: string[] = [];
  const no = (): never => {
    throw new Error('not expected');
  };
  const engine: SyncEngine = {
    mkdir: (p) =>
      new Promise((ok, fail) => {
        sent.push(p);
        waiting.set(p, { ok: () => ok('created'), fail });
      }),
    rename: no,
    remove: no,
    stat: no,
    transfer: no,
  };
  return {
    engine,
    sent,
    answer: (p, e) => {
      const w = waiting.get(p)!;
      if (e) w.fail(e);
      else w.ok();
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));
const settled = async (p: Promise<void>): Promise<string> => {
  let state = 'pending';
  p.then(
    () => (state = 'made'),
    () => (state = 'failed'),
  );
  await tick();
  return state;
};

test('a copy waits for its own folder chain only; a refused folder fails what is below it', async () => {
  const { engine, sent, answer } = heldEngine();
  const chains = makeFolderChains(engine, 'upload', '/r', ['a', 'a/b', 'a/b/c', 'x'], {});
  assert.deepEqual(sent, ['/r'], 'the root first');
  answer('/r');
  await tick();
  assert.equal(await settled(chains.ready('')), 'made', "the root's files go at once");
  assert.deepEqual(sent.sort(), ['/r', '/r/a', '/r/x'], 'both top folders at once');
  answer('/r/a');
  await tick();
  assert.equal(await settled(chains.ready('a')), 'made', "'a' files go while 'a/b' is made");
  assert.equal(await settled(chains.ready('a/b/c')), 'pending');
  answer('/r/a/b', new SluiceError('PERMISSION_DENIED', 'mkdir /r/a/b: Permission denied'));
  await tick();
  assert.equal(await settled(chains.ready('a/b/c')), 'failed', 'below a refused folder');
  assert.ok(!sent.includes('/r/a/b/c'), 'nothing made below it');
  answer('/r/x');
  assert.equal(await settled(chains.ready('x')), 'made', 'the other chain is not held up');
  await assert.rejects(chains.all, /Permission denied/);
});

test('syncTransferRequest: each file waits for the folder it goes into', async () => {
  const { engine, answer } = heldEngine();
  const chains = makeFolderChains(engine, 'upload', '/r', ['a'], { rootExists: true });
  const job = (rel: string, dest: string): QueuedJob =>
    ({
      source: `/l/${rel}`,
      dest,
      direction: 'upload',
      options: { sync: { role: 'copy', rel, size: 1, mtimeMs: 0, replaces: false } },
    }) as unknown as QueuedJob;
  const req = syncTransferRequest('t', [job('top', '/r'), job('a/f', '/r/a')], undefined, chains);
  const [top, inA] = req.files!;
  assert.equal(await settled(top.ready!), 'made', 'DEST root listed: nothing to wait for');
  assert.equal(await settled(inA.ready!), 'pending');
  answer('/r/a');
  assert.equal(await settled(inA.ready!), 'made');
  assert.equal(inA.dst, '/r/a/f');
});
