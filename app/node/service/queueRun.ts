/**
 * One run of the app's queue: the queued jobs of one batch sent to the engine as one transfer — all their sources to
 * their one destination, which the engine pipelines like `put -r` — with the books that turn the engine's per-file
 * events and progress back into per-job facts (app/common/queue/runTally.ts).
 *
 * The engine's TransferRequest.id is the batch id (one run per batch at a time). The run's jobs are the batch's jobs
 * this runner claimed (stores/jobClaim.ts), and the transfer's journal is theirs (engine/journal.ts
 * `StoreJournal.ofClaims`): each file's row in queue.db (`job_files`, keyed by job id and source) belongs to the job
 * whose source it is or lies under (app/common/queue/pathOwners.ts). A run that is stopped (pause, the service
 * closing) keeps the partial files the journal holds; the next run of those jobs plans from the journal, sends only
 * the missing ranges, and skips as done the files an earlier run committed.
 */
import * as path from 'node:path';
import type { ConflictChoice } from '../../common/ipc/contract';
import type { Job } from '../../common/model/job';
import { RunTally, type RunEnd } from '../../common/queue/runTally';
import type { Bottleneck } from '../../common/stats/bottleneck';
import { isInterruption, SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import type { StoreJournal } from '../engine/journal';
import type { ConflictFiles, EngineEvent, EventSink } from '../transfer/types';
import type { FileEndRecord } from '../stores/jobFiles';
import { failureText } from '../../common/queue/files';
import { errorInfo } from './results';
import { runOptions } from './transferDefaults';
import { DEFAULT_TRANSFERS, type TransferDefaults } from '../../common/model/transferDefaults';
import type { QueueStore } from '../stores/queueStore';
import { syncOptionsOf } from '../sync/enqueue';
import { runSyncJobs } from '../sync/runBatch';

/** How a stopped job of the run ends: paused, cancelled, or back in line. */
export type StopAs = 'paused' | 'cancelled' | 'queued';

/** Whether a job belongs to a sync batch (sync/enqueue.ts). */
function isSyncJob(store: QueueStore, id: string): boolean {
  const job = store.jobs.get(id);
  return job !== undefined && syncOptionsOf(job) !== undefined;
}

/** Where a source lands: the destination folder joined with its name (remote paths are posix). */
function landing(job: Job): string {
  const p = job.direction === 'upload' ? path.posix : path;
  return p.join(job.dest, job.name);
}

export class BatchRun {
  readonly controller = new AbortController();
  /** How each stopped job ends; a job of the run stopped for another's sake goes back in line. */
  readonly stopAs = new Map<string, StopAs>();
  readonly tally: RunTally;
  /** The last throughput sample, for the site's graph. */
  sample?: { rate: number; connections: Array<{ id: number; rate: number }>; bottleneck?: Bottleneck };

  /**
   * @param jobs the run's jobs, all of `batchId`, in queue order, as they were before this run started
   * @param journal the journal of the run's claimed jobs (none when queue.db could not give one: no resume then)
   */
  constructor(
    readonly batchId: string,
    readonly siteId: string,
    readonly jobs: readonly Job[],
    readonly journal?: StoreJournal,
    /** The queue database: a sync batch's jobs are run by sync/runBatch.ts (their `options.sync`). */
    readonly store?: QueueStore,
  ) {
    this.tally = new RunTally(jobs.map((j) => ({ jobId: j.id, source: j.source, target: landing(j) })));
  }

  /** Stops the run: `jobId` ends as `as`, the run's other unsettled jobs go back in line unless told otherwise. */
  stop(jobId: string, as: StopAs): void {
    this.stopAs.set(jobId, as);
    for (const id of this.tally.unsettled()) if (!this.stopAs.has(id)) this.stopAs.set(id, 'queued');
    if (!this.controller.signal.aborted) {
      this.controller.abort(
        new SluiceError('ABORTED', as === 'paused' ? 'Paused' : as === 'cancelled' ? 'Cancelled' : 'Stopped'),
      );
    }
  }

  /**
   * How the run ended for its journal: interrupted (stopped, or a file or the whole transfer cut off), failed or done.
   */
  journalOutcome(end: RunEnd): 'done' | 'failed' | 'paused' {
    if (this.stopAs.size > 0) return 'paused';
    if ('failure' in end) return isInterruption(end.failure.code) ? 'paused' : 'failed';
    if (end.report.failed.some((f) => isInterruption(f.code))) return 'paused';
    return end.report.failed.length ? 'failed' : 'done';
  }

  /**
   * Runs the transfer on `engine` with Settings → Transfers (`defaults`); `ask` answers conflicts (with the job whose
   * target exists) when the conflict rule is `ask`; `onEvent` hears the transfer's own events.
   * @returns the report, or the error the transfer failed with
   */
  async transfer(
    engine: Engine,
    ask: (jobId: string, target: string, files: ConflictFiles) => Promise<ConflictChoice>,
    defaults: TransferDefaults = DEFAULT_TRANSFERS,
    onEvent?: EventSink,
  ): Promise<RunEnd> {
    const first = this.jobs[0];
    if (this.store && this.jobs.some((j) => isSyncJob(this.store!, j.id))) {
      return runSyncJobs(
        engine,
        this.store,
        this.jobs.map((j) => j.id),
        {
          id: this.batchId,
          signal: this.controller.signal,
          onEvent,
          journal: this.journal,
        },
      );
    }
    try {
      if (this.controller.signal.aborted) throw this.controller.signal.reason;
      const report = await engine.transfer(
        {
          id: this.batchId,
          direction: first.direction === 'upload' ? 'put' : 'get',
          sources: this.jobs.map((j) => j.source),
          dest: first.dest,
          recursive: true,
          ...runOptions(defaults, (target, files) => ask(this.tally.jobOfTarget(target), target, files)),
          ...(this.journal ? { journal: this.journal } : {}),
        },
        { signal: this.controller.signal, onEvent },
      );
      return { report };
    } catch (e) {
      return { failure: errorInfo(e) };
    }
  }
}

/** The engine's event for one file of a run that ended (done, skipped or failed). */
export type FileEndEvent = Extract<EngineEvent, { type: 'file' }>;

/** The queue database's row for a file of job `jobId` that ended: its paths, size, state, and why when not done. */
export function fileEndRecord(jobId: string, e: FileEndEvent): FileEndRecord {
  const error =
    e.state === 'skipped'
      ? { code: 'SKIPPED', message: e.reason ?? e.error?.message ?? 'skipped' }
      : e.error && { code: e.error.code, message: failureText(e.error.message, e.path) };
  return {
    jobId,
    source: e.path,
    target: e.target,
    size: e.size,
    state: e.state === 'done' ? 'committed' : e.state,
    ...(error ? { error } : {}),
  };
}
