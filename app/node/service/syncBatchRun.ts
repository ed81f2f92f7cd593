/**
 * The app's queue running a sync batch (#27: Synchronize…'s Run, or a batch left by an earlier run of the app) the way
 * sync/runBatch.ts runs any sync batch: the steps job's folders first (prepareSync), the copy jobs as one engine
 * transfer of the files as listed (syncTransferRequest) with the journal of the copy claims, and, once every copy of
 * the batch is `done` in the queue, the deletions (runSyncSteps). A batch whose copies did not all arrive deletes
 * nothing: its steps job fails saying so, and Retry runs what is left. queueRun.ts's BatchRun calls in here when its
 * claims carry `options.sync` (JobBook.syncRunOf).
 */
import type { JobOutcome } from '../../common/queue/lifecycle';
import type { RunEnd } from '../../common/queue/runTally';
import type { Engine } from '../engine/engine';
import type { StoreJournal } from '../engine/journal';
import { SluiceError } from '../errors';
import type { Claim } from '../stores/jobClaim';
import type { QueuedJob } from '../stores/queueRows';
import type { QueueStore } from '../stores/queueStore';
import { syncOptionsOf } from '../sync/enqueue';
import { prepareSync, runSyncSteps, syncTransferRequest } from '../sync/runBatch';
import type { EventSink, TransferReport } from '../transfer/types';
import { errorInfo } from './results';

/** What a sync run reads of its BatchRun (queueRun.ts), without importing it. */
export interface SyncRunHost {
  batchId: string;
  journal?: StoreJournal;
  controller: AbortController;
}

const EMPTY_REPORT: TransferReport = { files: 0, skipped: 0, bytes: 0, failed: [], elapsedMs: 0, movedBytes: 0 };

/** One run of (part of) a sync batch. */
export class SyncBatchRun {
  /**
   * @param copies the copy jobs this run claimed
   * @param steps the batch's steps job when this run claimed it (its deletions run after the copies)
   */
  constructor(
    private readonly store: QueueStore,
    readonly copies: readonly QueuedJob[],
    readonly steps: QueuedJob | undefined,
  ) {}

  /** The batch's steps job as stored now (this run's, or the one a later run will take). */
  private stepsOfBatch(batchId: string): QueuedJob | undefined {
    return this.steps ?? this.store.jobs.batch(batchId).find((j) => syncOptionsOf(j)?.role === 'steps');
  }

  /**
   * The folders, then the copies as one transfer. @returns the transfer's end (an empty report without copies)
   */
  async transfer(engine: Engine, host: SyncRunHost, verify: 'size' | 'sha256', onEvent?: EventSink): Promise<RunEnd> {
    const signal = host.controller.signal;
    try {
      const steps = this.stepsOfBatch(host.batchId);
      if (steps) await prepareSync(engine, this.store, this.store.jobs.get(steps.id) ?? steps, this.copies, signal);
      if (this.copies.length === 0) return { report: EMPTY_REPORT };
      const req = syncTransferRequest(host.batchId, this.copies, verify);
      const report = await engine.transfer(
        { ...req, ...(host.journal ? { journal: host.journal } : {}) },
        { signal, onEvent },
      );
      return { report };
    } catch (e) {
      return { failure: errorInfo(e) };
    }
  }

  /**
   * After the copies settled: the steps job's deletions when every copy of the batch is done, and its outcome.
   * @param settle settles the steps job (JobQueue's settle: a stop the user asked for wins)
   */
  async finish(engine: Engine, host: SyncRunHost, settle: (jobId: string, outcome: JobOutcome) => void): Promise<void> {
    const steps = this.steps;
    if (!steps) return;
    if (host.controller.signal.aborted) return settle(steps.id, { state: 'queued' });
    const current = this.store.jobs.get(steps.id) ?? steps;
    const out = await runSyncSteps(engine, this.store, current, { signal: host.controller.signal }).catch(
      (e: unknown) => ({ state: 'error' as const, error: errorInfo(e) }),
    );
    if (out.state === 'done') return settle(steps.id, { state: 'done', files: out.deleted + out.moved, bytes: 0 });
    if (out.state === 'error') return settle(steps.id, { state: 'failed', error: out.error });
    if (out.state === 'waiting') {
      const why = `${out.copiesLeft} ${out.copiesLeft === 1 ? 'copy' : 'copies'} of this synchronization did not arrive`;
      return settle(steps.id, {
        state: 'failed',
        error: errorInfo(new SluiceError('INVALID_STATE', `${why}: nothing was deleted (Retry runs what is left)`)),
      });
    }
    const [first] = out.failures;
    const more = out.failures.length > 1 ? ` (and ${out.failures.length - 1} more)` : '';
    settle(steps.id, { state: 'failed', error: { code: first.code, message: `${first.message}${more}` } });
  }
}

/** The claims' split into a sync run, or undefined when they are not a sync batch's. */
export function syncRunOf(store: QueueStore, claims: readonly Claim[]): SyncBatchRun | undefined {
  const roles = claims.map((c) => syncOptionsOf(c.job)?.role);
  if (!roles.some((r) => r !== undefined)) return undefined;
  const steps = claims.find((_, i) => roles[i] === 'steps')?.job;
  return new SyncBatchRun(
    store,
    claims.filter((_, i) => roles[i] !== 'steps').map((c) => c.job),
    steps,
  );
}

/** Whether a claim is a sync batch's steps job (kept out of the transfer's journal: its source holds every copy's). */
export function isSyncSteps(c: Claim): boolean {
  return syncOptionsOf(c.job)?.role === 'steps';
}
