/**
 * Batches: the jobs of one `queue.enqueue` (one drop of files and folders) share a batch, which the service runs as
 * one engine transfer and the queue view shows as one row that expands into its files. A batch's state and counters
 * are summed from its jobs here, for the renderer's rows and for the rules of intents aimed at a batch.
 */
import type { Job, JobState } from '../model/job';
import type { QueueState } from './reducer';

/** One row of the queue view: a batch summed over its jobs. */
export interface BatchView {
  batchId: string;
  /** The batch's jobs in queue order (never empty). */
  jobs: readonly Job[];
  /** The only job's name, or `first and N more`. */
  name: string;
  /** The state that matters most among the jobs' (see {@link batchState}). */
  state: JobState;
  siteId: string;
  direction: Job['direction'];
  dest: string;
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
  filesSkipped: number;
  /** bytes/s of the running jobs. */
  rate: number;
  /** The first failed job's error. */
  error?: Job['error'];
  /** The batch's latest run resumed with this many bytes already done (its jobs' `resumedFrom`). */
  resumedFrom?: number;
}

/** Which state a batch shows: the first of these that one of its jobs is in. */
const PRECEDENCE: readonly JobState[] = ['running', 'queued', 'paused', 'failed', 'cancelled', 'done'];

/** The state a batch shows: running before queued, paused, failed, cancelled, and done only when every job is. */
export function batchState(jobs: readonly Pick<Job, 'state'>[]): JobState {
  const present = new Set(jobs.map((j) => j.state));
  return PRECEDENCE.find((s) => present.has(s)) ?? 'done';
}

/** Each queue state's jobs grouped by batch, built once per state (states are immutable). */
const groupsOf = new WeakMap<QueueState, Map<string, Job[]>>();

function groups(state: QueueState): Map<string, Job[]> {
  let g = groupsOf.get(state);
  if (!g) {
    g = new Map();
    for (const j of state.jobs) {
      const list = g.get(j.batchId);
      if (list) list.push(j);
      else g.set(j.batchId, [j]);
    }
    groupsOf.set(state, g);
  }
  return g;
}

/** The jobs of a batch, in queue order (empty for an unknown batch). Do not change the array. */
export function batchJobs(state: QueueState, batchId: string): readonly Job[] {
  return groups(state).get(batchId) ?? [];
}

/** A batch's row from its jobs (queue order, at least one). */
export function summariseBatch(jobs: readonly Job[]): BatchView {
  const first = jobs[0];
  const view: BatchView = {
    batchId: first.batchId,
    jobs,
    name: jobs.length === 1 ? first.name : `${first.name} and ${jobs.length - 1} more`,
    state: batchState(jobs),
    siteId: first.siteId,
    direction: first.direction,
    dest: first.dest,
    bytesDone: 0,
    bytesTotal: 0,
    filesDone: 0,
    filesTotal: 0,
    filesSkipped: 0,
    rate: 0,
  };
  for (const j of jobs) {
    view.bytesDone += j.bytesDone;
    view.bytesTotal += j.bytesTotal;
    view.filesDone += j.filesDone;
    view.filesTotal += j.filesTotal;
    view.filesSkipped += j.filesSkipped ?? 0;
    if (j.state === 'running') view.rate += j.rate;
    if (!view.error && j.state === 'failed' && j.error) view.error = j.error;
    if (j.resumedFrom !== undefined && j.resumedFrom > (view.resumedFrom ?? 0)) view.resumedFrom = j.resumedFrom;
  }
  return view;
}

/**
 * What a batch has done when a run of its jobs `runIds` starts: the bytes of its other jobs (done, or waiting
 * elsewhere) and what the run's jobs start from (`durable`: their earlier runs' durable bytes; absent = 0).
 * More than 0: the run resumes the batch.
 */
export function bytesBeforeRun(
  jobs: readonly Job[],
  runIds: ReadonlySet<string>,
  durable: ReadonlyMap<string, number>,
): number {
  let bytes = 0;
  for (const j of jobs) bytes += runIds.has(j.id) ? (durable.get(j.id) ?? 0) : j.bytesDone;
  return bytes;
}

function sameJobs(a: readonly Job[], b: readonly Job[]): boolean {
  return a.length === b.length && a.every((j, i) => j === b[i]);
}

/**
 * The queue's batches in queue order (a batch sits where its first job is). A view of `previous` whose jobs are all
 * unchanged is returned as the same object, so a row memoized on it re-renders only when its batch changed.
 */
export function batchViews(state: QueueState, previous?: ReadonlyMap<string, BatchView>): Map<string, BatchView> {
  const out = new Map<string, BatchView>();
  for (const [id, jobs] of groups(state)) {
    const old = previous?.get(id);
    out.set(id, old && sameJobs(old.jobs, jobs) ? old : summariseBatch(jobs));
  }
  return out;
}

/** True when every file of a finished batch was skipped (it shows as skipped, not done). */
export function allSkipped(v: Pick<BatchView, 'state' | 'filesSkipped' | 'filesTotal'>): boolean {
  return v.state === 'done' && v.filesSkipped > 0 && v.filesSkipped >= v.filesTotal;
}
