/**
 * What the queue's pure rules answer (rules.ts for user intents, lifecycle.ts for engine facts): the events to apply
 * through the shared reducer, the side effects the service performs, or a refusal.
 */
import type { ErrorCode } from '../errors';
import type { Job } from '../model/job';
import type { JobPatch, QueueEvent } from './reducer';

/** Side effects the service performs after applying the events of a decision. */
export type QueueEffect =
  /**
   * Abort the job's running transfer; the job takes `as` when the transfer settles (or done, if it finished).
   * `queued`: the job goes back in line (its run was stopped for another job of the run, or the service is closing).
   */
  | { type: 'stop'; jobId: string; as: 'paused' | 'cancelled' | 'queued' }
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

/** No events, no effects. */
export const NO_CHANGE: QueueChange = { events: [], effects: [] };

/** One `updated` event for `job`, with `effects` after it. */
export function update(job: Job, patch: JobPatch, effects: QueueEffect[] = []): QueueChange {
  return { events: [{ type: 'updated', id: job.id, patch }], effects };
}

/** Concatenates changes, keeping events before effects and each list in order. */
export function merge(changes: readonly QueueChange[]): QueueChange {
  const effects: QueueEffect[] = [];
  const seen = new Set<string>();
  for (const c of changes) {
    for (const e of c.effects) {
      // One schedule per site is enough.
      const key = e.type === 'schedule' ? `schedule:${e.siteId}` : `stop:${e.jobId}`;
      if (!seen.has(key)) effects.push(e);
      seen.add(key);
    }
  }
  return { events: changes.flatMap((c) => c.events), effects };
}
