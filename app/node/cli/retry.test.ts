/**
 * The CLI's tries (cli/retry.ts) over a fake engine and journal: a transient failure reconnects, reopens the journal
 * and says so; a permanent one, a first connect that fails, or the last try end the run; an abort during the wait
 * stops it at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RETRY_POLICY } from '../../common/retry';
import { SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import type { TransferReport, TransferRequest } from '../transfer/types';
import type { RetryNotice } from './output';
import { RetryingJob, waitFor, type RunJournal, type Timers } from './retry';

type Step = TransferReport | SluiceError;

const report = (failedCode?: string, movedBytes = 0): TransferReport => ({
  files: failedCode ? 0 : 1,
  skipped: 0,
  bytes: 10,
  movedBytes,
  elapsedMs: 5,
  failed: failedCode
    ? [{ path: '/l/a.bin', code: failedCode, message: `WRITE /r/a.bin: ${failedCode.toLowerCase()}` }]
    : [],
});

/** Timers that fire at once (next microtask) and remember the waits asked for. */
function instantTimers(): Timers & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    setTimeout: (fn, ms) => {
      waits.push(ms);
      queueMicrotask(fn);
      return waits.length;
    },
    clearTimeout: () => undefined,
  };
}

/**
 * A job whose connects and transfers follow `connects` (an error: that connect fails) and `transfers` (a report, or an
 * error thrown); records what happened.
 */
function fakeJob(o: {
  connects?: Array<SluiceError | undefined>;
  transfers: Step[];
  tries?: number;
  timers?: Timers;
  now?: () => number;
}) {
  const log: string[] = [];
  const notices: RetryNotice[] = [];
  const journals: Array<{ outcome?: string }> = [];
  const decisions: Array<boolean | undefined> = [];
  let connects = 0;
  let transfers = 0;
  const engine = {
    transfer: async (req: TransferRequest) => {
      // As the engine's scan does: the first try reads the destination (a new folder: not yet there) and creates it.
      decisions.push(req.destIsDir);
      req.onDestination?.(req.destIsDir ?? false);
      const step = o.transfers[transfers++];
      log.push(`transfer ${req.journal ? 'with' : 'without'} journal`);
      if (step instanceof SluiceError) throw step;
      return step;
    },
    close: async () => {
      log.push('close');
    },
  } as unknown as Engine;
  const job = new RetryingJob(
    {
      connect: async () => {
        const failure = o.connects?.[connects++];
        log.push(failure ? `connect: ${failure.code}` : 'connect');
        if (failure) throw failure;
        return engine;
      },
      openJournal: () => {
        const j = { outcome: undefined as string | undefined };
        journals.push(j);
        return {
          resuming: journals.length > 1,
          flush: () => undefined,
          resumeSummary: () => ({ doneBytes: 7, totalBytes: 10 }),
          close: (outcome: string) => {
            j.outcome = outcome;
            log.push(`journal ${outcome}`);
          },
        } as unknown as RunJournal;
      },
      request: { id: 'put-1', direction: 'put', sources: ['/l/a.bin'], dest: '/r/', recursive: false },
      say: (line) => log.push(line),
      retrying: (n) => {
        notices.push(n);
        log.push(`retry ${n.attempt} of ${n.of}`);
      },
    },
    {
      policy: { ...DEFAULT_RETRY_POLICY, tries: o.tries ?? 5 },
      random: () => 0,
      timers: o.timers ?? instantTimers(),
      now: o.now,
    },
  );
  return { job, log, notices, journals, decisions };
}

const lost = () => new SluiceError('CONNECTION_LOST', 'connection refused by 127.0.0.1:2222');

test('a lost connection: the journal closes paused, the engine closes, the run says so, reconnects and resumes', async () => {
  const timers = instantTimers();
  const clock = [1000, 9000];
  const f = fakeJob({
    transfers: [report('CONNECTION_LOST', 3 * 1024 * 1024), report(undefined, 5)],
    timers,
    now: () => clock.shift() ?? NaN,
  });
  const r = await f.job.run(new AbortController().signal);
  assert.equal(r.failed.length, 0);
  assert.equal(r.elapsedMs, 8000, 'the report covers the whole run, the wait included');
  assert.equal(r.movedBytes, 3 * 1024 * 1024 + 5, "and every try's bytes");
  assert.equal(
    r.resumedBytes,
    undefined,
    'the run moved more than the last report counts: nothing was there before it',
  );
  assert.deepEqual(f.log, [
    'connect',
    'transfer with journal',
    'journal paused',
    'close',
    'retry 2 of 5',
    'connect',
    'transfer with journal',
    'journal done',
  ]);
  assert.deepEqual(f.notices, [
    {
      type: 'retry',
      attempt: 2,
      of: 5,
      delayMs: 2000,
      code: 'CONNECTION_LOST',
      message: 'WRITE /r/a.bin: connection_lost',
      movedBytes: 3 * 1024 * 1024,
    },
  ]);
  assert.deepEqual(timers.waits, [2000], 'the wait the notice announced');
  assert.notEqual(f.job.engine, null, "the last try's engine stays open until close()");
  assert.deepEqual(
    f.decisions,
    [undefined, false],
    'the first try reads the destination, the next reads it as the first did (put -r into a folder the first try created)',
  );
});

test('a server restarting: a reconnect refused is tried again too (once the run has been connected)', async () => {
  const f = fakeJob({
    connects: [undefined, lost(), undefined],
    transfers: [new SluiceError('TIMEOUT', 'STAT /r: timed out'), report()],
  });
  const r = await f.job.run(new AbortController().signal);
  assert.equal(r.failed.length, 0);
  assert.deepEqual(
    f.log.filter((l) => l.startsWith('connect') || l.startsWith('retry')),
    ['connect', 'retry 2 of 5', 'connect: CONNECTION_LOST', 'retry 3 of 5', 'connect'],
  );
  assert.equal(f.notices[1].message, 'connection refused by 127.0.0.1:2222');
});

test('the first connect failing is not retried: a wrong host or port is said at once', async () => {
  const f = fakeJob({ connects: [lost()], transfers: [] });
  await assert.rejects(f.job.run(new AbortController().signal), /connection refused/);
  assert.deepEqual(f.log, ['connect: CONNECTION_LOST']);
});

test('permanent failures end the run after one try, reported or thrown', async () => {
  const denied = fakeJob({ transfers: [report('PERMISSION_DENIED')] });
  assert.equal((await denied.job.run(new AbortController().signal)).failed[0].code, 'PERMISSION_DENIED');
  assert.deepEqual(denied.log, ['connect', 'transfer with journal', 'journal failed']);
  const changed = fakeJob({
    connects: [undefined, new SluiceError('HOSTKEY_CHANGED', 'REMOTE HOST IDENTIFICATION HAS CHANGED')],
    transfers: [report('CONNECTION_STALLED')],
  });
  await assert.rejects(changed.job.run(new AbortController().signal), (e: SluiceError) => e.code === 'HOSTKEY_CHANGED');
  assert.equal(changed.notices.length, 1, 'the changed key on reconnect is not retried');
});

test("the last try's transient failure ends the run paused, with the bytes kept for the next run", async () => {
  const f = fakeJob({ transfers: [report('TIMEOUT'), report('TIMEOUT'), report('TIMEOUT')], tries: 3 });
  const r = await f.job.run(new AbortController().signal);
  assert.equal(r.failed[0].code, 'TIMEOUT');
  assert.deepEqual(
    f.notices.map((n) => n.attempt),
    [2, 3],
  );
  assert.deepEqual(
    f.journals.map((j) => j.outcome),
    ['paused', 'paused', 'paused'],
  );
  assert.equal(f.log.at(-1), 'sluice: 7 B kept: run the same command again to resume');
  assert.equal(f.log.filter((l) => l.includes('kept')).length, 1, 'said once, at the end, not before each retry');
});

test("after retries, what was there before the run is the last report's bytes less what every try moved", async () => {
  const big = (failedCode?: string, movedBytes = 0): TransferReport => ({
    ...report(failedCode, movedBytes),
    bytes: 100,
    resumedBytes: 70,
  });
  const f = fakeJob({ transfers: [big('CONNECTION_LOST', 40), big(undefined, 30)] });
  const r = await f.job.run(new AbortController().signal);
  assert.equal(r.movedBytes, 70);
  assert.equal(r.resumedBytes, 30, 'the last try resumed 70 bytes, 40 of them moved by the first try of this run');
});

test('--retries 1: a single try, its report as the engine gave it', async () => {
  const f = fakeJob({ transfers: [report('CONNECTION_LOST', 9)], tries: 1 });
  assert.deepEqual(await f.job.run(new AbortController().signal), report('CONNECTION_LOST', 9));
  assert.equal(f.notices.length, 0);
});

test('an abort during the wait stops the run at once, without another connect', async () => {
  const abort = new AbortController();
  // The timer never fires; Ctrl-C comes while it runs.
  const f = fakeJob({
    transfers: [report('CONNECTION_LOST')],
    timers: {
      setTimeout: () => {
        queueMicrotask(() => abort.abort());
        return 0;
      },
      clearTimeout: () => undefined,
    },
  });
  await assert.rejects(f.job.run(abort.signal), (e: SluiceError) => e.code === 'ABORTED');
  assert.equal(f.log.filter((l) => l.startsWith('connect')).length, 1);
});

test('waitFor: resolves when its timer fires; rejects ABORTED when the signal aborts, and clears the timer', async () => {
  const t = instantTimers();
  await waitFor(1500, new AbortController().signal, t);
  assert.deepEqual(t.waits, [1500]);
  const abort = new AbortController();
  const cleared: unknown[] = [];
  const pending = waitFor(60_000, abort.signal, { setTimeout: () => 'h', clearTimeout: (h) => cleared.push(h) });
  abort.abort();
  await assert.rejects(pending, (e: SluiceError) => e.code === 'ABORTED');
  assert.deepEqual(cleared, ['h']);
  await assert.rejects(waitFor(10, abort.signal, t), (e: SluiceError) => e.code === 'ABORTED');
});
