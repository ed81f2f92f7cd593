/**
 * A queue job: one top-level source (file or folder) transferred to one destination folder. The jobs of one
 * `queue.enqueue` form a batch, run as one engine transfer and shown as one row (queue/batches.ts).
 *
 * States and legal transitions (anything else is ignored by the reducer):
 * ```
 * queued  -> running | paused | cancelled | failed       (failed: its site could not be connected)
 * running -> done | failed | paused | cancelled | queued   (queued: re-queued after a lost connection)
 * paused  -> queued | cancelled                            (resume puts it back in line)
 * failed  -> queued | cancelled                            (retry)
 * cancelled -> queued                                      (retry)
 * done    -> (terminal)
 * ```
 */
export type JobState = 'queued' | 'running' | 'paused' | 'done' | 'failed' | 'cancelled';

export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'paused', 'done', 'failed', 'cancelled'];

/** `upload` = local -> remote (SFTP put), `download` = remote -> local (SFTP get). */
export type Direction = 'upload' | 'download';

export interface Job {
  id: string;
  /** Jobs created by one `queue.enqueue` call share a batch; "for all" conflict answers apply per batch. */
  batchId: string;
  siteId: string;
  direction: Direction;
  /** Absolute source path (local for upload, remote for download). */
  source: string;
  /** Absolute destination folder (remote for upload, local for download). */
  dest: string;
  /** Base name shown in the queue. */
  name: string;
  state: JobState;
  /** Bytes moved so far / expected total (0 until planned). */
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
  /** Of `filesDone`, the files skipped (an existing target the user chose to keep, a special file): absent = 0. */
  filesSkipped?: number;
  /** Windowed rate in bytes/s (0 when not running). */
  rate: number;
  /** Present when `state === 'failed'` (or a file inside failed). */
  error?: { code: string; message: string };
  /** Milliseconds since the epoch. */
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  /**
   * Set when a run resumed the job: the bytes its batch had already done when that run started (earlier runs'
   * committed files and durable partial ranges), shown as "resumed from X". Not stored: a run sets or clears it.
   */
  resumedFrom?: number;
}

const TRANSITIONS: Readonly<Record<JobState, readonly JobState[]>> = {
  queued: ['running', 'paused', 'cancelled', 'failed'],
  running: ['done', 'failed', 'paused', 'cancelled', 'queued'],
  paused: ['queued', 'cancelled'],
  failed: ['queued', 'cancelled'],
  cancelled: ['queued'],
  done: [],
};

/** True when a job may move from `from` to `to` (same state counts as legal: a no-op). */
export function canTransition(from: JobState, to: JobState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/** True for states a job will not leave without a user action. */
export function isFinished(state: JobState): boolean {
  return state === 'done' || state === 'failed' || state === 'cancelled';
}

/** Seconds until done at the current rate, or undefined when unknown. */
export function etaSeconds(job: Pick<Job, 'bytesDone' | 'bytesTotal' | 'rate'>): number | undefined {
  if (job.rate <= 0 || job.bytesTotal <= 0) return undefined;
  return Math.max(0, (job.bytesTotal - job.bytesDone) / job.rate);
}
