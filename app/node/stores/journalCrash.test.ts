/**
 * Crash safety of the range journal: a child process records a seeded plan of ranges through a RangeRecorder and
 * is SIGKILLed at a random point (a seeded flush plus 0–3 ms); the reopened database must pass integrity_check and
 * hold, for every file at once, exactly what the child had written by some flush at or after the last one it reported
 * (a transaction is all or nothing, and nothing unflushed or invented appears).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { coalesce, type ByteRange } from './byteRanges';
import { QUEUE_DB_FILE } from './queueDb';
import { QueueStore } from './queueStore';
import { QueueChild } from './testing/childRunner';
import { journalPlan, seededRandom } from './testing/queueChild';

const FILES = 8;

/** What the database holds after flush `n` (n = 0: nothing), per file. */
function snapshotAfter(plan: ReturnType<typeof journalPlan>, batch: number, n: number): ByteRange[][] {
  const upTo = Math.min(plan.length, n * batch);
  const per: ByteRange[][] = Array.from({ length: FILES }, () => []);
  for (const r of plan.slice(0, upTo)) per[r.file].push([r.start, r.end]);
  return per.map(coalesce);
}

test(
  'SIGKILL at a random flush: the journal reopens consistent, a prefix of what the child flushed',
  { timeout: 240_000 },
  async (t) => {
    const base = Number(process.env.SLUICE_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
    for (let round = 0; round < 3; round++) {
      const seed = base + round;
      const rnd = seededRandom(seed ^ 0x5eed);
      const batch = 1 + Math.floor(rnd() * 48);
      const plan = journalPlan(seed, FILES);
      const flushes = Math.ceil(plan.length / batch);
      const killAfter = 1 + Math.floor(rnd() * Math.max(1, flushes / 2));
      // Jitter (not a wait for anything): the kill lands anywhere in the flushes that follow, mid-transaction too.
      const jitterMs = Math.floor(rnd() * 4);
      t.diagnostic(
        `round ${round}: seed ${seed} (SLUICE_TEST_SEED=${base} replays), ${plan.length} ranges, batch ${batch}, kill ${jitterMs} ms after flush ${killAfter} of ${flushes}`,
      );

      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-crash-'));
      t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
      const file = path.join(dir, QUEUE_DB_FILE);
      const setup = QueueStore.open({ file });
      const job = setup.jobs.addBatch([
        { target: { siteId: 's' }, direction: 'upload', source: '/src', dest: '/in' },
      ])[0].id;
      const ids = setup.files
        .plan(
          job,
          Array.from({ length: FILES }, (_, i) => ({
            source: `/src/${i}`,
            target: `/in/${i}`,
            size: 1 << 30,
            tempName: `.${i}.part`,
          })),
        )
        .files.map((f) => f.id);
      setup.close();

      const child = new QueueChild(['journal', file, String(seed), ids.join(','), String(batch)]);
      await child.waitForLine((l) => l === `flushed ${killAfter}` || l === 'done');
      await new Promise((resolve) => setTimeout(resolve, jitterMs));
      const end = await child.kill('SIGKILL');
      const reported = child.lines.filter((l) => l.startsWith('flushed ')).length;
      t.diagnostic(
        `round ${round}: killed (${end.signal ?? `exit ${end.code}`}) after it reported ${reported} flushes`,
      );

      const store = QueueStore.open({ file });
      try {
        assert.equal(store.q.db.pragma('integrity_check', { simple: true }), 'ok');
        const got = ids.map((id) => store.journal.ranges(id));
        let match = -1;
        for (let n = reported; n <= flushes && match < 0; n++)
          if (JSON.stringify(snapshotAfter(plan, batch, n)) === JSON.stringify(got)) match = n;
        assert.ok(
          match >= 0,
          `the journal is the state after no flush >= ${reported}: ${JSON.stringify(got).slice(0, 500)}`,
        );
        t.diagnostic(`round ${round}: the database holds exactly flush ${match}`);
      } finally {
        store.close();
      }
    }
  },
);
