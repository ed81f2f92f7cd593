/**
 * The queue's rules for what the engine reports (a job started, a transfer settled, a site was lost or could not be
 * connected) and its scheduling, as pure functions beside the user intents of rules.ts. Facts are never refused:
 * one that no longer applies (a settle for a job that is not running any more) gives no events.
 *
 * Scheduling works in runs: the queued jobs of one batch start together as one engine transfer
 * ({@link batchesToStart}); the jobs of a run still settle one by one, each with its own outcome.
 */
import type { Job } from '../model/job';
import type { QueueChange, QueueEffect } from './change';
import { getJob, type JobPatch, type QueueEvent, type QueueState } from './reducer';

/** Jobs whose transfer is still in flight (started and not yet finished off), e.g. the service's running map. */
export interface InFlight {
  has(jobId: string): boolean;
  keys(): Iterable<string>;
}

/** An error as a job carries it. */
export interface JobError {
  code: string;
  message: string;
}

/** How a job's transfer ended. */
export type JobOutcome =
  /** Every file went through (or was skipped by a conflict answer: `skipped` of `files`). */
  | { state: 'done'; files: number; bytes: number; skipped?: number }
  | { state: 'failed'; error: JobError }
  /** Aborted for a `stop` effect; `queued`: back in line (another job of its run was stopped, the service closes). */
  | { state: 'paused' | 'cancelled' | 'queued' };

/** What the engine reports to the queue. */
export type QueueFact =
  /**
   * The service starts a queued job's transfer. `bytesDone`: what the job's earlier runs left durably done (its
   * journal), which the run starts from; `resumedFrom`: the bytes its batch had done when the run started, when the run
   * resumes (see batches.ts `bytesBeforeRun`).
   */
  | { type: 'started'; jobId: string; bytesDone?: number; resumedFrom?: number }
  | { type: 'settled'; jobId: string; outcome: JobOutcome }
  /** The site is disconnecting: its running jobs are stopped as paused, its queued ones pause. */
  | { type: 'siteLost'; siteId: string }
  /**
   * Starting `jobId` could not connect its site: no queued job of the site can run either, so they fail together
   * instead of reconnecting per job (those still `inFlight` settle on their own).
   */
  | { type: 'siteUnreachable'; siteId: string; jobId: string; error: JobError; inFlight: InFlight };

/** The events and effects that follow from `fact`; `now` (ms since the epoch) stamps them. */
export function follow(state: QueueState, fact: QueueFact, now: number): QueueChange {
  switch (fact.type) {
    case 'started': {
      const job = getJob(state, fact.jobId);
      if (job?.state !== 'queued') return { events: [], effects: [] };
      const patch: JobPatch = {
        state: 'running',
        startedAt: now,
        error: undefined,
        resumedFrom: fact.resumedFrom || undefined,
      };
      if (fact.bytesDone !== undefined) patch.bytesDone = fact.bytesDone;
      return { events: [updated(job, patch)], effects: [] };
    }
    case 'settled': {
      const job = getJob(state, fact.jobId);
      if (job?.state !== 'running') return { events: [], effects: [] };
      return { events: [updated(job, settledPatch(job, fact.outcome, now))], effects: [] };
    }
    case 'siteLost': {
      const jobs = state.jobs.filter((j) => j.siteId === fact.siteId);
      return {
        events: jobs.filter((j) => j.state === 'queued').map((j) => updated(j, { state: 'paused' })),
        effects: jobs
          .filter((j) => j.state === 'running')
          .map((j): QueueEffect => ({ type: 'stop', jobId: j.id, as: 'paused' })),
      };
    }
    case 'siteUnreachable': {
      const failing = state.jobs.filter(
        (j) => j.siteId === fact.siteId && (j.id === fact.jobId || (j.state === 'queued' && !fact.inFlight.has(j.id))),
      );
      return {
        events: failing.map((j) => updated(j, { state: 'failed', rate: 0, finishedAt: now, error: fact.error })),
        effects: [],
      };
    }
  }
}

function updated(job: Job, patch: JobPatch): QueueEvent {
  return { type: 'updated', id: job.id, patch };
}

function settledPatch(job: Job, outcome: JobOutcome, now: number): JobPatch {
  switch (outcome.state) {
    case 'done':
      return {
        state: 'done',
        rate: 0,
        finishedAt: now,
        filesDone: outcome.files,
        bytesDone: Math.max(job.bytesDone, outcome.bytes),
        bytesTotal: Math.max(job.bytesTotal, outcome.bytes),
        ...(outcome.skipped ? { filesSkipped: outcome.skipped } : {}),
      };
    case 'failed':
      return { state: 'failed', rate: 0, finishedAt: now, error: outcome.error };
    case 'paused':
      return { state: 'paused', rate: 0 };
    case 'cancelled':
      return { state: 'cancelled', rate: 0, finishedAt: now };
    case 'queued':
      return { state: 'queued', rate: 0 };
  }
}

/**
 * The queued jobs of `siteId` to start now, in queue order, so that at most `limit` of the site's jobs are in flight
 * (a job counts from its start until its transfer is finished off, even once its state has settled).
 */
export function jobsToStart(state: QueueState, siteId: string, limit: number, inFlight: InFlight): Job[] {
  let active = 0;
  for (const id of inFlight.keys()) if (getJob(state, id)?.siteId === siteId) active++;
  const out: Job[] = [];
  for (const job of state.jobs) {
    if (active + out.length >= limit) break;
    if (job.siteId === siteId && job.state === 'queued' && !inFlight.has(job.id)) out.push(job);
  }
  return out;
}

/**
 * The runs of `siteId` to start now: each is the queued jobs of one batch (in queue order) that are not in flight,
 * batches taken in queue order, so that at most `limit` runs of the site are in flight. A batch with a job still in
 * flight waits for that run to finish (one run per batch at a time; its queued jobs join the next run).
 */
export function batchesToStart(state: QueueState, siteId: string, limit: number, inFlight: InFlight): Job[][] {
  const busy = new Set<string>();
  for (const id of inFlight.keys()) {
    const j = getJob(state, id);
    if (j?.siteId === siteId) busy.add(j.batchId);
  }
  const runs = new Map<string, Job[]>();
  for (const job of state.jobs) {
    if (job.siteId !== siteId || job.state !== 'queued' || inFlight.has(job.id) || busy.has(job.batchId)) continue;
    const run = runs.get(job.batchId);
    if (run) run.push(job);
    else if (busy.size + runs.size < limit) runs.set(job.batchId, [job]);
  }
  return [...runs.values()];
}
