/**
 * The files of queue jobs (issue #14): what the scan planned (source, target, size, mtime, fingerprint, the
 * temporary name), each file's state (app/common/model/jobFile.ts), and the job's counters recomputed from them.
 * Planning the same source again keeps the file's row, temporary name and range journal while the source is
 * unchanged — that is how a resumed job finds its partial file. A runner also records here how files ended that the
 * journal never planned (skipped by the scan or a conflict answer, failed before their plan): {@link recordEnds}.
 */
import { canFileTransition, FILE_STATES, type FileState } from '../../common/model/jobFile';
import { SluiceError } from '../errors';
import type { QueueDb } from './queueDb';
import { rowToFile, type FileRow, type JobCounters, type JobFile, type PlannedFile } from './queueRows';

/** How a file of a job ended, as a runner saw it (the engine's `file` event). Sizes in bytes. */
export interface FileEndRecord {
  jobId: string;
  source: string;
  target: string;
  size: number;
  state: Extract<FileState, 'committed' | 'skipped' | 'failed'>;
  /** Why it failed or was skipped (code `SKIPPED` with the reason). */
  error?: { code: string; message: string };
}

/** Rows deleted or listed per statement for many jobs (keeps each transaction short). */
const JOB_CHUNK = 500;
/** States of a file with work left: its temporary file, if any, holds a partial copy. */
const UNFINISHED = "('planned', 'moving', 'verifying', 'failed')";

/** What {@link JobFileStore.plan} did. */
export interface PlanResult {
  /** The stored files, in the order given. */
  files: JobFile[];
  /**
   * Temporary names of partial files made useless because their source changed (size, mtime or fingerprint):
   * the caller deletes them. The file itself starts over (`planned`, no ranges) under its new temporary name.
   */
  discardedTempNames: string[];
}

function sameSource(row: FileRow, f: PlannedFile): boolean {
  return row.size === f.size && row.mtime_ms === (f.mtimeMs ?? null) && row.fingerprint === (f.fingerprint ?? null);
}

function checkFile(f: PlannedFile): void {
  if (!f.source || !f.target || !f.tempName || !Number.isSafeInteger(f.size) || f.size < 0) {
    throw new SluiceError(
      'INVALID_REQUEST',
      `Not a plannable file: ${JSON.stringify({ source: f.source, size: f.size })}`,
    );
  }
}

/** The files of `queue.db`'s jobs. Synchronous; one instance per open {@link QueueDb}. */
export class JobFileStore {
  constructor(private readonly q: QueueDb) {}

  /**
   * Records files of a job as the scan finds them, in one transaction. A source already planned for the job keeps
   * its row (id, state, temporary name, journal) when size, mtime and fingerprint are unchanged; otherwise it starts
   * over (see {@link PlanResult.discardedTempNames}). Call with chunks of up to a few thousand files: every other
   * writer waits for the transaction.
   * @throws SluiceError NOT_FOUND when the job does not exist; INVALID_REQUEST for a file without source, target or
   *   temporary name, or with a negative size
   */
  plan(jobId: string, files: readonly PlannedFile[]): PlanResult {
    files.forEach(checkFile);
    return this.q.write(() => {
      if (!this.q.stmt('SELECT 1 FROM jobs WHERE id = ?').get(jobId))
        throw new SluiceError('NOT_FOUND', `No queued job ${jobId}`);
      const discardedTempNames: string[] = [];
      const ids = files.map((f) => {
        const row = this.q.stmt('SELECT * FROM job_files WHERE job_id = ? AND source = ?').get(jobId, f.source) as
          FileRow | undefined;
        const values = {
          jobId,
          source: f.source,
          target: f.target,
          size: f.size,
          mtime: f.mtimeMs ?? null,
          fp: f.fingerprint ?? null,
          temp: f.tempName,
        };
        if (!row) {
          return Number(
            this.q
              .stmt(
                `INSERT INTO job_files (job_id, source, target, size, mtime_ms, fingerprint, temp_name)
            VALUES (@jobId, @source, @target, @size, @mtime, @fp, @temp)`,
              )
              .run(values).lastInsertRowid,
          );
        }
        if (sameSource(row, f)) {
          if (row.target !== f.target)
            this.q.stmt('UPDATE job_files SET target = ? WHERE id = ?').run(f.target, row.id);
          return row.id;
        }
        // An empty temporary name: the row was recorded from a file's end alone (recordEnds), no partial file.
        if (row.temp_name && (row.state === 'moving' || row.state === 'verifying' || row.state === 'failed'))
          discardedTempNames.push(row.temp_name);
        this.q.stmt('DELETE FROM file_ranges WHERE file_id = ?').run(row.id);
        this.q
          .stmt(
            `UPDATE job_files SET target = @target, size = @size, mtime_ms = @mtime, fingerprint = @fp, temp_name = @temp,
          state = 'planned', error_code = NULL, error_message = NULL WHERE id = @id`,
          )
          .run({ ...values, id: row.id });
        return row.id;
      });
      return { files: ids.map((id) => this.get(id)!), discardedTempNames };
    });
  }

  /** The file of `jobId` planned or recorded for `source`, or undefined. */
  findBySource(jobId: string, source: string): JobFile | undefined {
    const row = this.q.stmt('SELECT * FROM job_files WHERE job_id = ? AND source = ?').get(jobId, source) as
      FileRow | undefined;
    return row ? rowToFile(row) : undefined;
  }

  /** One file, or undefined. */
  get(fileId: number): JobFile | undefined {
    const row = this.q.stmt('SELECT * FROM job_files WHERE id = ?').get(fileId) as FileRow | undefined;
    return row ? rowToFile(row) : undefined;
  }

  /**
   * A job's files in planning order, paged by id.
   * @param opts.afterId continue after this file id; `limit` default 1000; `states` default all
   */
  list(jobId: string, opts: { afterId?: number; limit?: number; states?: readonly FileState[] } = {}): JobFile[] {
    for (const s of opts.states ?? [])
      if (!FILE_STATES.includes(s)) throw new SluiceError('INVALID_REQUEST', `Not a file state: ${s}`);
    const filter = opts.states ? `AND state IN (${opts.states.map((s) => `'${s}'`).join(', ')})` : '';
    const rows = this.q
      .stmt(`SELECT * FROM job_files WHERE job_id = ? AND id > ? ${filter} ORDER BY id LIMIT ?`)
      .all(jobId, opts.afterId ?? 0, opts.limit ?? 1000) as FileRow[];
    return rows.map(rowToFile);
  }

  /**
   * Moves a file along a legal transition ({@link canFileTransition}). `failed` records `error`, `planned` clears it;
   * `planned` (start over) and `committed` (nothing left to resume) also clear the file's range journal.
   * @throws SluiceError NOT_FOUND; INVALID_STATE for an illegal transition
   */
  setState(fileId: number, to: FileState, error?: { code: string; message: string }): JobFile {
    if (!FILE_STATES.includes(to)) throw new SluiceError('INVALID_REQUEST', `Not a file state: ${to}`);
    return this.q.write(() => {
      const file = this.get(fileId);
      if (!file) throw new SluiceError('NOT_FOUND', `No job file ${fileId}`);
      if (!canFileTransition(file.state, to))
        throw new SluiceError('INVALID_STATE', `File ${file.source} cannot go from ${file.state} to ${to}`);
      if (file.state === to) return file;
      const err =
        to === 'failed'
          ? (error ?? { code: 'INTERNAL', message: 'failed' })
          : to === 'planned'
            ? undefined
            : file.error;
      this.q
        .stmt('UPDATE job_files SET state = ?, error_code = ?, error_message = ? WHERE id = ?')
        .run(to, err?.code ?? null, err?.message ?? null, fileId);
      if (to === 'planned' || to === 'committed') this.q.stmt('DELETE FROM file_ranges WHERE file_id = ?').run(fileId);
      return this.get(fileId)!;
    });
  }

  /**
   * Records files a run committed, in one transaction: planned as {@link plan} does, then `committed` (their ranges
   * cleared). For the many small files of a run, which have no journal of their own.
   * @throws SluiceError as {@link plan}
   */
  planCommitted(jobId: string, files: readonly PlannedFile[]): void {
    if (!files.length) return;
    this.q.write(() => {
      for (const f of this.plan(jobId, files).files) {
        this.q
          .stmt("UPDATE job_files SET state = 'committed', error_code = NULL, error_message = NULL WHERE id = ?")
          .run(f.id);
        this.q.stmt('DELETE FROM file_ranges WHERE file_id = ?').run(f.id);
      }
    });
  }

  /**
   * {@link planCommitted} of many jobs' files in one transaction, one upsert a file (a file planned before keeps its
   * row and id; its ranges are cleared). A job deleted meanwhile is skipped. For the small files of a run that made
   * no row for them before they arrived (engine/journal.ts StoreJournal).
   * @throws SluiceError INVALID_REQUEST as {@link plan}
   */
  recordCommitted(files: ReadonlyArray<PlannedFile & { jobId: string }>): void {
    files.forEach(checkFile);
    const upsert = this.q.stmt(`INSERT INTO job_files (job_id, source, target, size, mtime_ms, fingerprint, temp_name,
        state) SELECT @jobId, @source, @target, @size, @mtime, @fp, @temp, 'committed'
        WHERE EXISTS (SELECT 1 FROM jobs WHERE id = @jobId)
      ON CONFLICT (job_id, source) DO UPDATE SET target = excluded.target, size = excluded.size,
        mtime_ms = excluded.mtime_ms, fingerprint = excluded.fingerprint, temp_name = excluded.temp_name,
        state = 'committed', error_code = NULL, error_message = NULL
      RETURNING id`);
    const clear = this.q.stmt('DELETE FROM file_ranges WHERE file_id = ?');
    this.q.write(() => {
      for (const f of files) {
        const row = upsert.get({
          jobId: f.jobId,
          source: f.source,
          target: f.target,
          size: f.size,
          mtime: f.mtimeMs ?? null,
          fp: f.fingerprint ?? null,
          temp: f.tempName,
        }) as { id: number } | undefined;
        if (row) clear.run(row.id);
      }
    });
  }

  /**
   * Recomputes a job's counters from its files and stores them: files total/done (committed or skipped), bytes
   * total (sizes) and done (settled files' sizes plus the journal's bytes of the others). For a job resumed after a
   * crash.
   * @throws SluiceError NOT_FOUND
   */
  recountJob(jobId: string): JobCounters {
    return this.q.write(() => {
      const c = this.countJob(jobId);
      const res = this.q
        .stmt(
          `UPDATE jobs SET bytes_done = @bytesDone, bytes_total = @bytesTotal, files_done = @filesDone,
        files_total = @filesTotal WHERE id = @id`,
        )
        .run({ ...c, id: jobId });
      if (res.changes === 0) throw new SluiceError('NOT_FOUND', `No queued job ${jobId}`);
      return c;
    });
  }

  /** {@link recountJob} of many jobs in one transaction; a job deleted meanwhile is left out. */
  recountJobs(jobIds: readonly string[]): void {
    const set = this.q.stmt(
      `UPDATE jobs SET bytes_done = @bytesDone, bytes_total = @bytesTotal, files_done = @filesDone,
        files_total = @filesTotal WHERE id = @id`,
    );
    this.q.write(() => {
      for (const id of jobIds) set.run({ ...this.countJob(id), id });
    });
  }

  /** Whether any of the jobs has a file row (an earlier run of one of them planned or recorded a file). */
  anyOf(jobIds: readonly string[]): boolean {
    const one = this.q.stmt('SELECT 1 FROM job_files WHERE job_id IN (SELECT value FROM json_each(?)) LIMIT 1');
    return one.get(JSON.stringify(jobIds)) !== undefined;
  }

  /**
   * A job's counters from its files, as {@link recountJob} stores them, without storing them: bytes done are the
   * settled files' sizes plus the durable ranges of the others.
   */
  countJob(jobId: string): JobCounters {
    return this.q
      .stmt(
        `SELECT COUNT(*) AS filesTotal, COALESCE(SUM(size), 0) AS bytesTotal,
        COALESCE(SUM(state IN ('committed', 'skipped')), 0) AS filesDone,
        COALESCE(SUM(CASE WHEN state IN ('committed', 'skipped') THEN size
          ELSE (SELECT COALESCE(SUM(MIN(end, f.size) - start), 0) FROM file_ranges WHERE file_id = f.id AND start < f.size) END), 0) AS bytesDone
      FROM job_files AS f WHERE job_id = ?`,
      )
      .get(jobId) as JobCounters;
  }

  /**
   * Records file ends in one transaction. A file the journal planned keeps its row (temporary name, mtime, ranges)
   * and takes the end's state; one it did not gets a row with an empty temporary name. Jobs deleted meanwhile are
   * skipped.
   */
  recordEnds(ends: readonly FileEndRecord[]): void {
    if (ends.length === 0) return;
    const st = this.q
      .stmt(`INSERT INTO job_files (job_id, source, target, size, temp_name, state, error_code, error_message)
      SELECT @jobId, @source, @target, @size, '', @state, @code, @message WHERE EXISTS (SELECT 1 FROM jobs WHERE id = @jobId)
      ON CONFLICT (job_id, source) DO UPDATE SET target = excluded.target, size = excluded.size, state = excluded.state,
        error_code = excluded.error_code, error_message = excluded.error_message`);
    this.q.write(() => {
      for (const e of ends) {
        st.run({
          jobId: e.jobId,
          source: e.source,
          target: e.target,
          size: e.size,
          state: e.state,
          code: e.error?.code ?? null,
          message: e.error?.message ?? null,
        });
      }
    });
  }

  /** The first `limit` files of a batch's jobs in the order they were recorded, and how many it has in all. */
  ofBatch(batchId: string, limit: number): { files: JobFile[]; total: number } {
    return this.q.read(() => {
      const rows = this.q
        .stmt(
          `SELECT f.* FROM job_files AS f JOIN jobs AS j ON j.id = f.job_id WHERE j.batch_id = ?
        ORDER BY f.id LIMIT ?`,
        )
        .all(batchId, limit) as FileRow[];
      const { n } = this.q
        .stmt('SELECT COUNT(*) AS n FROM job_files WHERE job_id IN (SELECT id FROM jobs WHERE batch_id = ?)')
        .get(batchId) as { n: number };
      return { files: rows.map(rowToFile), total: n };
    });
  }

  /** How many files of each job were skipped (jobs without any are absent). */
  skippedPerJob(): Map<string, number> {
    const rows = this.q
      .stmt("SELECT job_id AS id, COUNT(*) AS n FROM job_files WHERE state = 'skipped' GROUP BY job_id")
      .all() as Array<{ id: string; n: number }>;
    return new Map(rows.map((r) => [r.id, r.n]));
  }

  /**
   * Unfinished files of other jobs that write `target` (the same direction; for an upload, the same server), at most
   * `limit`: partial copies of that target an earlier command left.
   * @param server the jobs' stored target (queueRows.ts formatTarget); only compared for uploads
   */
  unfinishedAt(
    target: string,
    direction: 'upload' | 'download',
    server: string,
    exceptJob: string,
    limit = 16,
  ): JobFile[] {
    const rows = this.q
      .stmt(
        `SELECT f.* FROM job_files f JOIN jobs j ON j.id = f.job_id WHERE f.target = ? AND f.job_id != ?
      AND f.state IN ${UNFINISHED} AND f.temp_name != '' AND j.direction = ? AND (j.direction = 'download' OR j.target = ?) LIMIT ?`,
      )
      .all(target, exceptJob, direction, server, limit) as FileRow[];
    return rows.map(rowToFile);
  }

  /** Forgets these files (their rows and ranges), e.g. partial copies another run has removed. */
  forget(fileIds: readonly number[]): void {
    const del = this.q.stmt('DELETE FROM job_files WHERE id = ?');
    this.q.write(() => {
      for (const id of fileIds) del.run(id);
    });
  }

  /**
   * Forgets the unfinished files of these jobs (planned, moving, verifying, failed: their rows and ranges go; the
   * committed and skipped stay), for jobs cancelled: the next run starts those files over.
   * @returns their temporary names (full paths) for the caller to remove
   */
  discardUnfinished(jobIds: readonly string[]): string[] {
    const temps: string[] = [];
    const list = this.q.stmt(
      `SELECT temp_name FROM job_files WHERE job_id = ? AND state IN ${UNFINISHED} AND temp_name != ''`,
    );
    const del = this.q.stmt(`DELETE FROM job_files WHERE job_id = ? AND state IN ${UNFINISHED}`);
    for (let i = 0; i < jobIds.length; i += JOB_CHUNK) {
      this.q.write(() => {
        for (const id of jobIds.slice(i, i + JOB_CHUNK)) {
          for (const r of list.all(id) as Array<{ temp_name: string }>) temps.push(r.temp_name);
          del.run(id);
        }
      });
    }
    return temps;
  }
}
