/**
 * The rows of a sync batch written after its first copies started (enqueue.ts SyncBatchInput.bookFirst): the run
 * holds claims for every job at once (ids and lease tokens made in memory) and writes the rows left a slice per
 * transaction, between the network's events, instead of blocking the event loop before the first copy (2,000 rows:
 * 0.2–0.4 s on a loaded machine). Until the last slice is written the batch's steps job carries `booking`, so no
 * runner deletes for it (sync/runBatch.ts runSyncSteps) and a run killed meanwhile leaves a batch that the next plan
 * takes over (its booked copies kept, the others queued afresh).
 */
import { randomUUID } from 'node:crypto';
import type { Claim } from '../stores/jobClaim';
import type { LeaseOwner } from '../stores/lease';
import type { QueueStore } from '../stores/queueStore';
import { formatTarget, parseTarget, type NewJob, type QueuedJob } from '../stores/queueRows';

/** Rows written per transaction: ~15 ms of the event loop on a loaded machine. */
export const BOOKING_SLICE = 128;

/** What is left to write of a batch booked in part. */
export interface RestBooking {
  /** Writes the next slice (one transaction); the last one also clears the steps job's `booking`. @returns done */
  step(): boolean;
  /** Writes the rows up to this job's, at once (the journal, before it names the job's temporary file). */
  upTo(jobId: string): void;
  /** Writes every row left, at once (before the copies are settled). */
  all(): void;
  readonly done: boolean;
}

/** A claim for a job whose row is not written yet, as the store will hold it (`running` under `owner`'s lease). */
function pendingClaim(job: NewJob & { id: string }, batchId: string, owner: LeaseOwner, now: number): Claim {
  const queued: QueuedJob = {
    id: job.id,
    batchId,
    target: parseTarget(formatTarget(job.target)),
    direction: job.direction,
    source: job.source,
    dest: job.dest,
    priority: job.priority ?? 0,
    position: 0,
    conflict: job.conflict ?? 'ask',
    options: job.options ?? {},
    state: 'running',
    startedAt: now,
    bytesDone: 0,
    bytesTotal: 0,
    filesDone: 0,
    filesTotal: 0,
    createdAt: now,
  };
  return {
    job: queued,
    lease: { jobId: job.id, token: randomUUID(), owner, acquiredAt: now, heartbeatAt: now },
    ranBefore: false,
  };
}

/**
 * Claims for `rest` now, their rows later: each claim object is updated in place with the stored job once written.
 * @param stepsId the batch's steps job (stored with `booking: true`)
 * @param slice rows per transaction
 */
export function bookLater(
  store: QueueStore,
  rest: readonly NewJob[],
  batchId: string,
  stepsId: string,
  owner: LeaseOwner,
  slice = BOOKING_SLICE,
): { claims: Claim[]; booking: RestBooking } {
  const now = Date.now();
  const jobs = rest.map((j) => ({ ...j, id: j.id ?? randomUUID() }));
  const claims = jobs.map((j) => pendingClaim(j, batchId, owner, now));
  let next = 0;
  const step = (): boolean => {
    if (next >= jobs.length) return true;
    const start = next;
    const end = Math.min(jobs.length, start + Math.max(1, slice));
    store.q.write(() => {
      const tokens = claims.slice(start, end).map((c) => c.lease.token);
      const stored = store.addClaimedBatch(jobs.slice(start, end), batchId, owner, tokens);
      stored.forEach((c, i) => Object.assign(claims[start + i], c));
      if (end === jobs.length) store.jobs.mergeOptions(stepsId, { sync: { booking: false } });
    });
    next = end;
    return next >= jobs.length;
  };
  const at = new Map(jobs.map((j, i) => [j.id, i] as const));
  const booking: RestBooking = {
    step,
    upTo: (jobId) => {
      const i = at.get(jobId);
      while (i !== undefined && next <= i) step();
    },
    all: () => {
      while (!step());
    },
    get done() {
      return next >= jobs.length;
    },
  };
  return { claims, booking };
}

/**
 * Writes the rows left a slice per turn of the event loop (setImmediate: the network's events run between slices).
 * @returns stops it (rows not written by then stay unwritten: the batch keeps `booking` for the next run)
 */
export function bookInBackground(rest: RestBooking): () => void {
  let next: NodeJS.Immediate | undefined;
  const slice = (): void => {
    next = rest.step() ? undefined : setImmediate(slice);
  };
  next = setImmediate(slice);
  return () => {
    if (next) clearImmediate(next);
    next = undefined;
  };
}
