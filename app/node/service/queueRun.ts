/**
 * One run of the app's queue: the queued jobs of one batch sent to the engine as one transfer — all their sources to
 * their one destination, which the engine pipelines like `put -r` — with the books that turn the engine's per-file
 * events and progress back into per-job facts (app/common/queue/runTally.ts).
 *
 * The engine's TransferRequest.id is the batch id (one run per batch at a time). Seam for resuming (issue #14): the
 * run's jobs are the batch's jobs leased by this runner, and each file's row in queue.db (`job_files`, keyed by job id
 * and source) belongs to the job whose source it is or lies under ({@link RunTally.jobOf}). Today a run starts its
 * jobs over (JobBook.startOver clears their rows) and pause aborts the transfer; once the engine keeps partial files
 * and their journal, it plans those rows itself and the service stops clearing them.
 */
import * as path from 'node:path';
import type { ConflictChoice } from '../../common/ipc/contract';
import type { Job } from '../../common/model/job';
import { RunTally, type RunEnd } from '../../common/queue/runTally';
import { SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import type { ConflictFiles } from '../transfer/types';
import { errorInfo } from './results';

/** How a stopped job of the run ends: paused, cancelled, or back in line. */
export type StopAs = 'paused' | 'cancelled' | 'queued';

/** How far a server's clock may lag ours when telling whether a target was written since a job's earlier start (ms). */
const CLOCK_SLACK_MS = 120_000;

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
  sample?: { rate: number; connections: Array<{ id: number; rate: number }> };
  /** When the jobs that ran before (and were interrupted) started then. */
  private readonly ranBefore = new Map<string, number>();
  /** Targets skipped as the job's own earlier commits: done, not skipped. */
  private readonly adopted = new Set<string>();

  /** @param jobs the run's jobs, all of `batchId`, in queue order, as they were before this run started */
  constructor(readonly batchId: string, readonly siteId: string, readonly jobs: readonly Job[]) {
    this.tally = new RunTally(jobs.map((j) => ({ jobId: j.id, source: j.source, target: landing(j) })));
    for (const j of jobs) if (j.startedAt !== undefined) this.ranBefore.set(j.id, j.startedAt);
  }

  /**
   * Whether an existing target is the job's own, committed by its interrupted earlier run (a commit's rename travels
   * behind the data in flight, so it can land after the abort): the same size, and the incoming file's modification
   * time or one written since that run started. Such a target is skipped instead of asked about. Until the engine
   * journals its commits (issue #14 resume), this is how a resumed job tells its own files.
   */
  ownEarlierCommit(jobId: string, target: string, files: ConflictFiles): boolean {
    const since = this.ranBefore.get(jobId);
    const { existing, incoming } = files;
    const own = since !== undefined && existing.size === incoming.size
      && (existing.mtimeMs === incoming.mtimeMs || existing.mtimeMs >= since - CLOCK_SLACK_MS);
    if (own) this.adopted.add(target);
    return own;
  }

  /** A file's end as the queue tells it: a target skipped as the job's own earlier commit is done. */
  fileEnd<E extends { target: string; state: 'done' | 'failed' | 'skipped' }>(e: E): E {
    return e.state === 'skipped' && this.adopted.has(e.target) ? { ...e, state: 'done' } : e;
  }

  /** Stops the run: `jobId` ends as `as`, the run's other unsettled jobs go back in line unless told otherwise. */
  stop(jobId: string, as: StopAs): void {
    this.stopAs.set(jobId, as);
    for (const id of this.tally.unsettled()) if (!this.stopAs.has(id)) this.stopAs.set(id, 'queued');
    if (!this.controller.signal.aborted) {
      this.controller.abort(new SluiceError('ABORTED', as === 'paused' ? 'Paused' : as === 'cancelled' ? 'Cancelled' : 'Stopped'));
    }
  }

  /**
   * Runs the transfer on `engine`; `ask` answers conflicts (with the job whose target exists).
   * @returns the report, or the error the transfer failed with
   */
  async transfer(engine: Engine, ask: (jobId: string, target: string, files: ConflictFiles) => Promise<ConflictChoice>): Promise<RunEnd> {
    const first = this.jobs[0];
    try {
      if (this.controller.signal.aborted) throw this.controller.signal.reason;
      const report = await engine.transfer({
        id: this.batchId,
        direction: first.direction === 'upload' ? 'put' : 'get',
        sources: this.jobs.map((j) => j.source),
        dest: first.dest,
        recursive: true,
        conflict: (target, files) => ask(this.tally.jobOfTarget(target), target, files),
      }, this.controller.signal);
      return { report };
    } catch (e) {
      return { failure: errorInfo(e) };
    }
  }
}
