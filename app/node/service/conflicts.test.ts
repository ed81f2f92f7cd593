/**
 * The queue's conflict prompts (conflicts.ts): one dialog at a time per batch, a "for all" answer for the rest of the
 * batch's run, and nothing kept for a batch once its run ended.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { EventName } from '../../common/ipc/contract';
import { ConflictPrompts } from './conflicts';
import type { ServiceHub } from './hub';

const files = { incoming: { size: 1, mtimeMs: 1 }, existing: { size: 2, mtimeMs: 2 } };

test('a "for all" answer holds for the rest of the run; once the run ended the batch is forgotten and asked again', async () => {
  const prompts: string[] = [];
  const hub = { emit: (name: EventName, p: { promptId?: string }) => { if (name === 'conflict.prompt') prompts.push(p.promptId!); } } as unknown as ServiceHub;
  const c = new ConflictPrompts(hub);
  const signal = new AbortController().signal;
  const q = (target: string) => ({ batchId: 'B', jobId: 'j', direction: 'upload' as const, target, files });
  const first = c.ask(q('/r/a'), signal);
  const second = c.ask(q('/r/b'), signal);
  await new Promise(setImmediate);
  assert.equal(prompts.length, 1, 'one dialog at a time');
  c.answer(prompts[0], 'overwrite', true);
  assert.deepEqual(await Promise.all([first, second]), ['overwrite', 'overwrite']);
  assert.equal(prompts.length, 1, 'the second file took the answer for all');
  assert.equal(c.batchesKept(), 1);

  c.endBatch('B');
  assert.equal(c.batchesKept(), 0, 'nothing kept for a batch whose run ended');
  const next = c.ask(q('/r/c'), signal);
  await new Promise(setImmediate);
  assert.equal(prompts.length, 2, 'the next run asks again');
  c.endBatch('B');
  assert.equal(await next, 'skip', 'a prompt open when the run ends is closed with skip');
});
