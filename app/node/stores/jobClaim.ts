/**
 * How a runner (the app's queue, `sluice queue run`) takes work from the shared queue: the next runnable job and
 * its lease in one transaction, so two runners never take the same job; and giving it back with its new state.
 * A `running` job without a live lease is an orphan (its runner crashed) and goes back to `queued`.
 */
import { randomUUID } from 'node:crypto';
import type { JobState } from '../../common/model/job';
import { SluiceError } from '../errors';
import type { JobStore } from './jobStore';
import type { Lease, LeaseOwner, LeaseStore } from './lease';
import type { QueueDb } from './queueDb';
import { formatTarget, rowToJob, type JobRow, type JobTarget, type NewJob, type QueuedJob } from './queueRows';

/** The stores a claim touches. */
export interface ClaimDeps {
  q: QueueDb;
  jobs: JobStore;
  leases: LeaseStore;
}

/** Which jobs a runner takes (default any): a CLI run takes its own batch. */
export interface ClaimFilter {
  batchId?: string;
  target?: JobTarget;
  /** Only jobs whose options say this `origin` (`sluice queue run` takes the jobs `sluice queue add` made). */
  origin?: string;
}

/** A job taken by a runner, `running`, with the lease that proves it. */
export interface Claim {
  job: QueuedJob;
  lease: Lease;
  /** The job had run before (it has a start time): a run of it resumes what that one left. */
  ranBefore: boolean;
}

/**
 * Deletes stale leases and puts `running` jobs without a live lease back to `queued`. Runs inside
 * {@link claimNext}; call it alone to show a crashed runner's jobs as queued.
 * @param asker the calling process (see LeaseStore.isStale)
 * @returns the ids of the jobs re-queued
 */
export function requeueOrphans(d: ClaimDeps, asker?: LeaseOwner): string[] {
  return d.q.write(() => {
    const leased = d.q.stmt('SELECT job_id FROM leases').all() as Array<{ job_id: string }>;
    for (const { job_id } of leased) {
      const h = d.leases.holder(job_id);
      if (h && d.leases.isStale(h, asker)) d.q.stmt('DELETE FROM leases WHERE job_id = ?').run(job_id);
    }
    const orphans = d.q
      .stmt(
        `SELECT id FROM jobs WHERE state = 'running'
      AND NOT EXISTS (SELECT 1 FROM leases WHERE leases.job_id = jobs.id)`,
      )
      .all() as Array<{ id: string }>;
    for (const { id } of orphans) d.jobs.setState(id, 'queued');
    return orphans.map((o) => o.id);
  });
}

/**
 * Takes the first queued job (queue order) that matches `filter` and has no lease: it becomes `running` under a
 * new lease for `owner`. Orphans are re-queued first ({@link requeueOrphans}).
 * @param owner the calling process (lease.ts currentOwner())
 * @returns undefined when nothing is runnable
 */
export function claimNext(d: ClaimDeps, owner: LeaseOwner, filter: ClaimFilter = {}): Claim | undefined {
  return d.q.write(() => {
    requeueOrphans(d, owner);
    const where = [
      "state = 'queued'",
      'NOT EXISTS (SELECT 1 FROM leases WHERE leases.job_id = jobs.id)',
      ...(filter.batchId === undefined ? [] : ['batch_id = @batchId']),
      ...(filter.target === undefined ? [] : ['target = @target']),
      ...(filter.origin === undefined ? [] : ["json_extract(options, '$.origin') = @origin"]),
    ].join(' AND ');
    const params = {
      ...(filter.batchId === undefined ? {} : { batchId: filter.batchId }),
      ...(filter.target === undefined ? {} : { target: formatTarget(filter.target) }),
      ...(filter.origin === undefined ? {} : { origin: filter.origin }),
    };
    const st = d.q.stmt(`SELECT * FROM jobs WHERE ${where} ORDER BY priority DESC, position, seq LIMIT 1`);
    const row = (Object.keys(params).length > 0 ? st.get(params) : st.get()) as JobRow | undefined;
    if (!row) return undefined;
    const got = d.leases.acquireInTransaction(row.id, owner);
    if (!got.ok) return undefined;
    return { job: d.jobs.setState(row.id, 'running'), lease: got.lease, ranBefore: row.started_at !== null };
  });
}

/**
 * Moves a claimed job to its next state (done, failed, paused, cancelled, or queued after a lost connection) and
 * releases its lease, in one transaction; `running` keeps the lease (a no-op state change).
 * @throws SluiceError INVALID_STATE when the lease is no longer held (another runner took the job over: leave it
 *   alone) or the transition is illegal; NOT_FOUND when the job was deleted
 */
export function releaseJob(
  d: ClaimDeps,
  lease: Lease,
  to: JobState,
  error?: { code: string; message: string },
): QueuedJob {
  return d.q.write(() => {
    if (!d.leases.holds(lease))
      throw new SluiceError('INVALID_STATE', `The lease on job ${lease.jobId} was lost to another runner`);
    const job = d.jobs.setState(lease.jobId, to, error);
    if (to !== 'running') d.leases.release(lease);
    return job;
  });
}

/**
 * {@link releaseJob} `done` for many claimed `running` jobs in one transaction of two statements, whatever their
 * number, and no job read back (a sync batch settles thousands of copies at once). A job whose lease was lost
 * meanwhile is left to its new runner, as releaseJob would refuse it.
 * @returns how many jobs became `done`
 */
export function releaseDone(d: ClaimDeps, leases: readonly Lease[], now: number): number {
  if (leases.length === 0) return 0;
  const held = `SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(@leases)`;
  const done = d.q.stmt(`UPDATE jobs SET state = 'done', finished_at = @now WHERE state = 'running'
    AND id IN (SELECT job_id FROM leases WHERE (job_id, token) IN (${held}))`);
  const release = d.q.stmt(`DELETE FROM leases WHERE (job_id, token) IN (${held})
    AND job_id IN (SELECT id FROM jobs WHERE state = 'done')`);
  const pairs = JSON.stringify(leases.map((l) => [l.jobId, l.token]));
  return d.q.write(() => {
    const n = done.run({ leases: pairs, now }).changes;
    release.run({ leases: pairs });
    return n;
  });
}

/**
 * Adds a batch already claimed by `owner`: its jobs are stored `running`, each under a new lease, in the transaction
 * that adds them (a runner that queues a batch to run it at once, as `sluice sync` does, saves reading every job back
 * and checking leases that cannot exist yet). Killed, its leases go stale and the jobs are re-queued as any orphan.
 * @returns the claims, in the jobs' order
 * @throws as JobStore.addBatch
 */
export function addClaimedBatch(
  d: ClaimDeps,
  jobs: readonly NewJob[],
  batchId: string,
  owner: LeaseOwner,
  now: number,
  tokens?: readonly string[],
): Claim[] {
  const lease = d.q.stmt(`INSERT INTO leases (job_id, token, pid, host, started_at, acquired_at, heartbeat_at)
    VALUES (@jobId, @token, @pid, @host, @startedAt, @now, @now)`);
  return d.q.write(() =>
    d.jobs.addBatch(jobs, batchId, { since: now }).map((job, i): Claim => {
      const l: Lease = { jobId: job.id, token: tokens?.[i] ?? randomUUID(), owner, acquiredAt: now, heartbeatAt: now };
      lease.run({ jobId: job.id, token: l.token, ...owner, now });
      return { job, lease: l, ranBefore: false };
    }),
  );
}

/** What {@link claimJobs} took, and what it could not. */
export interface ClaimedJobs {
  /** The jobs now `running` under a new lease for the caller, in the order asked. */
  claims: Claim[];
  /** Jobs asked for that are gone, not `queued`, or leased by a live runner: as the store holds them now. */
  refused: Array<{ id: string; job?: QueuedJob }>;
}

/**
 * Takes several given jobs at once (a batch the app runs as one transfer), in one transaction: each `queued` job
 * without a live lease becomes `running` under a new lease for `owner`; the others are refused and left alone.
 * Orphans are re-queued first ({@link requeueOrphans}).
 */
export function claimJobs(d: ClaimDeps, ids: readonly string[], owner: LeaseOwner): ClaimedJobs {
  return d.q.write(() => {
    requeueOrphans(d, owner);
    const out: ClaimedJobs = { claims: [], refused: [] };
    for (const id of ids) {
      const job = d.jobs.get(id);
      const got = job?.state === 'queued' ? d.leases.acquireInTransaction(id, owner) : undefined;
      if (got?.ok)
        out.claims.push({
          job: d.jobs.setState(id, 'running'),
          lease: got.lease,
          ranBefore: job!.startedAt !== undefined,
        });
      else out.refused.push(job ? { id, job } : { id });
    }
    return out;
  });
}

/**
 * Takes every `queued` job of a batch that no live runner leases, in one transaction: a lease each and one UPDATE to
 * `running` for them all (a sync batch of 20,000 jobs: {@link claimJobs} reads and writes each job on its own).
 * Orphans are re-queued first ({@link requeueOrphans}).
 * @returns the claims, in queue order; jobs leased by a live runner are left out
 */
export function claimBatch(d: ClaimDeps, batchId: string, owner: LeaseOwner): Claim[] {
  return d.q.write(() => {
    requeueOrphans(d, owner);
    const rows = d.q
      .stmt(`SELECT * FROM jobs WHERE batch_id = ? AND state = 'queued' ORDER BY priority DESC, position, seq`)
      .all(batchId) as JobRow[];
    const taken: Array<{ row: JobRow; lease: Lease }> = [];
    for (const row of rows) {
      const got = d.leases.acquireInTransaction(row.id, owner);
      if (got.ok) taken.push({ row, lease: got.lease });
    }
    const start = d.q.stmt(
      `UPDATE jobs SET state = 'running', started_at = COALESCE(started_at, @now), finished_at = NULL WHERE id = @id`,
    );
    for (const t of taken) start.run({ id: t.row.id, now: t.lease.acquiredAt });
    return taken.map(({ row, lease }) => ({
      job: rowToJob({
        ...row,
        state: 'running',
        started_at: row.started_at ?? lease.acquiredAt,
        finished_at: null,
      }),
      lease,
      ranBefore: row.started_at !== null,
    }));
  });
}
