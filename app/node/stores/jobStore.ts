/**
 * The persistent queue's jobs (issue #14): add a batch, list in queue order (paged, fast at 100,000 jobs), change
 * state along the legal transitions of app/common/model/job.ts, reorder, clear finished jobs, and find the batch
 * of "the same command run again". Every write is one short immediate transaction (queueDb.ts).
 */
import { randomUUID } from 'node:crypto';
import { canTransition, isFinished, JOB_STATES, type Direction, type JobState } from '../../common/model/job';
import { SluiceError } from '../errors';
import { moveBefore, moveToBottom, moveToTop, nextPosition, POSITION_STEP, setPriority } from './jobOrder';
import type { QueueDb } from './queueDb';
import {
  formatTarget,
  parseTarget,
  rowToJob,
  type JobCounters,
  type JobOptions,
  type JobRow,
  type JobTarget,
  type NewJob,
  type QueuedJob,
} from './queueRows';

/** Where a page of {@link JobStore.list} ends; pass it as `after` for the next page. */
export interface JobCursor {
  priority: number;
  position: number;
  seq: number;
}

/** A page of jobs in queue order. */
export interface JobPage {
  jobs: QueuedJob[];
  /** Present when more jobs may follow. */
  next?: JobCursor;
}

/** What {@link JobStore.list} returns: up to `limit` jobs after `after` (keyset) or from `offset` (row number). */
export interface JobListOptions {
  /** Page size, 1–10,000. */
  limit: number;
  /** Continue after this cursor (cheap at any depth). */
  after?: JobCursor;
  /** Skip this many jobs (for a virtualized list that jumps; ignored with `after`). */
  offset?: number;
  /** Only these states (default all). */
  states?: readonly JobState[];
}

/** "The same command": the CLI looks a batch up by what it was asked to do. */
export interface BatchKey {
  target: JobTarget;
  direction: Direction;
  dest: string;
  /** Every top-level source of the command (order does not matter). */
  sources: readonly string[];
}

const ORDER = 'ORDER BY priority DESC, position, seq';
const CLEAR_CHUNK = 500;

function checkStates(states: readonly JobState[]): void {
  for (const s of states)
    if (!JOB_STATES.includes(s)) throw new SluiceError('INVALID_REQUEST', `Not a job state: ${s}`);
}

function stateFilter(states: readonly JobState[] | undefined): string {
  if (!states) return '';
  checkStates(states);
  return `state IN (${states.map((s) => `'${s}'`).join(', ')})`;
}

function sameSources(jobs: readonly QueuedJob[], sources: readonly string[]): boolean {
  const a = jobs.map((j) => j.source).sort();
  const b = [...sources].sort();
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** The jobs of `queue.db`. Synchronous (better-sqlite3); one instance per open {@link QueueDb}. */
export class JobStore {
  /**
   * @param q the open queue database
   * @param now milliseconds since the epoch (injected for tests)
   */
  constructor(
    private readonly q: QueueDb,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Adds jobs as one batch, in one transaction (all or none), after every queued job, in the given order.
   * @param jobs one per top-level source
   * @param batchId default a new UUID
   * @returns the stored jobs, state `queued`
   * @throws SluiceError INVALID_REQUEST for an empty source or destination; LOCAL_IO / DISK_FULL from the database
   */
  addBatch(jobs: readonly NewJob[], batchId: string = randomUUID(), running?: { since: number }): QueuedJob[] {
    for (const j of jobs) {
      if (!j.source || !j.dest)
        throw new SluiceError('INVALID_REQUEST', 'A queued job needs a source and a destination');
    }
    return this.q.write(() => {
      let position = nextPosition(this.q);
      const insert = this.q
        .stmt(`INSERT INTO jobs (id, batch_id, target, direction, source, dest, priority, position, conflict,
        options, created_at, state, started_at) VALUES (@id, @batchId, @target, @direction, @source, @dest, @priority,
        @position, @conflict, @options, @now, @state, @startedAt)`);
      const state = running ? ('running' as const) : ('queued' as const);
      const startedAt = running ? { startedAt: running.since } : {};
      const now = this.now();
      return jobs
        .map((j) => {
          const target = formatTarget(j.target);
          const row = {
            id: j.id ?? randomUUID(),
            batchId,
            target,
            direction: j.direction,
            source: j.source,
            dest: j.dest,
            priority: j.priority ?? 0,
            position,
            conflict: j.conflict ?? 'ask',
            options: JSON.stringify(j.options ?? {}),
            now,
          };
          insert.run({ ...row, state, startedAt: running?.since ?? null });
          position += POSITION_STEP;
          return {
            ...row,
            target: parseTarget(target),
            options: JSON.parse(row.options) as JobOptions,
            state,
            ...startedAt,
            bytesDone: 0,
            bytesTotal: 0,
            filesDone: 0,
            filesTotal: 0,
            createdAt: now,
          };
        })
        .map(({ now: _now, ...job }) => job);
    });
  }

  /** One job, or undefined. */
  get(id: string): QueuedJob | undefined {
    const row = this.q.stmt('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row ? rowToJob(row) : undefined;
  }

  /**
   * The ids of the jobs whose id starts with `prefix` (the short ids `sluice queue list` shows), in queue order.
   * @param prefix at least 4 characters of an id (hex digits and dashes)
   * @throws SluiceError USAGE for a shorter prefix or other characters
   */
  idsByPrefix(prefix: string): string[] {
    if (!/^[0-9a-f-]{4,36}$/i.test(prefix))
      throw new SluiceError('USAGE', `Not a job id (4 or more of its first characters): ${prefix}`);
    return (
      this.q.stmt(`SELECT id FROM jobs WHERE id LIKE ? ${ORDER}`).all(`${prefix.toLowerCase()}%`) as Array<{
        id: string;
      }>
    ).map((r) => r.id);
  }

  /** The jobs of a batch, in queue order. */
  batch(batchId: string): QueuedJob[] {
    return (this.q.stmt(`SELECT * FROM jobs WHERE batch_id = ? ${ORDER}`).all(batchId) as JobRow[]).map(rowToJob);
  }

  /**
   * A page of jobs in queue order (priority, then position). With `after` each page costs the same at any depth.
   * @throws SluiceError INVALID_REQUEST for a limit outside 1–10,000 or an unknown state
   */
  list(opts: JobListOptions): JobPage {
    if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > 10_000) {
      throw new SluiceError('INVALID_REQUEST', `Page size must be 1–10000, not ${opts.limit}`);
    }
    const filter = stateFilter(opts.states);
    const rows = this.q.read(() =>
      opts.after ? this.pageAfter(opts.after, opts.limit, filter) : this.pageAt(opts.offset ?? 0, opts.limit, filter),
    );
    const last = rows[rows.length - 1];
    const page: JobPage = { jobs: rows.map(rowToJob) };
    if (last && rows.length === opts.limit)
      page.next = { priority: last.priority, position: last.position, seq: last.seq };
    return page;
  }

  private pageAt(offset: number, limit: number, filter: string): JobRow[] {
    const where = filter ? `WHERE ${filter}` : '';
    return this.q
      .stmt(`SELECT * FROM jobs ${where} ${ORDER} LIMIT ? OFFSET ?`)
      .all(limit, Math.max(0, Math.floor(offset))) as JobRow[];
  }

  /** The rest of the cursor's priority, then the lower priorities: two index range scans. */
  private pageAfter(c: JobCursor, limit: number, filter: string): JobRow[] {
    const and = filter ? `AND ${filter}` : '';
    const rows = this.q
      .stmt(
        `SELECT * FROM jobs WHERE priority = @priority AND (position, seq) > (@position, @seq) ${and}
      ORDER BY position, seq LIMIT @limit`,
      )
      .all({ ...c, limit }) as JobRow[];
    if (rows.length < limit) {
      rows.push(
        ...(this.q
          .stmt(`SELECT * FROM jobs WHERE priority < @priority ${and} ${ORDER} LIMIT @limit`)
          .all({ priority: c.priority, limit: limit - rows.length }) as JobRow[]),
      );
    }
    return rows;
  }

  /** How many jobs (in `states`, default all). */
  count(states?: readonly JobState[]): number {
    const filter = stateFilter(states);
    return (this.q.stmt(`SELECT COUNT(*) AS n FROM jobs ${filter ? `WHERE ${filter}` : ''}`).get() as { n: number }).n;
  }

  /**
   * Moves a job to another state along a legal transition ({@link canTransition}). Entering `running` sets
   * `startedAt` (first start only); entering done/failed/cancelled sets `finishedAt`, leaving them clears it;
   * `failed` records `error`, `queued` clears it. The same state is a no-op.
   * @throws SluiceError NOT_FOUND; INVALID_STATE for an illegal transition
   */
  setState(id: string, to: JobState, error?: { code: string; message: string }): QueuedJob {
    checkStates([to]);
    return this.q.write(() => {
      const job = this.get(id);
      if (!job) throw new SluiceError('NOT_FOUND', `No queued job ${id}`);
      if (!canTransition(job.state, to))
        throw new SluiceError('INVALID_STATE', `Job ${id} cannot go from ${job.state} to ${to}`);
      if (job.state === to) return job;
      const now = this.now();
      const err =
        to === 'failed'
          ? (error ?? job.error ?? { code: 'INTERNAL', message: 'failed' })
          : to === 'queued'
            ? undefined
            : job.error;
      this.q
        .stmt(
          `UPDATE jobs SET state = @to, started_at = @startedAt, finished_at = @finishedAt, error_code = @code,
        error_message = @message WHERE id = @id`,
        )
        .run({
          id,
          to,
          startedAt: to === 'running' ? (job.startedAt ?? now) : (job.startedAt ?? null),
          finishedAt: isFinished(to) ? now : null,
          code: err?.code ?? null,
          message: err?.message ?? null,
        });
      return this.get(id)!;
    });
  }

  /**
   * Deletes jobs with their files, ranges and leases (one transaction); unknown ids are ignored.
   * @returns how many jobs were deleted
   */
  remove(ids: readonly string[]): number {
    const del = this.q.stmt('DELETE FROM jobs WHERE id = ?');
    return this.q.write(() => ids.reduce((n, id) => n + del.run(id).changes, 0));
  }

  /**
   * Sets some of a job's counters (bytes, files); one statement.
   * @throws SluiceError NOT_FOUND
   */
  updateProgress(id: string, counters: Partial<JobCounters>): void {
    const res = this.q.write(() =>
      this.q
        .stmt(
          `UPDATE jobs SET bytes_done = COALESCE(@bytesDone, bytes_done),
      bytes_total = COALESCE(@bytesTotal, bytes_total), files_done = COALESCE(@filesDone, files_done),
      files_total = COALESCE(@filesTotal, files_total) WHERE id = @id`,
        )
        .run({
          id,
          bytesDone: counters.bytesDone ?? null,
          bytesTotal: counters.bytesTotal ?? null,
          filesDone: counters.filesDone ?? null,
          filesTotal: counters.filesTotal ?? null,
        }),
    );
    if (res.changes === 0) throw new SluiceError('NOT_FOUND', `No queued job ${id}`);
  }

  /**
   * Merges `patch` into a job's options (JSON; other keys kept); one statement.
   * @throws SluiceError NOT_FOUND
   */
  mergeOptions(id: string, patch: Partial<JobOptions>): void {
    const res = this.q.write(() =>
      this.q
        .stmt('UPDATE jobs SET options = json_patch(options, @patch) WHERE id = @id')
        .run({ id, patch: JSON.stringify(patch) }),
    );
    if (res.changes === 0) throw new SluiceError('NOT_FOUND', `No queued job ${id}`);
  }

  /** Moves a job before every other (see jobOrder.ts). @throws SluiceError NOT_FOUND */
  moveToTop(id: string): void {
    moveToTop(this.q, id);
  }

  /** Moves a job after every other. @throws SluiceError NOT_FOUND */
  moveToBottom(id: string): void {
    moveToBottom(this.q, id);
  }

  /** Moves job `id` just before job `beforeId`. @throws SluiceError NOT_FOUND */
  moveBefore(id: string, beforeId: string): void {
    moveBefore(this.q, id, beforeId);
  }

  /** Gives a job another priority (higher runs first). @throws SluiceError NOT_FOUND, INVALID_REQUEST */
  setPriority(id: string, priority: number): void {
    setPriority(this.q, id, priority);
  }

  /**
   * The newest batch that is exactly `key` (same target, direction, destination and set of sources), by default
   * only when some job of it is not `done` (a finished command run again is a new run).
   */
  findBatch(key: BatchKey, opts: { includeDone?: boolean } = {}): { batchId: string; jobs: QueuedJob[] } | undefined {
    if (key.sources.length === 0) return undefined;
    return this.q.read(() => {
      const candidates = this.q
        .stmt(
          `SELECT batch_id AS b, MAX(seq) AS s FROM jobs WHERE source = ? AND dest = ? AND direction = ?
        AND target = ? GROUP BY batch_id ORDER BY s DESC`,
        )
        .all(key.sources[0], key.dest, key.direction, formatTarget(key.target)) as Array<{ b: string }>;
      const target = formatTarget(key.target);
      for (const { b } of candidates) {
        const jobs = this.batch(b);
        const same = jobs.every(
          (j) => j.dest === key.dest && j.direction === key.direction && formatTarget(j.target) === target,
        );
        if (!same || !sameSources(jobs, key.sources)) continue;
        if (!opts.includeDone && jobs.every((j) => j.state === 'done')) continue;
        return { batchId: b, jobs };
      }
      return undefined;
    });
  }

  /**
   * Deletes finished jobs with their files, ranges and leases, in transactions of {@link CLEAR_CHUNK} jobs (other
   * writers get in between).
   * @param opts.states which finished states (default done, failed and cancelled)
   * @param opts.batchId only this batch
   * @returns how many jobs were deleted
   * @throws SluiceError INVALID_REQUEST for a state that is not finished
   */
  clearFinished(opts: { states?: readonly JobState[]; batchId?: string } = {}): number {
    const states = opts.states ?? JOB_STATES.filter(isFinished);
    checkStates(states);
    for (const s of states)
      if (!isFinished(s)) throw new SluiceError('INVALID_REQUEST', `Only finished jobs are cleared, not ${s}`);
    const batch = opts.batchId === undefined ? '' : 'AND batch_id = @batchId';
    const del = `DELETE FROM jobs WHERE seq IN (SELECT seq FROM jobs WHERE ${stateFilter(states)} ${batch} LIMIT ${CLEAR_CHUNK})`;
    let total = 0;
    for (;;) {
      const st = this.q.stmt(del);
      const n = this.q.write(() => (opts.batchId === undefined ? st.run() : st.run({ batchId: opts.batchId })).changes);
      total += n;
      if (n < CLEAR_CHUNK) return total;
    }
  }
}
