/**
 * The app's queue resumes where it stopped (issue #14), over the real engine against a private sshd: a folder with a
 * 48 MiB file, throttled by the engine's speed limit so that the pause lands midway, and a small file committed early,
 * is paused once the journal holds a durable range. The partial file and its ranges are kept; for 5 s nothing moves
 * (no SSH_FXP_READ/WRITE bytes on the pool's channels, no progress of the batch, the partial file untouched); resumed,
 * the job says what it starts from, does not ask about its own small file, sends less than the big file, and both
 * arrive with the source's SHA-256. The same for an app that quits mid-upload and starts again; a cancel after the
 * pause removes the partial file.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine, type EngineFactory, type PoolEngine } from '../engine/engine';
import { COUNTER_BYTES, COUNTER_OUTSTANDING, COUNTERS_PER_CHANNEL } from '../sftp/pipeline';
import { QueueStore } from '../stores/queueStore';
import type { EngineEvent, TransferEvent, TransferReport } from '../transfer/types';
import type { EventPayloads } from '../../common/ipc/contract';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import { waitUntil } from '../../../e2e/fixtures/tmp';
import { connectAccepting, reopenSshd, setupSshd, waitJobs } from './sshdService';

const MiB = 1024 * 1024;
const SIZE = 48 * MiB;
/** The site's speed limit until the resume: 48 MiB take 8 s, the journal's first checkpoint comes after ~5 s. */
const RATE = 6 * MiB;
/** How long the paused job is watched for traffic. */
const QUIET_MS = 5000;
const skip = fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`;

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/**
 * Engines opened through the service, throttled to `rate`: their transfers (settled or not), reports and events seen.
 */
function throttledEngines(rate = RATE): {
  factory: EngineFactory;
  engines: PoolEngine[];
  transfers: Array<Promise<unknown>>;
  reports: TransferReport[];
  events: EngineEvent[];
} {
  const engines: PoolEngine[] = [];
  const transfers: Array<Promise<unknown>> = [];
  const reports: TransferReport[] = [];
  const events: EngineEvent[] = [];
  const factory: EngineFactory = async (o) => {
    const e = (await openEngine({
      ...o,
      segmentSize: 4 * MiB,
      onEvent: (ev) => {
        events.push(ev);
        o.onEvent?.(ev);
      },
    })) as PoolEngine;
    e.setRateLimit(rate);
    const transfer = e.transfer.bind(e);
    e.transfer = (req, call) => {
      const onEvent = (ev: TransferEvent): void => {
        events.push(ev);
        call?.onEvent?.(ev);
      };
      const running = transfer(req, { ...call, onEvent }).then((report) => {
        reports.push(report);
        return report;
      });
      transfers.push(running);
      return running;
    };
    engines.push(e);
    return e;
  };
  return { factory, engines, transfers, reports, events };
}

/** SSH_FXP_READ/WRITE payload bytes counted on every channel of the engines' pools, and requests outstanding. */
function wire(engines: readonly PoolEngine[]): { bytes: number; outstanding: number } {
  let bytes = 0;
  let outstanding = 0;
  for (const c of engines.flatMap((e) => e.connectionPool.connections)) {
    for (let ch = 0; ch < c.channels; ch++) {
      bytes += c.counters[ch * COUNTERS_PER_CHANNEL + COUNTER_BYTES];
      outstanding += c.counters[ch * COUNTERS_PER_CHANNEL + COUNTER_OUTSTANDING];
    }
  }
  return { bytes, outstanding };
}

for (const direction of ['upload', 'download'] as const) {
  test(
    `real sshd: a paused ${direction} keeps its partial file and journal, moves nothing while paused, and resumes with only what is missing`,
    { skip, timeout: 120_000 },
    async (t) => {
      const { factory, engines, transfers, reports, events } = throttledEngines();
      const c = await setupSshd(t, { engine: factory, site: { connections: 1, channels: 2 } });
      await connectAccepting(c);
      const local = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-resume-'));
      t.after(async () => fs.rmSync(local, { recursive: true, force: true }));
      // One folder: the big file, and a small one committed long before the pause.
      const [from, dest] = direction === 'upload' ? [local, c.server.root] : [c.server.root, local];
      const src = path.join(from, 'tree');
      const there = path.join(dest, 'tree');
      fs.mkdirSync(src);
      fs.writeFileSync(path.join(src, 'big.bin'), randomBytes(SIZE));
      fs.writeFileSync(path.join(src, 'small.txt'), 'committed before the pause\n');
      const small = fs.statSync(path.join(src, 'small.txt')).size;
      const temps = (): string[] =>
        fs.existsSync(there) ? fs.readdirSync(there).filter((n) => n.startsWith('.big.bin.sluice-')) : [];
      const prompts: string[] = [];
      c.service.subscribe((name) => {
        if (name === 'conflict.prompt') prompts.push(name);
      });

      const queued = await c.service.invoke('queue.enqueue', { siteId: c.siteId, direction, sources: [src], dest });
      assert.ok(queued.ok);
      const [jobId] = queued.value.jobIds;
      const batchId = c.service.jobs()[0].batchId;
      const store = QueueStore.open({ home: c.home });
      t.after(async () => store.close());
      // The journal is written at checkpoints: pause once it holds a durable range.
      await waitUntil(
        'a durable range in the journal',
        () => store.files.list(jobId).some((f) => store.journal.doneBytes(f.id) > 0),
        60_000,
        50,
      );
      assert.ok((await c.service.invoke('queue.pause', { jobId })).ok);
      await waitJobs(c, [jobId], 'paused');
      // The job is paused once its file gave up; the transfer ends after its clean-up (handles closed, a last sample).
      await Promise.allSettled(transfers);

      assert.equal(fs.existsSync(path.join(there, 'big.bin')), false, 'nothing under the final name');
      assert.equal(fs.readFileSync(path.join(there, 'small.txt'), 'utf8'), 'committed before the pause\n');
      assert.equal(temps().length, 1, 'the partial file is kept');
      const row = store.files.findBySource(jobId, path.join(src, 'big.bin'))!;
      assert.equal(path.basename(row.tempName), temps()[0], 'at the temporary name the journal holds');
      assert.equal(store.files.findBySource(jobId, path.join(src, 'small.txt'))?.state, 'committed');
      const partial = store.journal.doneBytes(row.id);
      const durable = store.files.countJob(jobId).bytesDone;
      assert.ok(
        partial > 0 && partial < SIZE && durable === partial + small,
        `durable ${partial} of ${SIZE}, and the small file`,
      );

      // Paused: nothing moves for QUIET_MS — a window of observation, not a wait for something to happen.
      const before = { wire: wire(engines), events: events.length, stat: fs.statSync(path.join(there, temps()[0])) };
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
      const after = fs.statSync(path.join(there, temps()[0]));
      assert.deepEqual(
        wire(engines),
        { bytes: before.wire.bytes, outstanding: 0 },
        'no SSH_FXP_READ/WRITE while paused',
      );
      assert.deepEqual(
        events.slice(before.events).filter((e) => e.type === 'progress' && e.jobId === batchId),
        [],
        'no progress of the batch',
      );
      assert.deepEqual(
        [after.size, after.mtimeMs],
        [before.stat.size, before.stat.mtimeMs],
        'the partial file is untouched',
      );

      const resumedFrom: number[] = [];
      c.service.subscribe((name, payload) => {
        if (name !== 'queue.delta') return;
        for (const e of (payload as EventPayloads['queue.delta']).events) {
          if (e.type === 'updated' && e.patch.resumedFrom !== undefined) resumedFrom.push(e.patch.resumedFrom);
        }
      });
      for (const e of engines) e.setRateLimit(0);
      const resumedAt = events.length;
      assert.ok((await c.service.invoke('queue.resume', { jobId })).ok);
      await waitJobs(c, [jobId], 'done');
      await Promise.allSettled(transfers);

      assert.deepEqual(resumedFrom, [durable], 'the job says it resumed from what was durable');
      assert.deepEqual(prompts, [], 'its own small file, committed before the pause, is no conflict');
      const job = c.service.jobs()[0];
      assert.deepEqual([job.filesDone, job.filesSkipped], [2, undefined], 'both files done, none skipped');
      const report = reports.at(-1)!;
      assert.equal(report.resumedBytes, partial, 'the engine took the durable ranges from the journal');
      const samples = events
        .slice(resumedAt)
        .filter((e): e is Extract<EngineEvent, { type: 'progress' }> => e.type === 'progress' && e.jobId === batchId);
      const sent = samples.at(-1)!.connections.reduce((n, conn) => n + conn.bytes, 0);
      t.diagnostic(
        `${direction}: ${partial} bytes durable at the pause; ${sent} of ${SIZE} bytes moved after the resume`,
      );
      assert.ok(
        sent < SIZE && sent >= SIZE - partial,
        `moved ${sent} after the resume: the missing ${SIZE - partial}, not the whole file`,
      );
      for (const name of ['big.bin', 'small.txt'])
        assert.equal(sha256(path.join(there, name)), sha256(path.join(src, name)), `${name}: identical bytes`);
      assert.deepEqual(temps(), [], 'no temporary file left');
    },
  );
}

/**
 * A throttled upload of a SIZE file from a fresh local folder on a real sshd (1 connection × 2 channels), once the
 * journal holds a durable range of it: the service, the source, the server's temporary files of it, its job and the
 * store.
 */
async function uploadUntilDurable(t: test.TestContext, engines: ReturnType<typeof throttledEngines>) {
  const c = await setupSshd(t, { engine: engines.factory, site: { connections: 1, channels: 2 } });
  await connectAccepting(c);
  const local = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-resume-'));
  t.after(async () => fs.rmSync(local, { recursive: true, force: true }));
  const src = path.join(local, 'big.bin');
  fs.writeFileSync(src, randomBytes(SIZE));
  const temps = (): string[] => fs.readdirSync(c.server.root).filter((n) => n.startsWith('.big.bin.sluice-'));
  const queued = await c.service.invoke('queue.enqueue', {
    siteId: c.siteId,
    direction: 'upload',
    sources: [src],
    dest: c.server.root,
  });
  assert.ok(queued.ok);
  const [jobId] = queued.value.jobIds;
  const store = QueueStore.open({ home: c.home });
  t.after(async () => store.close());
  await waitUntil(
    'a durable range in the journal',
    () => store.files.list(jobId).some((f) => store.journal.doneBytes(f.id) > 0),
    60_000,
    50,
  );
  return { c, src, temps, jobId, store };
}

test(
  'real sshd: the app quits mid-upload; the partial file and journal are kept, and the restarted queue resumes by itself',
  { skip, timeout: 120_000 },
  async (t) => {
    const first = throttledEngines();
    const { c, src, temps, jobId, store } = await uploadUntilDurable(t, first);

    await c.service.close();
    assert.equal(store.jobs.get(jobId)?.state, 'queued', 'stored to run again');
    assert.equal(temps().length, 1, 'the partial file is kept');
    const durable = store.files.countJob(jobId).bytesDone;
    assert.ok(durable > 0 && durable < SIZE, `durable ${durable} of ${SIZE}`);

    const second = throttledEngines(0);
    const again = await reopenSshd(c, { engine: second.factory });
    await waitJobs(again, [jobId], 'done');
    await Promise.allSettled(second.transfers);
    assert.equal(
      again.service.jobs()[0].resumedFrom,
      durable,
      'the restarted job says it resumed from what was durable',
    );
    assert.equal(second.reports.at(-1)?.resumedBytes, durable);
    const samples = second.events.filter((e): e is Extract<EngineEvent, { type: 'progress' }> => e.type === 'progress');
    const sent = samples.at(-1)!.connections.reduce((n, conn) => n + conn.bytes, 0);
    assert.ok(sent < SIZE && sent >= SIZE - durable, `moved ${sent} after the restart, the missing ${SIZE - durable}`);
    assert.equal(sha256(path.join(c.server.root, 'big.bin')), sha256(src), 'identical bytes');
    assert.deepEqual(temps(), [], 'no temporary file left');
  },
);

test(
  'real sshd: cancelling a paused upload removes the partial file pause kept, through the connection',
  { skip, timeout: 120_000 },
  async (t) => {
    const engines = throttledEngines();
    const { transfers } = engines;
    const { c, temps, jobId, store } = await uploadUntilDurable(t, engines);
    assert.ok((await c.service.invoke('queue.pause', { jobId })).ok);
    await waitJobs(c, [jobId], 'paused');
    await Promise.allSettled(transfers);
    assert.equal(temps().length, 1, 'pause keeps it');

    assert.ok((await c.service.invoke('queue.cancel', { jobId })).ok);
    await waitUntil('the partial file removed', () => temps().length === 0, 30_000, 50);
    assert.deepEqual(store.files.list(jobId), [], 'its rows are gone: a retry starts over');
    assert.equal(fs.existsSync(path.join(c.server.root, 'big.bin')), false);
  },
);
