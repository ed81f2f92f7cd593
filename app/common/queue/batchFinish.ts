/**
 * When to tell the user a batch finished (issue #14: "A desktop notification when a batch of more than a minute
 * finishes"): follows the queue's events and reports a batch once every job of it is finished (done, failed or
 * cancelled), if it took at least a minute from its first job's start to its last job's end.
 */
import { isFinished } from '../model/job';
import { batchJobs, summariseBatch, type BatchView } from './batches';
import { applyQueueEvents, emptyQueue, type QueueEvent, type QueueState } from './reducer';

/** A batch shorter than this (ms) finishes without a notification. */
export const NOTIFY_AFTER_MS = 60_000;

/** A finished batch worth telling about. */
export interface FinishedBatch {
  view: BatchView;
  /** From the first job's start to the last job's end, ms. */
  durationMs: number;
  done: number;
  failed: number;
  cancelled: number;
}

/** The batch ids an event names (a snapshot names none: batches already finished then are not news). */
function touched(state: QueueState, e: QueueEvent): string[] {
  if (e.type === 'added') return e.jobs.map((j) => j.batchId);
  if (e.type === 'updated') {
    const i = state.index.get(e.id);
    return i === undefined ? [] : [state.jobs[i].batchId];
  }
  return [];
}

export class BatchFinishWatch {
  private state: QueueState = emptyQueue;
  private readonly told = new Set<string>();

  /** @param minMs the shortest batch that is reported (ms) */
  constructor(private readonly minMs = NOTIFY_AFTER_MS) {}

  /**
   * Takes the queue's events in order; returns the batches that finished with them (each at most once, until one
   * of its jobs runs again: a retried batch is reported again when it finishes).
   */
  push(events: readonly QueueEvent[]): FinishedBatch[] {
    const batches = new Set<string>();
    for (const e of events) {
      this.state = applyQueueEvents(this.state, [e]);
      for (const b of touched(this.state, e)) batches.add(b);
      if (e.type === 'snapshot') for (const j of e.jobs) if (isFinished(j.state)) this.told.add(j.batchId);
    }
    const out: FinishedBatch[] = [];
    for (const b of batches) {
      const jobs = batchJobs(this.state, b);
      if (jobs.length === 0) continue;
      if (!jobs.every((j) => isFinished(j.state))) {
        this.told.delete(b);
        continue;
      }
      if (this.told.has(b)) continue;
      this.told.add(b);
      const starts = jobs.flatMap((j) => (j.startedAt === undefined ? [] : [j.startedAt]));
      const ends = jobs.flatMap((j) => (j.finishedAt === undefined ? [] : [j.finishedAt]));
      if (starts.length === 0 || ends.length === 0) continue;
      const durationMs = Math.max(...ends) - Math.min(...starts);
      if (durationMs < this.minMs) continue;
      const count = (s: string) => jobs.filter((j) => j.state === s).length;
      out.push({
        view: summariseBatch(jobs),
        durationMs,
        done: count('done'),
        failed: count('failed'),
        cancelled: count('cancelled'),
      });
    }
    return out;
  }
}
