/**
 * A job's last progress sample carries its rate even when the job ends before the first sampling interval (250 ms):
 * the app's throughput graph draws from these samples, and a fast upload on loopback drew nothing at all.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { EngineEvent } from './types';
import { runTransfer } from './run';
import { makeTempDir, openTrusting, removeDir, startSshd, writeRandomFile, type SshdServer } from '../test/helpers';

type Progress = Extract<EngineEvent, { type: 'progress' }>;

let local: string;
let server: SshdServer;
before(async () => {
  local = await makeTempDir('sluice-progress-rate-');
  server = await startSshd();
});
after(async () => {
  await server?.stop();
  if (local) await removeDir(local);
});

test(
  'a job shorter than one sampling interval still reports its rate in its last sample',
  { timeout: 60_000 },
  async () => {
    const events: EngineEvent[] = [];
    const pool = await openTrusting(server, local, { connections: 1, channels: 1, onEvent: (e) => events.push(e) });
    try {
      const src = path.join(local, 'small.bin');
      writeRandomFile(src, 256 * 1024);
      const report = await runTransfer(
        pool,
        { id: 'short', direction: 'put', sources: [src], dest: path.join(server.root, 'small.bin'), recursive: false },
        { onEvent: (e) => events.push(e) },
      );
      assert.deepEqual(report.failed, []);
      const samples = events.filter((e): e is Progress => e.type === 'progress' && e.jobId === 'short');
      assert.equal(samples.at(-1)!.bytesDone, 256 * 1024);
      // The first sample that saw bytes move has a rate: the job's start is its other point (before, the rate needed
      // two
      // samples, so a job ending within 250 ms reported 0 bytes/s in its only, last, sample).
      const first = samples.find((e) => e.bytesDone > 0)!;
      assert.ok(first.rate > 0, `rate ${first.rate} at ${first.bytesDone} bytes, over ${samples.length} sample(s)`);
    } finally {
      await pool.close();
    }
  },
);
