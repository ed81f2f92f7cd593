/**
 * A sync plan (plan.ts) as ONE batch of the persistent queue (stores/queueStore.ts), which the app's queue, `sluice
 * queue run` and `sluice sync` all run the same way (sync/runBatch.ts):
 *
 * - every file to create or update is an ordinary job (`upload` or `download`): its source file, the folder it goes
 *   into (`dest`, as the app's jobs name their destination folder), `conflict: 'overwrite'` (the plan decided), and
 *   in `options.sync` ({@link SyncCopyOptions}) the size and time the plan saw, so that a run hands the engine the
 *   file as listed (no STAT of each source again) and the journal resumes it like any get/put;
 * - one more job, the batch's steps ({@link SyncStepsOptions}): `source` SRC's root, `dest` DEST's root, and the
 *   folders to create (before any copy runs) and the paths to delete or move to the backup folder. Its deletions run
 *   only once every copy job of the batch is `done`, and only when the plan's listings of both sides completed
 *   without an error (planSync withholds deletions otherwise, and this module refuses a plan that still has them).
 *
 * A batch of the same sync (same server, direction and roots) left unfinished by an interrupted run can be taken
 * over by a new plan of it ({@link SyncBatchInput.takeOver}): its copy jobs the new plan still has keep their ids,
 * file rows and durable ranges, so their partial copies resume instead of starting over.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Direction } from '../../common/model/job';
import { SluiceError } from '../errors';
import { currentOwner, type LeaseOwner } from '../stores/lease';
import type { Claim } from '../stores/jobClaim';
import type { QueueStore } from '../stores/queueStore';
import { formatTarget, type JobOptions, type JobTarget, type NewJob, type QueuedJob } from '../stores/queueRows';
import type { SyncPlan } from './plan';
import { bookLater, type RestBooking } from './restBooking';

/** `options.sync` of a copy job of a sync batch. */
export interface SyncCopyOptions {
  role: 'copy';
  /** The path relative to both roots, `/`-separated. */
  rel: string;
  /** The source's size (bytes) and modification time (ms since epoch) as the plan listed them. */
  size: number;
  mtimeMs: number;
  /** True when the copy replaces a file DEST has (an update): with a backup folder, that file is moved there first. */
  replaces: boolean;
}

/** A path of DEST the batch deletes (or moves to the backup folder). */
export interface SyncDeletion {
  rel: string;
  kind: 'file' | 'dir';
  /** DEST's size (bytes, 0 for a folder) and modification time (ms since epoch), as listed. */
  size: number;
  mtimeMs: number;
}

/** `options.sync` of the steps job of a sync batch (one per batch, after the copies in queue order). */
export interface SyncStepsOptions {
  role: 'steps';
  srcRoot: string;
  destRoot: string;
  /** Folders to create below DEST's root (relative), parents before their children; created before any copy. */
  folders: string[];
  /** Paths to delete below DEST's root, deepest first within a folder (a folder after what is in it). */
  deletions: SyncDeletion[];
  /** Where deleted and replaced files go instead (absolute, on DEST's side), keeping their relative paths. */
  backupDir?: string;
  /** The copies of the batch, counted when it was made. */
  copies: number;
  /** Set once the folders were created (a later run of the batch skips them), or when there were none to create. */
  foldersDone?: boolean;
  /** DEST's root was listed as existing: it is not made again (an SSH_FXP_MKDIR refused, then a STAT). */
  destRootExists?: boolean;
  /** Some copy jobs' rows are not written yet (restBooking.ts): nothing is deleted for this batch. */
  booking?: boolean;
}

/** What {@link enqueueSyncPlan} puts in the queue. */
export interface SyncBatchInput {
  /** The server: a saved site (the app) or user@host:port (the CLI, cli/jobSetup.ts jobTarget). */
  target: JobTarget;
  /** `upload`: SRC is local and DEST on the server; `download`: the reverse. */
  direction: Direction;
  /** SRC's and DEST's roots, absolute (a remote one with `~` already expanded). */
  srcRoot: string;
  destRoot: string;
  /** The plan (planSync); a refused plan (`refused`, over --max-delete) is not queued. */
  plan: SyncPlan;
  /** Paths of the plan to leave out (the app's unticked rows), relative as the plan's items. */
  leaveOut?: ReadonlySet<string>;
  /** `--backup-dir`: deleted and replaced files are moved there (absolute, on DEST's side), not removed. */
  backupDir?: string;
  /** Options every job of the batch keeps besides its `sync` (the CLI's `origin`, `cli`, `via`; the app's none). */
  options?: JobOptions;
  /** Higher runs first (default 0). */
  priority?: number;
  /** DEST's listing found its root (Listing.rootExists): a plan with no folder to create then makes none. */
  destRootExists?: boolean;
  /** The plan's folders were made already (runBatch.ts makeFolderChains): the batch does not make them again. */
  foldersMade?: boolean;
  /**
   * An unfinished batch of the same sync ({@link findSyncBatch}) that this plan replaces: its copy jobs the plan
   * still has (same source and destination folder, not `done`) are kept with their files and journal, put back in
   * line with the new plan's size and time; its other jobs are removed (see {@link SyncBatch.dropped}).
   */
  takeOver?: string;
  /**
   * The runner that runs the batch at once (`sluice sync`): its new jobs are stored already claimed, `running`
   * under this owner's leases ({@link SyncBatch.claims}); the jobs kept from `takeOver` stay `queued` to be claimed.
   */
  claimFor?: LeaseOwner;
  /**
   * With `claimFor`: only the rows of the first `bookFirst` new copy jobs and of the steps job (marked `booking`) are
   * written now; the others' claims come at once and their rows from {@link SyncBatch.rest} (restBooking.ts), as
   * many a transaction.
   */
  bookFirst?: number;
}

/** The batch as queued. */
export interface SyncBatch {
  batchId: string;
  /** Every job of the batch in queue order: the copies, then the steps job. */
  jobs: QueuedJob[];
  /** The steps job (folders, deletions). */
  steps: QueuedJob;
  copies: number;
  /** Bytes the copies move (their sources' sizes). */
  bytes: number;
  folders: number;
  deletions: number;
  /** Copy jobs of a batch taken over that were kept (their partial copies resume). */
  kept: number;
  /**
   * Jobs of a batch taken over that were removed, as they were: their unfinished files' temporary names are gone from
   * the journal, so the caller removes those copies (cli/queueOps.ts dropPartialCopies does it for the CLI).
   */
  dropped: Array<{ job: QueuedJob; tempNames: string[] }>;
  /** With {@link SyncBatchInput.claimFor}: the claims of the jobs added (not of those kept). */
  claims?: Claim[];
  /** With {@link SyncBatchInput.bookFirst}: the rows still to write (their claims are in `claims` already). */
  rest?: RestBooking;
}

/** Joins a relative `/`-separated path to a root on the side it belongs to. */
export function sidePath(remote: boolean, root: string, rel: string): string {
  if (rel === '') return root;
  return remote ? path.posix.join(root, rel) : path.join(root, ...rel.split('/'));
}

/** The sync's `options.sync`, when `job` belongs to a sync batch. */
export function syncOptionsOf(job: QueuedJob): SyncCopyOptions | SyncStepsOptions | undefined {
  const s = job.options.sync as { role?: unknown } | undefined;
  return s?.role === 'copy' || s?.role === 'steps' ? (s as SyncCopyOptions | SyncStepsOptions) : undefined;
}

/**
 * The newest batch of this sync (same server, direction, SRC and DEST roots) that is not finished: some job of it not
 * `done`, none `running` under a live runner's lease.
 * @returns its id, or undefined
 */
export function findSyncBatch(
  store: QueueStore,
  key: Pick<SyncBatchInput, 'target' | 'direction' | 'srcRoot' | 'destRoot'>,
): string | undefined {
  const rows = store.q
    .stmt(
      `SELECT batch_id AS b FROM jobs WHERE source = ? AND dest = ? AND direction = ? AND target = ?
      AND json_extract(options, '$.sync.role') = 'steps' ORDER BY seq DESC`,
    )
    .all(key.srcRoot, key.destRoot, key.direction, formatTarget(key.target)) as Array<{ b: string }>;
  for (const { b } of rows) {
    const jobs = store.jobs.batch(b);
    if (jobs.every((j) => j.state === 'done')) continue;
    if (jobs.some((j) => j.state === 'running' && liveLease(store, j.id))) continue;
    return b;
  }
  return undefined;
}

/**
 * Whether a live runner is running a batch of this sync now (a job of it `running` under a lease that is not stale):
 * a second run of the same sync must not start beside it.
 */
export function syncBatchRunning(
  store: QueueStore,
  key: Pick<SyncBatchInput, 'target' | 'direction' | 'srcRoot' | 'destRoot'>,
): boolean {
  const rows = store.q
    .stmt(
      `SELECT DISTINCT batch_id AS b FROM jobs WHERE source = ? AND dest = ? AND direction = ? AND target = ?
      AND json_extract(options, '$.sync.role') = 'steps'`,
    )
    .all(key.srcRoot, key.destRoot, key.direction, formatTarget(key.target)) as Array<{ b: string }>;
  return rows.some(({ b }) => store.jobs.batch(b).some((j) => j.state === 'running' && liveLease(store, j.id)));
}

/** A lease on the job whose runner is alive (a killed runner's lease is stale: lease.ts isStale). */
function liveLease(store: QueueStore, jobId: string): boolean {
  const h = store.leases.holder(jobId);
  return h !== undefined && !store.leases.isStale(h, currentOwner());
}

/** The copy jobs and the steps of a plan, before any is stored. */
function jobsOf(input: SyncBatchInput): { copies: NewJob[]; steps: SyncStepsOptions; bytes: number } {
  const remoteSrc = input.direction === 'download';
  const leave = input.leaveOut ?? new Set<string>();
  const copies: NewJob[] = [];
  const folders: string[] = [];
  const deletions: SyncDeletion[] = [];
  let bytes = 0;
  for (const it of input.plan.items) {
    if (leave.has(it.path)) continue;
    if (it.action === 'create' && it.kind === 'dir') folders.push(it.path);
    else if ((it.action === 'create' || it.action === 'update') && it.kind === 'file' && it.src) {
      const parent = it.path.includes('/') ? it.path.slice(0, it.path.lastIndexOf('/')) : '';
      const sync: SyncCopyOptions = {
        role: 'copy',
        rel: it.path,
        size: it.src.size,
        mtimeMs: it.src.mtimeMs,
        replaces: it.action === 'update',
      };
      bytes += it.src.size;
      copies.push({
        target: input.target,
        direction: input.direction,
        source: sidePath(remoteSrc, input.srcRoot, it.path),
        dest: sidePath(!remoteSrc, input.destRoot, parent),
        conflict: 'overwrite',
        priority: input.priority,
        options: { ...input.options, destIsDir: true, sync },
      });
    } else if (it.action === 'delete') {
      deletions.push({ rel: it.path, kind: it.kind, size: it.dest?.size ?? 0, mtimeMs: it.dest?.mtimeMs ?? 0 });
    }
  }
  // A folder is deleted after everything in it: deeper paths first, then by path.
  const depth = (p: string) => p.split('/').length;
  deletions.sort((a, b) => depth(b.rel) - depth(a.rel) || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  folders.sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
  const steps: SyncStepsOptions = {
    role: 'steps',
    srcRoot: input.srcRoot,
    destRoot: input.destRoot,
    folders,
    deletions,
    copies: copies.length,
    ...(input.backupDir !== undefined ? { backupDir: input.backupDir } : {}),
    ...(input.destRootExists ? { destRootExists: true } : {}),
    ...(input.foldersMade || (input.destRootExists && !folders.length) ? { foldersDone: true } : {}),
  };
  return { copies, steps, bytes };
}

/** Keeps the copy jobs of batch `old` that `copies` still has (put back in line); removes its other jobs. */
function takeOver(
  store: QueueStore,
  old: string,
  copies: NewJob[],
): Pick<SyncBatch, 'kept' | 'dropped'> & {
  keptIds: Map<number, QueuedJob>;
} {
  const wanted = new Map(copies.map((c, i) => [`${c.source}\0${c.dest}`, i] as const));
  const keptIds = new Map<number, QueuedJob>();
  const dropped: SyncBatch['dropped'] = [];
  for (const job of store.jobs.batch(old)) {
    const i = syncOptionsOf(job)?.role === 'copy' ? wanted.get(`${job.source}\0${job.dest}`) : undefined;
    if (i !== undefined && job.state !== 'done' && !keptIds.has(i)) {
      if (job.state !== 'queued') store.jobs.setState(job.id, 'queued');
      store.jobs.mergeOptions(job.id, { sync: copies[i].options?.sync });
      keptIds.set(i, store.jobs.get(job.id)!);
      continue;
    }
    dropped.push({ job, tempNames: store.files.discardUnfinished([job.id]) });
  }
  store.jobs.remove(dropped.map((d) => d.job.id));
  return { kept: keptIds.size, dropped, keptIds };
}

/**
 * Puts a sync plan in the queue as one batch (see the module comment for its jobs): the copies in the plan's order,
 * then the steps job. Items left out (`leaveOut`) are neither copied nor deleted; the plan's `same` and `skip` items
 * make no job. A plan with nothing to do still makes its steps job (it finishes at once), so a run has a batch.
 * @returns the batch: its id, its jobs (`queued`), and what it holds
 * @throws SluiceError USAGE for a refused plan (--max-delete), INVALID_REQUEST for a plan that deletes although its
 *   listings did not complete or for roots that are not absolute; LOCAL_IO / DISK_FULL from the queue database
 */
export function enqueueSyncPlan(store: QueueStore, input: SyncBatchInput): SyncBatch {
  if (input.plan.refused) throw new SluiceError('USAGE', input.plan.refused);
  if (input.plan.deletionsWithheld && input.plan.items.some((it) => it.action === 'delete'))
    throw new SluiceError('INVALID_REQUEST', `deletions after an incomplete listing: ${input.plan.deletionsWithheld}`);
  if (!input.srcRoot || !input.destRoot)
    throw new SluiceError('INVALID_REQUEST', 'A sync batch needs the roots of SRC and DEST');
  const { copies, steps, bytes } = jobsOf(input);
  const over = input.takeOver ? takeOver(store, input.takeOver, copies) : undefined;
  const batchId = input.takeOver ?? randomUUID();
  const fresh = copies.filter((_, i) => !over?.keptIds.has(i));
  const later = input.claimFor && input.bookFirst !== undefined ? fresh.splice(Math.max(0, input.bookFirst)) : [];
  const stepsJob: NewJob = {
    target: input.target,
    direction: input.direction,
    source: input.srcRoot,
    dest: input.destRoot,
    conflict: 'overwrite',
    priority: input.priority,
    options: { ...input.options, sync: later.length ? { ...steps, booking: true } : steps },
  };
  let claims = input.claimFor ? store.addClaimedBatch([...fresh, stepsJob], batchId, input.claimFor) : undefined;
  const added = claims ? claims.map((c) => c.job) : store.jobs.addBatch([...fresh, stepsJob], batchId);
  const stepsStored = added.pop()!;
  let rest: RestBooking | undefined;
  if (claims && later.length) {
    const pending = bookLater(store, later, batchId, stepsStored.id, input.claimFor!, input.bookFirst);
    const stepsClaim = claims.pop()!;
    claims = [...claims, ...pending.claims, stepsClaim];
    added.push(...pending.claims.map((c) => c.job));
    rest = pending.booking;
  }
  added.push(stepsStored);
  const jobs = [...(over ? [...over.keptIds.values()] : []), ...added];
  return {
    batchId,
    jobs,
    steps: stepsStored,
    copies: copies.length,
    bytes,
    folders: steps.folders.length,
    deletions: steps.deletions.length,
    kept: over?.kept ?? 0,
    dropped: over?.dropped ?? [],
    ...(claims ? { claims } : {}),
    ...(rest ? { rest } : {}),
  };
}
