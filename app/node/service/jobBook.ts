/**
 * The app's queue in queue.db (stores/queueStore.ts), the store the CLI shares: every job the queue adds, every state
 * it takes, its counters (on each state change, else at most every 2 s), its files' ends, moves and clears are written
 * through here; on start the queue is read back, after jobs left `running` by a runner that is gone are re-queued.
 * A job runs only under its lease (taken with its batch in one transaction, renewed every 5 s, released with its final
 * state), so the app and a `sluice queue run` never work the same job. Jobs leased by another live runner are
 * "foreign": the app does not run them and follows their state from the store. A run's transfer journal (its files,
 * their temporary names and durable ranges: engine/journal.ts) is opened over the jobs it claimed, so that a paused or
 * interrupted job resumes where it stopped.
 */
import type { Job } from '../../common/model/job';
import type { QueueFile } from '../../common/queue/files';
import type { MoveTarget } from '../../common/queue/reducer';
import { jobName } from '../../common/queue/rules';
import { StoreJournal } from '../engine/journal';
import type { Claim } from '../stores/jobClaim';
import type { FileEndRecord } from '../stores/jobFiles';
import { currentOwner, type Lease, type LeaseOwner } from '../stores/lease';
import type { QueuedJob } from '../stores/queueRows';
import type { QueueStore } from '../stores/queueStore';

/** Options of a {@link JobBook}; the intervals are injectable for tests. */
export interface JobBookOptions {
  /** The runner's identity in leases (default this process). */
  owner?: LeaseOwner;
  /** Counters are written at most this often while a job's state does not change (ms, default 2000). */
  progressMs?: number;
  /** Lease heartbeat interval (ms, default 5000); foreign jobs are re-read at the same pace. */
  heartbeatMs?: number;
  /** File ends are written in batches at most this often (ms, default 500). */
  filesMs?: number;
  /** A lease of ours was taken over: stop working the job (it is foreign from now on). */
  onLeaseLost(jobId: string): void;
  /** Foreign jobs as the store holds them now (state and counters changed). */
  onForeign(jobs: Job[]): void;
  /** A store operation failed; `what` names it. The queue goes on in memory. */
  onError(what: string, e: unknown): void;
}

type Counters = Pick<Job, 'bytesDone' | 'bytesTotal' | 'filesDone' | 'filesTotal'>;

const counters = (j: Job): Counters => ({
  bytesDone: j.bytesDone,
  bytesTotal: j.bytesTotal,
  filesDone: j.filesDone,
  filesTotal: j.filesTotal,
});
const sameCounters = (a: Counters, b: Counters): boolean =>
  a.bytesDone === b.bytesDone &&
  a.bytesTotal === b.bytesTotal &&
  a.filesDone === b.filesDone &&
  a.filesTotal === b.filesTotal;
const PAGE = 10_000;

/** A stored job as the app shows it; undefined for a job of the CLI's ad-hoc servers (no saved site). */
export function storedToJob(q: QueuedJob, skipped = 0): Job | undefined {
  if (!('siteId' in q.target)) return undefined;
  const job: Job = {
    id: q.id,
    batchId: q.batchId,
    siteId: q.target.siteId,
    direction: q.direction,
    source: q.source,
    dest: q.dest,
    name: jobName(q.source),
    state: q.state,
    bytesDone: q.bytesDone,
    bytesTotal: q.bytesTotal,
    filesDone: q.filesDone,
    filesTotal: q.filesTotal,
    rate: 0,
    createdAt: q.createdAt,
  };
  if (skipped) job.filesSkipped = skipped;
  if (q.error) job.error = q.error;
  if (q.startedAt !== undefined) job.startedAt = q.startedAt;
  if (q.finishedAt !== undefined) job.finishedAt = q.finishedAt;
  return job;
}

export class JobBook {
  private readonly owner: LeaseOwner;
  private readonly leases = new Map<string, Lease>();
  /** Jobs another live runner holds. */
  private readonly foreign = new Set<string>();
  private readonly dirty = new Map<string, Counters>();
  private ends: FileEndRecord[] = [];
  private progressTimer: NodeJS.Timeout | undefined;
  private filesTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly store: QueueStore,
    private readonly o: JobBookOptions,
  ) {
    this.owner = o.owner ?? currentOwner();
    this.heartbeat = setInterval(() => this.beat(), o.heartbeatMs ?? 5000).unref();
  }

  /** The app's jobs in queue order, after re-queueing orphans (running jobs whose runner is gone). */
  load(): Job[] {
    this.store.requeueOrphans(this.owner);
    const skipped = this.store.files.skippedPerJob();
    const out: Job[] = [];
    let page = this.store.jobs.list({ limit: PAGE });
    for (;;) {
      for (const q of page.jobs) {
        const job = storedToJob(q, skipped.get(q.id));
        if (!job) continue;
        if (job.state === 'running') this.foreign.add(job.id);
        out.push(job);
      }
      if (!page.next) return out;
      page = this.store.jobs.list({ limit: PAGE, after: page.next });
    }
  }

  /** The queue database (a sync batch's run reads its jobs' options: sync/runBatch.ts). */
  queueStore(): QueueStore {
    return this.store;
  }

  /** True while another runner holds the job (the app must not start it). */
  isForeign(jobId: string): boolean {
    return this.foreign.has(jobId);
  }

  /** Adds one batch's new jobs (the app drew their ids). @throws SluiceError LOCAL_IO / DISK_FULL */
  add(jobs: readonly Job[]): void {
    if (jobs.length === 0) return;
    this.store.jobs.addBatch(
      jobs.map((j) => ({
        id: j.id,
        target: { siteId: j.siteId },
        direction: j.direction,
        source: j.source,
        dest: j.dest,
      })),
      jobs[0].batchId,
    );
  }

  /**
   * Takes a run's jobs: each gets its lease and `running` in the store, in one transaction.
   * @returns the claims taken; the other jobs are foreign (or gone) and must not run
   */
  claim(ids: readonly string[]): Claim[] {
    const { claims, refused } = this.store.claimJobs(ids, this.owner);
    for (const c of claims) this.leases.set(c.job.id, c.lease);
    for (const r of refused) if (r.job?.state === 'running') this.foreign.add(r.id);
    return claims;
  }

  /**
   * The transfer journal of claimed jobs (their leases stay with this book); undefined when queue.db cannot give one
   * (the run then goes on without resume).
   */
  journalOf(claims: readonly Claim[]): StoreJournal | undefined {
    try {
      return StoreJournal.ofClaims(this.store, claims);
    } catch (e) {
      this.o.onError('opening the transfer journal', e);
      return undefined;
    }
  }

  /** What the jobs' earlier runs left durably done (committed files, journalled ranges), by job; 0s are left out. */
  durableBytes(jobIds: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    this.guard('reading what earlier runs did', () => {
      for (const id of jobIds) {
        const { bytesDone } = this.store.files.countJob(id);
        if (bytesDone > 0) out.set(id, bytesDone);
      }
    });
    return out;
  }

  /** A run's transfer ended: file ends written, then its journal flushed and closed (before its jobs settle). */
  endRun(journal: StoreJournal | undefined, outcome: 'done' | 'failed' | 'paused'): void {
    this.flushFiles();
    if (journal) this.guard('closing the transfer journal', () => journal.close(outcome));
  }

  /**
   * Cancelled jobs give up their unfinished files: the rows go (a retry starts them over).
   * @returns their temporary files, for the caller to remove
   */
  discardUnfinished(jobIds: readonly string[]): string[] {
    let temps: string[] = [];
    this.guard('forgetting partial files', () => {
      temps = this.store.files.discardUnfinished(jobIds);
    });
    return temps;
  }

  /** Writes what changed between two versions of a job: its state at once (releasing its lease), counters later. */
  changed(prev: Job, next: Job): void {
    if (this.foreign.has(next.id)) return;
    if (prev.state === next.state) {
      if (!sameCounters(counters(prev), counters(next))) this.markDirty(next);
      return;
    }
    if (next.state === 'running') return; // claim() wrote it, with the lease
    this.guard(`saving ${next.name}`, () =>
      this.store.q.write(() => {
        this.dirty.delete(next.id);
        this.store.jobs.updateProgress(next.id, counters(next));
        const lease = this.leases.get(next.id);
        this.leases.delete(next.id);
        if (lease) this.store.releaseJob(lease, next.state, next.error);
        else this.store.jobs.setState(next.id, next.state, next.error);
      }),
    );
  }

  /** Deletes jobs (clear finished). */
  removed(ids: readonly string[]): void {
    this.guard('clearing finished jobs', () => this.store.jobs.remove(ids));
  }

  /** Moves jobs as one block, as the reducer's `moved` event did. */
  moved(ids: readonly string[], to: MoveTarget): void {
    this.guard('reordering the queue', () =>
      this.store.q.write(() => {
        if (to === 'top') for (const id of [...ids].reverse()) this.store.jobs.moveToTop(id);
        else if (to === 'bottom') for (const id of ids) this.store.jobs.moveToBottom(id);
        else for (const id of ids) this.store.jobs.moveBefore(id, to.before);
      }),
    );
  }

  /** Records a file's end (written within `filesMs`). */
  fileEnded(end: FileEndRecord): void {
    this.ends.push(end);
    this.filesTimer ??= setTimeout(() => this.flushFiles(), this.o.filesMs ?? 500).unref();
  }

  /** A batch's files as recorded so far (pending ends written first). */
  files(batchId: string, limit: number): { files: QueueFile[]; total: number } {
    this.flushFiles();
    const { files, total } = this.store.files.ofBatch(batchId, limit);
    return {
      files: files.map((f) => ({
        jobId: f.jobId,
        source: f.source,
        target: f.target,
        size: f.size,
        state: f.state,
        ...(f.error ? { error: f.error } : {}),
      })),
      total,
    };
  }

  /** Writes pending counters and file ends, gives back the leases still held (their jobs queued), closes the store. */
  close(): void {
    clearInterval(this.heartbeat);
    this.flushFiles();
    this.flushProgress();
    for (const lease of this.leases.values())
      this.guard('giving back a job', () => this.store.releaseJob(lease, 'queued'));
    this.leases.clear();
    this.store.close();
  }

  private markDirty(job: Job): void {
    this.dirty.set(job.id, counters(job));
    this.progressTimer ??= setTimeout(() => this.flushProgress(), this.o.progressMs ?? 2000).unref();
  }

  private flushProgress(): void {
    clearTimeout(this.progressTimer);
    this.progressTimer = undefined;
    if (this.dirty.size === 0) return;
    const dirty = [...this.dirty];
    this.dirty.clear();
    this.guard('saving progress', () =>
      this.store.q.write(() => {
        for (const [id, c] of dirty) this.store.jobs.updateProgress(id, c);
      }),
    );
  }

  private flushFiles(): void {
    clearTimeout(this.filesTimer);
    this.filesTimer = undefined;
    if (this.ends.length === 0) return;
    const ends = this.ends;
    this.ends = [];
    this.guard('recording finished files', () => this.store.files.recordEnds(ends));
  }

  /** Renews our leases (one transaction) and re-reads foreign jobs. */
  private beat(): void {
    const lost: string[] = [];
    this.guard('renewing leases', () =>
      this.store.q.write(() => {
        for (const [id, lease] of this.leases) if (!this.store.leases.heartbeat(lease).held) lost.push(id);
      }),
    );
    for (const id of lost) {
      this.leases.delete(id);
      this.foreign.add(id);
      this.o.onLeaseLost(id);
    }
    if (this.foreign.size > 0) this.guard('reading jobs of other runners', () => this.refreshForeign());
  }

  private refreshForeign(): void {
    const jobs: Job[] = [];
    for (const id of this.foreign) {
      const q = this.store.jobs.get(id);
      const job = q && storedToJob(q);
      if (!job || job.state !== 'running' || !this.store.leases.holder(id)) this.foreign.delete(id);
      if (job) jobs.push(job);
    }
    if (jobs.length > 0) this.o.onForeign(jobs);
  }

  private guard(what: string, fn: () => unknown): void {
    try {
      fn();
    } catch (e) {
      this.o.onError(what, e);
    }
  }
}
