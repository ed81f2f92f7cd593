import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PrefixTracker, RangeCheckpointer, type RangeCheckpoints } from './rangeCheckpoints';

test('the prefix grows only over contiguous completed pieces, in any order', () => {
  const p = new PrefixTracker(100);
  p.complete(200, 300);
  assert.equal(p.prefix, 100);
  p.complete(300, 350);
  assert.equal(p.prefix, 100);
  p.complete(100, 200);
  assert.equal(p.prefix, 350);
  p.complete(400, 500);
  p.complete(350, 400);
  assert.equal(p.prefix, 500);
});

/** A checkpointer whose fsyncs the test answers by hand; `durable` collects what it reports. */
function manual(upload: boolean, ordered: boolean) {
  const answers: Array<(err: Error | null) => void> = [];
  const durable: number[] = [];
  const o: RangeCheckpoints = {
    everyMs: 60_000,
    ordered,
    sync: (done) => answers.push(done),
    onDurable: (end) => durable.push(end),
  };
  const cp = new RangeCheckpointer(0, o, upload);
  const tick = () => (cp as unknown as { tick(): void }).tick();
  return { cp, answers, durable, tick };
}

test('a download reports what was written before its fsync started, once the fsync is done', async () => {
  const m = manual(false, false);
  m.tick();
  assert.equal(m.answers.length, 0, 'nothing written: no fsync');
  m.cp.done.complete(0, 10);
  m.tick();
  m.cp.done.complete(10, 20);
  assert.deepEqual(m.durable, [], 'nothing before the fsync is done');
  m.answers[0](null);
  assert.deepEqual(m.durable, [10], 'the bytes written after the fsync started are not counted');
  m.tick();
  m.answers[1](new Error('EIO'));
  assert.deepEqual(m.durable, [10], 'a failed fsync makes nothing durable');
  await m.cp.stop();
});

test('an upload on an ordered server counts the WRITEs sent before the fsync once all were answered', async () => {
  const m = manual(true, true);
  m.cp.sent.complete(0, 30);
  m.cp.done.complete(0, 10);
  m.tick();
  m.cp.sent.complete(30, 40);
  m.cp.done.complete(10, 30);
  m.answers[0](null);
  assert.deepEqual(m.durable, [30], 'sent before the fsync (30), answered by its reply');
  m.cp.sent.complete(40, 60);
  m.tick();
  m.cp.done.complete(30, 40);
  // The WRITE at 40 was refused: its reply came, no success; the fsync after it does not make it durable.
  m.answers[1](null);
  assert.deepEqual(m.durable, [30, 40], 'only up to the answered prefix');
  await m.cp.stop();
});

test('an upload on a server that may reorder counts only the WRITEs answered before the fsync', async () => {
  const m = manual(true, false);
  m.cp.sent.complete(0, 30);
  m.cp.done.complete(0, 10);
  m.tick();
  m.cp.done.complete(10, 30);
  m.answers[0](null);
  assert.deepEqual(m.durable, [10]);
  await m.cp.stop();
});

test('after stop nothing is reported, and stop waits for the fsyncs started', async () => {
  const m = manual(false, false);
  m.cp.done.complete(0, 10);
  m.tick();
  let stopped = false;
  const stopping = m.cp.stop().then(() => {
    stopped = true;
  });
  await Promise.resolve();
  assert.equal(stopped, false, 'the fsync is still running');
  m.answers[0](null);
  await stopping;
  assert.deepEqual(m.durable, []);
});
