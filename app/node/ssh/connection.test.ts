import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Worker } from 'node:worker_threads';
import { WORKER_RESOURCE_LIMITS, WorkerConnection, prewarmConnectionWorker } from './connection';

const hooks = { verifyHostKey: async () => ({ accept: false }) };

/** The limits V8 was given for a connection's worker thread (Worker.resourceLimits, read in this thread). */
function youngGenerationOf(conn: WorkerConnection): number | undefined {
  return (conn as unknown as { worker: Worker }).worker.resourceLimits?.maxYoungGenerationSizeMb;
}

test("a connection worker's young generation is sized (issue #28), prewarmed or not", async () => {
  assert.equal(WORKER_RESOURCE_LIMITS.maxYoungGenerationSizeMb, 12);
  const fresh = new WorkerConnection(0, 1, hooks);
  prewarmConnectionWorker();
  const prewarmed = new WorkerConnection(1, 1, hooks);
  try {
    assert.equal(youngGenerationOf(fresh), 12);
    assert.equal(youngGenerationOf(prewarmed), 12);
  } finally {
    await fresh.close();
    await prewarmed.close();
  }
});
