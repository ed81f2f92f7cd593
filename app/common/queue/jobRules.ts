/**
 * The per-job table of the queue's user intents (pause, resume, retry, cancel): in which states each is accepted and
 * what it does (see the lifecycle in model/job.ts). Intents on a batch, a site or the whole queue (groupRules.ts)
 * are decided job by job with this same table.
 */
import type { Job, JobState } from '../model/job';
import { update, type QueueChange, type QueueEffect, type Refusal } from './change';

/** Intents aimed at one job (or each job of a group), in the order the queue shows their buttons. */
export const JOB_INTENTS = ['pause', 'resume', 'retry', 'cancel'] as const;

/** `queue.pause`, `queue.resume`, `queue.cancel`, `queue.retry`. */
export type JobIntentType = (typeof JOB_INTENTS)[number];

interface JobRule {
  /** States in which the intent is accepted. */
  from: readonly JobState[];
  change(job: Job, now: number): QueueChange;
}

const stop = (job: Job, as: 'paused' | 'cancelled'): QueueChange => ({
  events: [],
  effects: [{ type: 'stop', jobId: job.id, as }],
});
const schedule = (job: Job): QueueEffect[] => [{ type: 'schedule', siteId: job.siteId }];

/**
 * The per-job rules. A running job is never moved by the intent itself: its transfer is aborted and the job takes
 * its new state when the transfer settles.
 */
const JOB_RULES: Readonly<Record<JobIntentType, JobRule>> = {
  pause: {
    from: ['queued', 'running'],
    change: (job) => (job.state === 'running' ? stop(job, 'paused') : update(job, { state: 'paused' })),
  },
  resume: {
    from: ['paused'],
    change: (job) => update(job, { state: 'queued' }, schedule(job)),
  },
  cancel: {
    from: ['queued', 'running', 'paused', 'failed'],
    change: (job, now) =>
      job.state === 'running' ? stop(job, 'cancelled') : update(job, { state: 'cancelled', rate: 0, finishedAt: now }),
  },
  retry: {
    from: ['failed', 'cancelled'],
    change: (job) => update(job, { state: 'queued', error: undefined, rate: 0, finishedAt: undefined }, schedule(job)),
  },
};

/** Why `intent` is refused for this job, or undefined when it is allowed. */
export function jobRefusal(job: Job, intent: JobIntentType): Refusal | undefined {
  if (JOB_RULES[intent].from.includes(job.state)) return undefined;
  return { code: 'INVALID_STATE', message: `Cannot ${intent} a ${job.state} job` };
}

/** True when the engine accepts `intent` for this job in its current state. */
export function canJob(job: Job, intent: JobIntentType): boolean {
  return jobRefusal(job, intent) === undefined;
}

/** The intents the engine accepts for this job, in button order. */
export function allowedIntents(job: Job): JobIntentType[] {
  return JOB_INTENTS.filter((intent) => canJob(job, intent));
}

/** What an accepted `intent` does to `job` (call only when {@link canJob}). */
export function jobChange(job: Job, intent: JobIntentType, now: number): QueueChange {
  return JOB_RULES[intent].change(job, now);
}

/** Jobs `clearFinished` removes: done and cancelled (a failed job stays until it is retried or cancelled). */
export function isClearable(job: Job): boolean {
  return job.state === 'done' || job.state === 'cancelled';
}
