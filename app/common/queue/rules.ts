/**
 * The queue's rules for user intents, as pure functions: an intent (one of the contract's `queue.*` requests) against
 * a {@link QueueState} gives either the {@link QueueEvent}s that carry it out plus the side effects the service must
 * perform (abort a running transfer, start queued jobs), or a {@link Refusal} the service turns into a SluiceError.
 *
 * The service obeys {@link decide}; the renderer enables its buttons with {@link can}, `allowedIntents` and
 * `allowedBatchIntents`, which run the same checks, so a button is enabled exactly when the engine would accept the
 * intent (should the state change in between, the engine's refusal is what counts). An intent that would change
 * nothing is refused.
 *
 * The per-job table is jobRules.ts; intents on a batch (a row), a site or the whole queue are decided job by job with
 * it (groupRules.ts); reordering moves a batch as a block (order.ts).
 */
import type { Direction, Job } from '../model/job';
import type { Decision, QueueChange, Refusal } from './change';
import { batchChange, batchRefusal, bulkChange, bulkRefusal, type BatchIntent, type BulkIntent } from './groupRules';
import { isClearable, jobChange, jobRefusal, type JobIntentType } from './jobRules';
import { moveChange, moveRefusal, type MoveIntent } from './order';
import { getJob, type QueueState } from './reducer';

export type { Decision, QueueChange, QueueEffect, Refusal } from './change';
export { JOB_INTENTS, allowedIntents, canJob, isClearable, jobRefusal, type JobIntentType } from './jobRules';
export { allowedBatchIntents, type BatchIntent, type BulkIntent, type BulkIntentType } from './groupRules';
export type { BatchPlace, MoveIntent } from './order';

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
export type QueueIntent =
  | { type: JobIntentType; jobId: string }
  | BatchIntent
  | BulkIntent
  | MoveIntent
  | { type: 'clearFinished' }
  | EnqueueIntent;

/** Why `intent` is refused in this queue, or undefined when it is allowed. */
export function refusal(state: QueueState, intent: QueueIntent): Refusal | undefined {
  switch (intent.type) {
    case 'clearFinished':
      return state.jobs.some(isClearable) ? undefined : { code: 'INVALID_STATE', message: 'No finished jobs to clear' };
    case 'enqueue':
      return enqueueRefusal(state, intent);
    case 'move':
      return moveRefusal(state, intent);
    case 'pauseAll':
    case 'resumeAll':
    case 'retryFailed':
      return bulkRefusal(state, intent);
    default: {
      if ('batchId' in intent) return batchRefusal(state, intent);
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
  return { ok: true, ...change(state, intent, now) };
}

function change(state: QueueState, intent: QueueIntent, now: number): QueueChange {
  switch (intent.type) {
    case 'clearFinished':
      return { events: [{ type: 'removed', ids: state.jobs.filter(isClearable).map((j) => j.id) }], effects: [] };
    case 'enqueue':
      return {
        events: [{ type: 'added', jobs: newJobs(intent, now) }],
        effects: [{ type: 'schedule', siteId: intent.siteId }],
      };
    case 'move':
      return moveChange(state, intent);
    case 'pauseAll':
    case 'resumeAll':
    case 'retryFailed':
      return bulkChange(state, intent, now);
    default:
      if ('batchId' in intent) return batchChange(state, intent, now);
      return jobChange(getJob(state, intent.jobId)!, intent.type, now);
  }
}

function enqueueRefusal(state: QueueState, intent: EnqueueIntent): Refusal | undefined {
  if (intent.sources.length === 0) return { code: 'INVALID_REQUEST', message: 'Nothing to enqueue' };
  if (intent.jobIds.length !== intent.sources.length || new Set(intent.jobIds).size !== intent.jobIds.length) {
    return { code: 'INVALID_REQUEST', message: 'One distinct job id per source is needed' };
  }
  const taken = intent.jobIds.find((id) => state.index.has(id));
  if (taken !== undefined) return { code: 'INVALID_STATE', message: `Job ${taken} is already in the queue` };
  return state.jobs.some((j) => j.batchId === intent.batchId)
    ? { code: 'INVALID_STATE', message: `Batch ${intent.batchId} is already in the queue` }
    : undefined;
}

function newJobs(intent: EnqueueIntent, now: number): Job[] {
  return intent.sources.map((source, i) => ({
    id: intent.jobIds[i],
    batchId: intent.batchId,
    siteId: intent.siteId,
    direction: intent.direction,
    source,
    dest: intent.dest,
    name: jobName(source),
    state: 'queued',
    bytesDone: 0,
    bytesTotal: 0,
    filesDone: 0,
    filesTotal: 0,
    rate: 0,
    createdAt: now,
  }));
}

/** The name a source is shown under: its last path segment (`/` or `\` separated), else the source itself. */
export function jobName(source: string): string {
  const trimmed = source.replace(/\\/g, '/').replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || source;
}
