/**
 * The persistent queue's shapes (jobs, their files) and their mapping to and from `queue.db` rows (queueDb.ts).
 */
import type { Direction, JobState } from '../../common/model/job';
import type { FileState } from '../../common/model/jobFile';
import { SluiceError } from '../errors';

/** Where a job goes or comes from: a saved site, or an ad-hoc server given as `user@host:port` (the CLI's URL). */
export type JobTarget = { siteId: string } | { user: string; host: string; port: number };

/** What to do when the target file exists: ask the user (the app), or a fixed answer (the CLI, "for all"). */
export type ConflictSetting = 'ask' | 'overwrite' | 'skip' | 'rename';

/** A job's transfer options, kept as JSON; unknown keys are kept as they are (a newer Sluice may add some). */
export interface JobOptions {
  /** Verification level asked for (`--verify`). */
  verify?: 'size' | 'sha256';
  /** Speed limit in bytes per second; absent = unlimited. */
  speedLimit?: number;
  /**
   * How the job's first run read its destination (TransferRequest.destIsDir): an existing folder the source went
   * into (`true`), or the source's new name (`false`). Kept so that a later run, after the first created it, does not
   * put the source inside it.
   */
  destIsDir?: boolean;
  /**
   * How `sluice queue add` named the server (an ssh_config alias, a saved site's host, a URL without `user@`):
   * `queue run` connects through it again; the job's `target` is where it led (user, host, port as resolved).
   */
  via?: { host: string; port: number; user?: string };
  [key: string]: unknown;
}

/** A job to add: one top-level source (file or folder) to one destination. */
export interface NewJob {
  /**
   * The job's id, when the caller drew it (the app's queue shows the job before the store answers); default a new UUID.
   */
  id?: string;
  target: JobTarget;
  /** `upload` = put (local -> remote), `download` = get (remote -> local). */
  direction: Direction;
  /** Absolute source path (local for upload, remote for download). */
  source: string;
  /** Absolute destination (remote for upload, local for download), as the user gave it. */
  dest: string;
  /** Default `'ask'`. */
  conflict?: ConflictSetting;
  options?: JobOptions;
  /** Higher runs first; default 0. */
  priority?: number;
}

/** A job as stored. Times are milliseconds since the epoch; byte counters are bytes. */
export interface QueuedJob extends Required<Omit<NewJob, 'options' | 'id'>> {
  id: string;
  batchId: string;
  options: JobOptions;
  state: JobState;
  /** Order inside a priority: lower first (see jobOrder.ts). */
  position: number;
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
  /** Set when the job failed (cleared when it is queued again). */
  error?: { code: string; message: string };
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
}

/** A job's counters: bytes and files. */
export interface JobCounters {
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
}

/** A file of a job as planned by the scan. Sizes are bytes, `mtimeMs` milliseconds since the epoch. */
export interface PlannedFile {
  /** Source path (unique within the job). */
  source: string;
  /** Final target path. */
  target: string;
  size: number;
  mtimeMs?: number;
  /** Source fingerprint (fingerprint.ts), hex. */
  fingerprint?: string;
  /** The temporary name the file is written under before its commit; kept for the file's life (resume). */
  tempName: string;
}

/** A stored file of a job. */
export interface JobFile extends PlannedFile {
  id: number;
  jobId: string;
  state: FileState;
  error?: { code: string; message: string };
}

export interface JobRow {
  seq: number;
  id: string;
  batch_id: string;
  target: string;
  direction: Direction;
  source: string;
  dest: string;
  state: JobState;
  priority: number;
  position: number;
  conflict: ConflictSetting;
  options: string;
  bytes_done: number;
  bytes_total: number;
  files_done: number;
  files_total: number;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export interface FileRow {
  id: number;
  job_id: string;
  source: string;
  target: string;
  size: number;
  mtime_ms: number | null;
  fingerprint: string | null;
  temp_name: string;
  state: FileState;
  error_code: string | null;
  error_message: string | null;
}

/**
 * The stored form of a target: `site:<id>`, or `user@host:port` (`user@[::1]:22` for IPv6). Two jobs have the same
 * target exactly when these strings are equal (the CLI's "same command again" lookup relies on it).
 */
export function formatTarget(t: JobTarget): string {
  if ('siteId' in t) return `site:${t.siteId}`;
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `${t.user}@${host}:${t.port}`;
}

/**
 * The inverse of {@link formatTarget}.
 * @throws SluiceError INVALID_REQUEST for text that is neither form
 */
export function parseTarget(text: string): JobTarget {
  if (text.startsWith('site:')) return { siteId: text.slice(5) };
  const at = text.lastIndexOf('@');
  const m = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(text.slice(at + 1));
  if (at <= 0 || !m)
    throw new SluiceError('INVALID_REQUEST', `Not a queue target (site:<id> or user@host:port): ${text}`);
  const host = m[1].startsWith('[') ? m[1].slice(1, -1) : m[1];
  return { user: text.slice(0, at), host, port: Number(m[2]) };
}

function errorOf(code: string | null, message: string | null): { code: string; message: string } | undefined {
  return code === null ? undefined : { code, message: message ?? '' };
}

/** A `jobs` row as a {@link QueuedJob}. */
export function rowToJob(r: JobRow): QueuedJob {
  const job: QueuedJob = {
    id: r.id,
    batchId: r.batch_id,
    target: parseTarget(r.target),
    direction: r.direction,
    source: r.source,
    dest: r.dest,
    state: r.state,
    priority: r.priority,
    position: r.position,
    conflict: r.conflict,
    options: JSON.parse(r.options) as JobOptions,
    bytesDone: r.bytes_done,
    bytesTotal: r.bytes_total,
    filesDone: r.files_done,
    filesTotal: r.files_total,
    createdAt: r.created_at,
  };
  const error = errorOf(r.error_code, r.error_message);
  if (error) job.error = error;
  if (r.started_at !== null) job.startedAt = r.started_at;
  if (r.finished_at !== null) job.finishedAt = r.finished_at;
  return job;
}

/** A `job_files` row as a {@link JobFile}. */
export function rowToFile(r: FileRow): JobFile {
  const file: JobFile = {
    id: r.id,
    jobId: r.job_id,
    source: r.source,
    target: r.target,
    size: r.size,
    tempName: r.temp_name,
    state: r.state,
  };
  if (r.mtime_ms !== null) file.mtimeMs = r.mtime_ms;
  if (r.fingerprint !== null) file.fingerprint = r.fingerprint;
  const error = errorOf(r.error_code, r.error_message);
  if (error) file.error = error;
  return file;
}
