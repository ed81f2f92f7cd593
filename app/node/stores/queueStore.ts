/**
 * The persistent transfer queue (issue #14), one object per process over `<data folder>/queue.db`: jobs
 * (jobStore.ts), their files (jobFiles.ts), the range journal and its buffered recorder (rangeJournal.ts,
 * rangeRecorder.ts), runner leases (lease.ts) and claiming work (jobClaim.ts). The app and CLI processes open it at
 * the same time; every write is a short transaction.
 */
import type { JobState } from '../../common/model/job';
import {
  addClaimedBatch,
  claimBatch,
  claimJobs,
  claimNext,
  releaseDone,
  releaseJob,
  requeueOrphans,
  type Claim,
  type ClaimedJobs,
  type ClaimFilter,
} from './jobClaim';
import { JobFileStore } from './jobFiles';
import { JobStore } from './jobStore';
import { LeaseStore, type Lease, type LeaseOptions, type LeaseOwner } from './lease';
import { openQueueDb, type QueueDb, type QueueDbOptions } from './queueDb';
import type { NewJob, QueuedJob } from './queueRows';
import { RangeJournal } from './rangeJournal';
import { RangeRecorder, type RecorderOptions } from './rangeRecorder';

/** Options of {@link QueueStore.open}. */
export interface QueueStoreOptions extends QueueDbOptions {
  /** ms since the epoch, for job times and leases (injected for tests). */
  now?: () => number;
  /** Lease staleness (lease.ts). */
  lease?: Omit<LeaseOptions, 'now'>;
}

/** The queue database and its stores. */
export class QueueStore {
  readonly jobs: JobStore;
  readonly files: JobFileStore;
  readonly journal: RangeJournal;
  readonly leases: LeaseStore;

  private constructor(
    readonly q: QueueDb,
    private readonly now: () => number,
    lease: Omit<LeaseOptions, 'now'>,
  ) {
    this.jobs = new JobStore(q, now);
    this.files = new JobFileStore(q);
    this.journal = new RangeJournal(q);
    this.leases = new LeaseStore(q, { ...lease, now });
  }

  /**
   * Opens (creating and migrating) the queue database; see openQueueDb for the file and its settings.
   * @throws SluiceError INVALID_STATE (schema newer than this build), LOCAL_IO
   */
  static open(opts: QueueStoreOptions = {}): QueueStore {
    return new QueueStore(openQueueDb(opts), opts.now ?? Date.now, opts.lease ?? {});
  }

  /** A buffered writer to the range journal (flush every 64 MiB or 2 s by default). */
  recorder(opts?: RecorderOptions): RangeRecorder {
    return new RangeRecorder(this.journal, opts);
  }

  /** The next runnable job, now `running` under a lease for `owner` (jobClaim.ts). */
  claimNext(owner: LeaseOwner, filter?: ClaimFilter): Claim | undefined {
    return claimNext(this, owner, filter);
  }

  /** Takes the given queued jobs at once, each under its own lease for `owner` (jobClaim.ts). */
  claimJobs(ids: readonly string[], owner: LeaseOwner): ClaimedJobs {
    return claimJobs(this, ids, owner);
  }

  /** Takes every queued job of a batch at once, each under its own lease for `owner` (jobClaim.ts). */
  claimBatch(batchId: string, owner: LeaseOwner): Claim[] {
    return claimBatch(this, batchId, owner);
  }

  /** Adds a batch whose jobs are at once `running` under leases for `owner` (jobClaim.ts); `tokens`: the leases'. */
  addClaimedBatch(jobs: readonly NewJob[], batchId: string, owner: LeaseOwner, tokens?: readonly string[]): Claim[] {
    return addClaimedBatch(this, jobs, batchId, owner, this.now(), tokens);
  }

  /** A claimed job's next state, releasing its lease unless `running` (jobClaim.ts). */
  releaseJob(lease: Lease, to: JobState, error?: { code: string; message: string }): QueuedJob {
    return releaseJob(this, lease, to, error);
  }

  /** Claimed `running` jobs made `done` at once, their leases released (jobClaim.ts). @returns how many */
  releaseDone(leases: readonly Lease[]): number {
    return releaseDone(this, leases, this.now());
  }

  /** Re-queues `running` jobs whose runner is gone (jobClaim.ts). */
  requeueOrphans(asker?: LeaseOwner): string[] {
    return requeueOrphans(this, asker);
  }

  close(): void {
    this.q.close();
  }
}
