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
  const hub = {
    emit: (name: EventName, p: { promptId?: string }) => {
      if (name === 'conflict.prompt') prompts.push(p.promptId!);
    },
  } as unknown as ServiceHub;
  const c = new ConflictPrompts(hub);
  const signal = new AbortController().signal;
  const q = (target: string) => ({ batchId: 'B', jobId: 'j', direction: 'upload' as const, target, files });
  /** Waits for the `n`th dialog (the first of a batch comes after GATHER_MS). */
  const shown = async (n: number) => {
    while (prompts.length < n) await new Promise((r) => setTimeout(r, 10));
  };
  const first = c.ask(q('/r/a'), signal);
  const second = c.ask(q('/r/b'), signal);
  await shown(1);
  assert.equal(new Set(prompts).size, 1, "one dialog at a time (sent again as the batch's waiting count changes)");
  c.answer(prompts[0], 'overwrite', true);
  assert.deepEqual(await Promise.all([first, second]), ['overwrite', 'overwrite']);
  assert.equal(new Set(prompts).size, 1, 'the second file took the answer for all');
  assert.equal(c.batchesKept(), 1);

  c.endBatch('B');
  assert.equal(c.batchesKept(), 0, 'nothing kept for a batch whose run ended');
  const before = prompts.length;
  const next = c.ask(q('/r/c'), signal);
  await shown(before + 1);
  assert.equal(new Set(prompts).size, 2, 'the next run asks again');
  c.endBatch('B');
  assert.equal(await next, 'skip', 'a prompt open when the run ends is closed with skip');
});

test("questions are asked in the batch's order, not the order they came in, each saying how many more wait", async () => {
  const shown: Array<{ promptId: string; target: string; waiting?: number }> = [];
  const hub = {
    emit: (name: EventName, p: { promptId: string; target: string; waiting?: number }) => {
      if (name === 'conflict.prompt') shown.push(p);
    },
  } as unknown as ServiceHub;
  const c = new ConflictPrompts(hub);
  const signal = new AbortController().signal;
  const q = (target: string, order: number) => ({
    batchId: 'B',
    jobId: `j${order}`,
    order,
    direction: 'upload' as const,
    target,
    files,
  });
  const next = async (n: number) => {
    while (shown.length < n) await new Promise((r) => setTimeout(r, 10));
    return shown[n - 1];
  };
  // The workers race: f-002 asks first, then f-000; f-001 only once the first dialog is up.
  const answers = [c.ask(q('/r/f-002', 2), signal), c.ask(q('/r/f-000', 0), signal)];
  assert.deepEqual(await next(1), { ...shown[0], target: '/r/f-000', waiting: 1 });
  answers.push(c.ask(q('/r/f-001', 1), signal));
  assert.deepEqual(
    [shown[1].promptId, shown[1].target, shown[1].waiting],
    [shown[0].promptId, '/r/f-000', 2],
    'the open dialog now says 2 more',
  );
  c.answer(shown[0].promptId, 'skip', false);
  assert.deepEqual([(await next(3)).target, shown[2].waiting], ['/r/f-001', 1]);
  c.answer(shown[2].promptId, 'overwrite', false);
  assert.deepEqual([(await next(4)).target, shown[3].waiting], ['/r/f-002', 0]);
  c.answer(shown[3].promptId, 'rename', false);
  assert.deepEqual(await Promise.all(answers), ['rename', 'skip', 'overwrite']);
});
