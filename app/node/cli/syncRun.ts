/**
 * `sluice sync` without `--dry-run`: the plan runs as one batch of the persistent queue (sync/enqueue.ts) through the
 * resume journal, as sync/runBatch.ts runs any sync batch: folders, the copies as one engine transfer, then the
 * deletions once every copy of the batch is committed. A run killed at any point leaves its batch unfinished; the same
 * command run again plans afresh (files that arrived have their source's time, so they are found the same) and takes
 * that batch over, so the partial copies it left resume from the journal.
 */
import fs from 'node:fs';
import { exitCodeFor, isErrorCode, isInterruption, SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import { StoreJournal } from '../engine/journal';
import { currentOwner, DEFAULT_HEARTBEAT_MS } from '../stores/lease';
import type { Claim } from '../stores/jobClaim';
import { QueueStore } from '../stores/queueStore';
import type { JobTarget } from '../stores/queueRows';
import type { TransferReport } from '../transfer/types';
import { enqueueSyncPlan, findSyncBatch, syncBatchRunning, type SyncBatch } from '../sync/enqueue';
import type { SyncPlan } from '../sync/plan';
import { BOOKING_SLICE, bookInBackground, type RestBooking } from '../sync/restBooking';
import {
  makeFolderChains,
  prepareSync,
  runSyncSteps,
  splitSyncJobs,
  syncTransferRequest,
  type FolderChains,
  type StepsOutcome,
} from '../sync/runBatch';
import { makeOutput, type Output } from './output';
import { formatSummary } from './summary';
import { formatBytes, plural } from './units';

/** What a run needs: the open engine, the two roots (absolute), the plan and the command's output options. */
export interface SyncRunInput {
  engine: Engine;
  target: Extract<JobTarget, { host: string }>;
  direction: 'get' | 'put';
  srcRoot: string;
  destRoot: string;
  plan: SyncPlan;
  backupDir?: string;
  /** DEST's listing found its root: it is not made again. */
  destRootExists?: boolean;
  verify?: 'size' | 'sha256';
  json?: boolean;
  verbose?: boolean;
  progress: boolean;
  signal: AbortSignal;
  /** The output is made: the signal handler stops its bar before it says why the run ends. */
  onOutput?(out: Output): void;
}

/** Rows booked before the first copy, then per turn of the event loop (SLUICE_TEST_BOOK_FIRST: the kill tests'). */
const BOOK_FIRST = Number(process.env.SLUICE_TEST_BOOK_FIRST) || BOOKING_SLICE;

/** The `origin` of the jobs `sluice sync` queues: `sluice queue run` leaves them alone (they are the command's). */
export const SYNC_ORIGIN = 'sync';

/**
 * The plan's folders (and DEST's root when it is missing), started at once: their round trips pass while the batch
 * is booked in the queue database (synchronous work, no network). Undefined when there is none to make.
 */
function foldersEarly(input: SyncRunInput): FolderChains | undefined {
  const folders = input.plan.items.filter((it) => it.action === 'create' && it.kind === 'dir').map((it) => it.path);
  if (input.destRootExists && folders.length === 0) return undefined;
  const direction = input.direction === 'put' ? 'upload' : 'download';
  return makeFolderChains(input.engine, direction, input.destRoot, folders, {
    signal: input.signal,
    rootExists: input.destRootExists,
  });
}

/** How many jobs of the batch are not `done` (counted by the database: no job is read). */
function unfinished(store: QueueStore, batchId: string): number {
  const row = store.q.stmt(`SELECT COUNT(*) AS n FROM jobs WHERE batch_id = ? AND state != 'done'`).get(batchId);
  return (row as { n: number }).n;
}

/** What the run did, for the exit code and the last lines. */
interface RunResult {
  report?: TransferReport;
  steps: StepsOutcome | { state: 'not-run' };
  failureCode?: string;
}

/**
 * The batch's jobs, each now `running` under this process's lease: the new ones were stored so (enqueueSyncPlan's
 * claimFor), those kept from a killed run are claimed here.
 * @throws INVALID_STATE when another process runs it
 */
function claimAll(store: QueueStore, batch: SyncBatch): Claim[] {
  const kept = batch.kept ? store.claimBatch(batch.batchId, currentOwner()) : [];
  const claims = [...kept, ...(batch.claims ?? [])];
  if (claims.length < batch.jobs.length) {
    for (const c of claims) store.releaseJob(c.lease, 'queued');
    throw new SluiceError('INVALID_STATE', 'another Sluice process is running this sync now');
  }
  return claims;
}

/**
 * Keeps the batch's leases alive: every lease renewed in one transaction per heartbeat (a timer per lease, as
 * stores/lease.ts keepLease does for a few jobs, cost a write per job every 5 s).
 */
function keepLeases(store: QueueStore, claims: readonly Claim[]): NodeJS.Timeout {
  const beat = (): void => {
    try {
      store.q.write(() => {
        for (const c of claims) store.leases.heartbeat(c.lease);
      });
    } catch {
      /* the next beat tries again; a lease that went stale is taken over, as for any runner */
    }
  };
  return setInterval(beat, DEFAULT_HEARTBEAT_MS).unref();
}

/** Partial copies of jobs an earlier run left and the new plan no longer needs: removed on DEST, best effort. */
async function dropLeftovers(engine: Engine, batch: SyncBatch, put: boolean): Promise<void> {
  for (const { tempNames } of batch.dropped) {
    for (const t of tempNames) {
      if (put) await engine.remove(t).catch(() => undefined);
      else await fs.promises.unlink(t).catch(() => undefined);
    }
  }
}

/** The line that opens a run: what the plan copies, creates and deletes. */
function planLine(batch: SyncBatch, backupDir?: string): string {
  const parts = [`${plural(batch.copies, 'file')} to copy (${formatBytes(batch.bytes)})`];
  if (batch.folders) parts.push(`${plural(batch.folders, 'folder')} to create`);
  if (batch.deletions)
    parts.push(`${plural(batch.deletions, 'path')} to ${backupDir ? 'move to the backup folder' : 'delete'}`);
  if (batch.kept) parts.push(`${plural(batch.kept, 'file')} resumed from the last run`);
  return `sluice: sync: ${parts.join(', ')}`;
}

/** Copies: one engine transfer of the copy jobs with their journal; each job settled from the report. */
async function runCopies(
  store: QueueStore,
  input: SyncRunInput,
  copies: Claim[],
  out: Output,
  o: { rest?: RestBooking; folders?: FolderChains },
): Promise<TransferReport | undefined> {
  const rest = o.rest;
  if (copies.length === 0) return undefined;
  const journal = StoreJournal.ofClaims(store, copies);
  if (rest) journal.beforePlan = (jobId) => rest.upTo(jobId);
  let report: TransferReport | undefined;
  try {
    // Each copy waits only for its own folder's chain (the others are made meanwhile).
    const req = syncTransferRequest(
      `sync-${copies[0].job.batchId}`,
      copies.map((c) => c.job),
      input.verify,
      o.folders,
    );
    report = await input.engine.transfer({ ...req, journal }, { signal: input.signal, onEvent: (e) => out.event(e) });
  } finally {
    journal.close('paused');
    out.done();
  }
  rest?.all();
  const failed = new Map(report.failed.map((f) => [f.path, f] as const));
  // The copies that arrived, at once (two statements a job, one transaction); the few others one by one.
  store.releaseDone(copies.filter((c) => !failed.has(c.job.source)).map((c) => c.lease));
  store.q.write(() => {
    for (const c of copies) {
      const f = failed.get(c.job.source);
      if (!f) continue;
      if (isInterruption(f.code)) store.releaseJob(c.lease, 'paused');
      else store.releaseJob(c.lease, 'failed', { code: f.code, message: f.message });
    }
  });
  return report;
}

/** The steps job's state after its run: done, paused (waiting for copies) or failed. */
function settleSteps(store: QueueStore, lease: Claim['lease'], s: StepsOutcome): StepsOutcome {
  if (s.state === 'done') store.releaseJob(lease, 'done');
  else if (s.state === 'waiting') store.releaseJob(lease, 'paused');
  else store.releaseJob(lease, 'failed', { code: s.failures[0].code, message: s.failures[0].message });
  return s;
}

/** Lines after the run: the transfer's summary, then what the steps did. */
function finalLines(result: RunResult, out: Output, input: SyncRunInput): void {
  const s = result.steps;
  if (input.json) {
    if (result.report) process.stdout.write(`${JSON.stringify({ type: 'report', ...result.report })}\n`);
    process.stdout.write(`${JSON.stringify({ type: 'sync', ...s })}\n`);
    return;
  }
  if (result.report) for (const line of formatSummary(result.report, out.notes)) process.stderr.write(`${line}\n`);
  if (s.state === 'done' && s.deleted + s.moved > 0) {
    const moved = s.moved ? `, ${plural(s.moved, 'file')} moved to ${input.backupDir}` : '';
    process.stderr.write(`sluice: sync: ${plural(s.deleted, 'path')} deleted${moved}\n`);
  } else if (s.state === 'waiting') {
    process.stderr.write(
      `sluice: sync: nothing deleted: ${plural(s.copiesLeft, 'copy', 'copies')} did not complete; run the same command again\n`,
    );
  } else if (s.state === 'failed') {
    for (const f of s.failures) process.stderr.write(`sluice: cannot delete ${f.path}: ${f.message}\n`);
  }
}

/**
 * Runs the plan. Every job of the batch ends `done` (the batch is then removed: a command's run is not a queue
 * entry), or stays for the next run of the same command (paused, failed).
 * @returns the exit code: 0, or the code of the first failure (as get/put)
 * @throws SluiceError ABORTED when `signal` fires (the batch is kept, paused), INVALID_STATE when another process
 *   runs the same sync, LOCAL_IO from the queue database
 */
export async function runSyncPlan(input: SyncRunInput): Promise<number> {
  const store = QueueStore.open();
  const put = input.direction === 'put';
  const key = {
    target: input.target,
    direction: put ? ('upload' as const) : ('download' as const),
    srcRoot: input.srcRoot,
    destRoot: input.destRoot,
    plan: input.plan,
  };
  if (syncBatchRunning(store, key)) {
    store.close();
    throw new SluiceError('INVALID_STATE', 'another Sluice process is running this sync now');
  }
  const early = foldersEarly(input);
  const batch = enqueueSyncPlan(store, {
    ...key,
    foldersMade: early !== undefined,
    takeOver: findSyncBatch(store, key),
    options: { origin: SYNC_ORIGIN },
    claimFor: currentOwner(),
    bookFirst: BOOK_FIRST,
    destRootExists: input.destRootExists,
    ...(input.backupDir !== undefined ? { backupDir: input.backupDir } : {}),
  });
  const claims = claimAll(store, batch);
  const stopBooking = batch.rest && bookInBackground(batch.rest);
  const keeper = keepLeases(store, claims);
  const out = makeOutput(input, put ? 'up  ' : 'down');
  input.onOutput?.(out);
  const result: RunResult = { steps: { state: 'not-run' } };
  try {
    out.info(planLine(batch, input.backupDir));
    await dropLeftovers(input.engine, batch, put);
    const { copies, steps } = splitSyncJobs(claims);
    await prepareSync(
      input.engine,
      store,
      store.jobs.get(steps!.job.id)!,
      copies.map((c) => c.job),
      input.signal,
    );
    result.report = await runCopies(store, input, copies, out, { rest: batch.rest, folders: early });
    await early?.all;
    result.steps = await runSyncSteps(input.engine, store, store.jobs.get(steps!.job.id)!, {
      signal: input.signal,
      onDeleted: (p, moved) => {
        if (input.verbose) out.info(`sluice: ${moved ? 'moved to the backup folder' : 'deleted'} ${p}`);
      },
    });
    const s = settleSteps(store, steps!.lease, result.steps);
    finalLines(result, out, input);
    const failedCode = result.report?.failed[0]?.code ?? (s.state === 'failed' ? s.failures[0].code : undefined);
    if (unfinished(store, batch.batchId) === 0) store.jobs.clearFinished({ batchId: batch.batchId });
    return failedCode === undefined ? 0 : isErrorCode(failedCode) ? exitCodeFor(failedCode) : 1;
  } finally {
    out.done();
    clearInterval(keeper);
    stopBooking?.();
    // Whatever is still running here was interrupted: kept, paused, for the next run of the command.
    const running = new Set(
      (
        store.q.stmt(`SELECT id FROM jobs WHERE batch_id = ? AND state = 'running'`).all(batch.batchId) as Array<{
          id: string;
        }>
      ).map((r) => r.id),
    );
    store.q.write(() => {
      for (const c of claims) {
        if (!running.has(c.job.id)) continue;
        try {
          store.releaseJob(c.lease, 'paused');
        } catch {
          /* taken over meanwhile */
        }
      }
    });
    store.close();
  }
}
