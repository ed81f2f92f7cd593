/**
 * Intents aimed at several jobs at once: a batch's row buttons (pause, resume, retry, cancel on `{batchId}`), and
 * pause all, resume all and retry failed, for the whole queue or one site. Each is decided job by job with the
 * per-job table (jobRules.ts): the jobs that accept it take it, the others are left alone, and the intent is refused
 * only when no job would change.
 */
import type { Job } from '../model/job';
import { batchJobs, batchState } from './batches';
import { merge, type QueueChange, type Refusal } from './change';
import { canJob, jobChange, JOB_INTENTS, type JobIntentType } from './jobRules';
import type { QueueState } from './reducer';

/** A job intent for every job of a batch (the batch's row). */
export interface BatchIntent {
  type: JobIntentType;
  batchId: string;
}

/** Pause every queued or running job, resume every paused one, retry every failed one (not the cancelled). */
export type BulkIntentType = 'pauseAll' | 'resumeAll' | 'retryFailed';

/** A bulk intent over the whole queue, or over one site's jobs. */
export interface BulkIntent {
  type: BulkIntentType;
  siteId?: string;
}

const BULK: Readonly<Record<BulkIntentType, { intent: JobIntentType; which: string; applies: (j: Job) => boolean }>> = {
  pauseAll: { intent: 'pause', which: 'queued or running jobs to pause', applies: (j) => canJob(j, 'pause') },
  resumeAll: { intent: 'resume', which: 'paused jobs to resume', applies: (j) => canJob(j, 'resume') },
  retryFailed: { intent: 'retry', which: 'failed jobs to retry', applies: (j) => j.state === 'failed' },
};

/** The intents a batch's row offers (those at least one of its jobs accepts), in button order. */
export function allowedBatchIntents(jobs: readonly Job[]): JobIntentType[] {
  return JOB_INTENTS.filter((intent) => jobs.some((j) => canJob(j, intent)));
}

/** Why a batch intent is refused, or undefined. */
export function batchRefusal(state: QueueState, intent: BatchIntent): Refusal | undefined {
  const jobs = batchJobs(state, intent.batchId);
  if (jobs.length === 0) return { code: 'NOT_FOUND', message: `No batch ${intent.batchId}` };
  if (jobs.some((j) => canJob(j, intent.type))) return undefined;
  return { code: 'INVALID_STATE', message: `Cannot ${intent.type} a ${batchState(jobs)} batch` };
}

/** What an accepted batch intent does: the per-job change of each job that accepts it. */
export function batchChange(state: QueueState, intent: BatchIntent, now: number): QueueChange {
  return merge(
    batchJobs(state, intent.batchId)
      .filter((j) => canJob(j, intent.type))
      .map((j) => jobChange(j, intent.type, now)),
  );
}

/** The jobs a bulk intent changes, in queue order. */
export function bulkTargets(state: QueueState, intent: BulkIntent): Job[] {
  const rule = BULK[intent.type];
  return state.jobs.filter((j) => (intent.siteId === undefined || j.siteId === intent.siteId) && rule.applies(j));
}

/** Why a bulk intent is refused (nothing it would change), or undefined. */
export function bulkRefusal(state: QueueState, intent: BulkIntent): Refusal | undefined {
  if (bulkTargets(state, intent).length > 0) return undefined;
  return {
    code: 'INVALID_STATE',
    message: `No ${BULK[intent.type].which}${intent.siteId === undefined ? '' : ' on this site'}`,
  };
}

/** What an accepted bulk intent does. */
export function bulkChange(state: QueueState, intent: BulkIntent, now: number): QueueChange {
  const { intent: perJob } = BULK[intent.type];
  return merge(bulkTargets(state, intent).map((j) => jobChange(j, perJob, now)));
}
