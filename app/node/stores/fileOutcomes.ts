/**
 * How the files of queue jobs ended, as `job_files` rows (issue #14): until the engine plans its files into the store
 * itself (with their stable temporary names and range journal), the app's queue records each file's end from the
 * engine's `file` events here — committed, skipped (the reason in the error columns, code `SKIPPED`) or failed —
 * so that a batch's row can list its files, and they survive a restart. Such a row has an empty temporary name: no
 * partial file is known for it. A run that starts a job over clears its rows first ({@link FileOutcomeStore.clear}).
 */
import type { FileState } from '../../common/model/jobFile';
import type { QueueDb } from './queueDb';
import { rowToFile, type FileRow, type JobFile } from './queueRows';

/** One file's end. Sizes in bytes. */
export interface FileOutcome {
  jobId: string;
  source: string;
  target: string;
  size: number;
  state: Extract<FileState, 'committed' | 'skipped' | 'failed'>;
  /** Why it failed or was skipped. */
  error?: { code: string; message: string };
}

/** Rows deleted per statement when clearing (keeps each transaction short). */
const CLEAR_CHUNK = 500;

/** The recorded file ends of `queue.db`. Synchronous; one instance per open {@link QueueDb}. */
export class FileOutcomeStore {
  constructor(private readonly q: QueueDb) {}

  /**
   * Records file ends in one transaction; a file already recorded for its job takes the new end (the latest run's).
   * Jobs deleted meanwhile are skipped.
   */
  record(outcomes: readonly FileOutcome[]): void {
    if (outcomes.length === 0) return;
    const st = this.q.stmt(`INSERT INTO job_files (job_id, source, target, size, temp_name, state, error_code, error_message)
      SELECT @jobId, @source, @target, @size, '', @state, @code, @message WHERE EXISTS (SELECT 1 FROM jobs WHERE id = @jobId)
      ON CONFLICT (job_id, source) DO UPDATE SET target = excluded.target, size = excluded.size, state = excluded.state,
        error_code = excluded.error_code, error_message = excluded.error_message`);
    this.q.write(() => {
      for (const o of outcomes) {
        st.run({ jobId: o.jobId, source: o.source, target: o.target, size: o.size, state: o.state, code: o.error?.code ?? null, message: o.error?.message ?? null });
      }
    });
  }

  /** Deletes the file rows (and ranges) of these jobs, for a run that starts them over. */
  clear(jobIds: readonly string[]): void {
    const st = this.q.stmt('DELETE FROM job_files WHERE job_id = ?');
    for (let i = 0; i < jobIds.length; i += CLEAR_CHUNK) {
      this.q.write(() => { for (const id of jobIds.slice(i, i + CLEAR_CHUNK)) st.run(id); });
    }
  }

  /** The first `limit` files of a batch's jobs in the order they were recorded, and how many it has in all. */
  ofBatch(batchId: string, limit: number): { files: JobFile[]; total: number } {
    return this.q.read(() => {
      const rows = this.q.stmt(`SELECT f.* FROM job_files AS f JOIN jobs AS j ON j.id = f.job_id WHERE j.batch_id = ?
        ORDER BY f.id LIMIT ?`).all(batchId, limit) as FileRow[];
      const { n } = this.q.stmt(`SELECT COUNT(*) AS n FROM job_files WHERE job_id IN (SELECT id FROM jobs WHERE batch_id = ?)`)
        .get(batchId) as { n: number };
      return { files: rows.map(rowToFile), total: n };
    });
  }

  /** How many files of each job were skipped (jobs without any are absent). */
  skippedPerJob(): Map<string, number> {
    const rows = this.q.stmt("SELECT job_id AS id, COUNT(*) AS n FROM job_files WHERE state = 'skipped' GROUP BY job_id").all() as Array<{ id: string; n: number }>;
    return new Map(rows.map((r) => [r.id, r.n]));
  }
}
