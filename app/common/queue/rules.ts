/**
 * The queue's rules for user intents, as pure functions: an intent (one of the contract's `queue.*` requests) against
 * a {@link QueueState} gives either the {@link QueueEvent}s that carry it out plus the side effects the service must
 * perform (abort a running transfer, start queued jobs), or a {@link Refusal} the service turns into a SluiceError.
 *
 * The service obeys {@link decide}; the renderer enables its buttons with {@link allowedIntents} and {@link can},
 * which run the same checks, so a button is enabled exactly when the engine would accept the intent (should the
 * state change in between, the engine's refusal is what counts). An intent that would change nothing is refused.
 *
 * Extending (issue #14): an intent on several jobs (a batch) is decided per job with the same table; reordering is a
 * new intent type (`move`, with the job and `top` / `bottom` / an index) whose event the reducer learns.
 */
import type { ErrorCode } from '../errors';
import type { Direction, Job, JobState } from '../model/job';
import { getJob, type JobPatch, type QueueEvent, type QueueState } from './reducer';

/** Intents aimed at one job, in the order the queue shows their buttons. */
export const JOB_INTENTS = ['pause', 'resume', 'retry', 'cancel'] as const;

/** `queue.pause`, `queue.resume`, `queue.cancel`, `queue.retry`. */
export type JobIntentType = (typeof JOB_INTENTS)[number];

/** `queue.enqueue`, with the ids the service drew: one job per source, all in one batch. */
export interface EnqueueIntent {
  type: 'enqueue';
  siteId: string;
  direction: Direction;
  sources: readonly string[];
  dest: string;
  batchId: string;
  /** One fresh id per source, in the same order. */
  jobIds: readonly string[];
}

/** What a user may ask of the queue. */
export type QueueIntent = { type: JobIntentType; jobId: string } | { type: 'clearFinished' } | EnqueueIntent;

/** Side effects the service performs after applying the events of a decision. */
export type QueueEffect =
  /** Abort the job's running transfer; the job takes `as` when the transfer settles (or done, if it finished). */
  | { type: 'stop'; jobId: string; as: 'paused' | 'cancelled' }
  /** Queued jobs of the site may start now. */
  | { type: 'schedule'; siteId: string };

/** Why an intent is refused; the service throws it as a SluiceError with the same code and message. */
export interface Refusal {
  code: Extract<ErrorCode, 'NOT_FOUND' | 'INVALID_STATE' | 'INVALID_REQUEST'>;
  message: string;
}

/** Events to apply (through the shared reducer) and effects to perform, in this order. */
export interface QueueChange {
  events: QueueEvent[];
  effects: QueueEffect[];
}

/** The answer to an intent. */
export type Decision = ({ ok: true } & QueueChange) | { ok: false; refusal: Refusal };

interface JobRule {
  /** States in which the intent is accepted. */
  from: readonly JobState[];
  change(job: Job, now: number): QueueChange;
}

const update = (job: Job, patch: JobPatch, effects: QueueEffect[] = []): QueueChange => ({
  events: [{ type: 'updated', id: job.id, patch }],
  effects,
});
const stop = (job: Job, as: 'paused' | 'cancelled'): QueueChange => ({ events: [], effects: [{ type: 'stop', jobId: job.id, as }] });
const schedule = (job: Job): QueueEffect[] => [{ type: 'schedule', siteId: job.siteId }];

/**
 * The per-job rules (see the lifecycle in model/job.ts). A running job is never moved by the intent itself: its
 * transfer is aborted and the job takes its new state when the transfer settles.
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
    change: (job, now) => (job.state === 'running' ? stop(job, 'cancelled') : update(job, { state: 'cancelled', rate: 0, finishedAt: now })),
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

/** Jobs `clearFinished` removes: done and cancelled (a failed job stays until it is retried or cancelled). */
export function isClearable(job: Job): boolean {
  return job.state === 'done' || job.state === 'cancelled';
}

/** Why `intent` is refused in this queue, or undefined when it is allowed. */
export function refusal(state: QueueState, intent: QueueIntent): Refusal | undefined {
  switch (intent.type) {
    case 'clearFinished':
      return state.jobs.some(isClearable) ? undefined : { code: 'INVALID_STATE', message: 'No finished jobs to clear' };
    case 'enqueue':
      return enqueueRefusal(state, intent);
    default: {
      const job = getJob(state, intent.jobId);
      return job ? jobRefusal(job, intent.type) : { code: 'NOT_FOUND', message: `No job ${intent.jobId}` };
    }
  }
}

/** True when the engine accepts `intent` in this queue (what the renderer enables a control with). */
export function can(state: QueueState, intent: QueueIntent): boolean {
  return refusal(state, intent) === undefined;
}

/** Decides `intent` against `state`; `now` (ms since the epoch) stamps the events that need a time. */
export function decide(state: QueueState, intent: QueueIntent, now = 0): Decision {
  const refused = refusal(state, intent);
  if (refused) return { ok: false, refusal: refused };
  switch (intent.type) {
    case 'clearFinished':
      return { ok: true, events: [{ type: 'removed', ids: state.jobs.filter(isClearable).map((j) => j.id) }], effects: [] };
    case 'enqueue':
      return { ok: true, events: [{ type: 'added', jobs: newJobs(intent, now) }], effects: [{ type: 'schedule', siteId: intent.siteId }] };
    default: {
      const job = getJob(state, intent.jobId)!;
      return { ok: true, ...JOB_RULES[intent.type].change(job, now) };
    }
  }
}

function enqueueRefusal(state: QueueState, intent: EnqueueIntent): Refusal | undefined {
  if (intent.sources.length === 0) return { code: 'INVALID_REQUEST', message: 'Nothing to enqueue' };
  if (intent.jobIds.length !== intent.sources.length || new Set(intent.jobIds).size !== intent.jobIds.length) {
    return { code: 'INVALID_REQUEST', message: 'One distinct job id per source is needed' };
  }
  const taken = intent.jobIds.find((id) => state.index.has(id));
  return taken === undefined ? undefined : { code: 'INVALID_STATE', message: `Job ${taken} is already in the queue` };
}

function newJobs(intent: EnqueueIntent, now: number): Job[] {
  return intent.sources.map((source, i) => ({
    id: intent.jobIds[i], batchId: intent.batchId, siteId: intent.siteId, direction: intent.direction, source, dest: intent.dest,
    name: jobName(source), state: 'queued', bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0, rate: 0, createdAt: now,
  }));
}

/** The name a source is shown under: its last path segment (`/` or `\` separated), else the source itself. */
export function jobName(source: string): string {
  const trimmed = source.replace(/\\/g, '/').replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || source;
}
