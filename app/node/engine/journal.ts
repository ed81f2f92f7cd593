/**
 * A transfer journal (transfer/types.ts TransferJournal) kept in the queue database (stores/queueStore.ts): the CLI's
 * `get`/`put` record their files and durable byte ranges there, so that running the same command again after an
 * interruption resumes it. The run holds a lease on its jobs: two processes never work the same job.
 */
import { randomUUID } from 'node:crypto';
import type { FileState } from '../../common/model/jobFile';
import { PathOwners } from '../../common/queue/pathOwners';
import type { Direction } from '../../common/model/job';
import { SluiceError } from '../errors';
import { localFingerprint } from '../stores/fingerprint';
import { currentOwner, keepLease, type Lease } from '../stores/lease';
import { QueueStore } from '../stores/queueStore';
import { formatTarget, type PlannedFile, type QueuedJob } from '../stores/queueRows';
import type { RangeRecorder } from '../stores/rangeRecorder';
import { stableTempName } from '../transfer/fileNames';
import type { JournalledFile, TransferJournal } from '../transfer/types';

/** Which command a journal belongs to: the same target, direction, sources and destination resume it. */
export interface JournalKey {
  target: { user: string; host: string; port: number };
  direction: Direction;
  /** Absolute sources (local for an upload, remote for a download). */
  sources: string[];
  dest: string;
}

/**
 * Below this size a file has no journal of its own: a fresh run records it only once committed, in batches (one
 * transaction per COMMITTED_BATCH files or per flush), and a local source is identified by size and mtime only
 * (reading 2 MiB of each small file would cost more than sending it again).
 */
const SMALL_FILE_BYTES = 4 * 1024 * 1024;
const COMMITTED_BATCH = 512;
/** A temporary name as transfer/fileNames.ts makes them: `.NAME.sluice-XXXXXXXX.part`. */
const TEMP_NAME = /\.sluice-[0-9a-f]{8}\.part$/;

/** The path from one file state to another, as the store's transitions allow (app/common/model/jobFile.ts). */
const PATHS: Partial<Record<FileState, readonly FileState[]>> = {
  committed: ['moving', 'verifying', 'committed'],
  skipped: ['skipped'],
  failed: ['failed'],
};

export class StoreJournal implements TransferJournal {
  private readonly fileIds = new Map<string, number>();
  /** Small files planned without a row (fresh run): recorded when committed. */
  private readonly unrecorded = new Map<string, PlannedFile & { jobId: string }>();
  /**
   * Called as a file is planned, before its temporary name is handed out: a claim's job row may still be on its way
   * (cli/syncRun.ts books a sync batch's rows while its first copies run), and is written by then, so a killed run's
   * partial copy is always found again under the same name.
   */
  beforePlan?: (jobId: string) => void;
  /** Small files committed and not yet written to the database. */
  private committed: Array<PlannedFile & { jobId: string }> = [];
  private readonly recorder: RangeRecorder;
  private readonly keepers: Array<{ stop(): void }> = [];
  /** Which job a file belongs to: the deepest source that is it or a folder above it. */
  private readonly owners: PathOwners<QueuedJob>;

  private constructor(
    private readonly store: QueueStore,
    readonly jobs: QueuedJob[],
    private readonly leases: Lease[],
    readonly resumed: boolean,
    private readonly ownsStore: boolean,
    private readonly ownsLeases = true,
  ) {
    this.recorder = store.recorder();
    this.owners = new PathOwners(jobs.map((j) => [j.source, j] as const));
    if (ownsLeases)
      for (const lease of leases) this.keepers.push(keepLease(store.leases, lease, { onLost: () => undefined }));
  }

  /**
   * Opens the journal of a command in the queue database of `home` (default: the data folder, SLUICE_HOME): the
   * batch an earlier run of the same command left interrupted (paused, or running with its process gone), else a
   * new one. A batch that finished or failed is not resumed: the command starts again.
   * @throws SluiceError INVALID_STATE when another Sluice process is running this command; LOCAL_IO when the
   *   database cannot be opened
   */
  static open(key: JournalKey, home?: string): StoreJournal {
    const store = QueueStore.open({ home });
    try {
      return StoreJournal.openIn(store, key, true);
    } catch (e) {
      store.close();
      throw e;
    }
  }

  /** The batch an earlier, interrupted run of the command `key` left (paused, or running with its process gone). */
  static resumable(store: QueueStore, key: JournalKey): { batchId: string; jobs: QueuedJob[] } | undefined {
    const found = store.jobs.findBatch(key);
    return found?.jobs.every((j) => j.state === 'paused' || j.state === 'running' || j.state === 'queued')
      ? found
      : undefined;
  }

  /** {@link open} on a store the caller owns (and closes). */
  static openIn(store: QueueStore, key: JournalKey, ownsStore = false): StoreJournal {
    const resumable = StoreJournal.resumable(store, key);
    const jobs =
      resumable?.jobs ??
      store.jobs.addBatch(
        key.sources.map((source) => ({
          target: key.target,
          direction: key.direction,
          source,
          dest: key.dest,
          conflict: 'overwrite' as const,
          options: { origin: 'cli' },
        })),
        randomUUID(),
      );
    const owner = currentOwner();
    const leases: Lease[] = [];
    for (const job of jobs) {
      const got = store.leases.acquire(job.id, owner);
      if (!got.ok) {
        for (const l of leases) store.leases.release(l);
        throw new SluiceError(
          'INVALID_STATE',
          `another Sluice process (pid ${got.holder.owner.pid} on ${got.holder.owner.host}) is running this transfer`,
        );
      }
      leases.push(got.lease);
    }
    for (const job of jobs) {
      if (job.state === 'paused') store.jobs.setState(job.id, 'queued');
      store.jobs.setState(job.id, 'running');
    }
    return new StoreJournal(store, jobs, leases, resumable !== undefined, ownsStore);
  }

  /**
   * The journal of jobs a runner has claimed (stores/jobClaim.ts: `running`, leased by this process): the app's
   * batch runs and `sluice queue run`. It resumes when one of the jobs ran before, or left file rows. The caller keeps
   * the leases alive and releases them ({@link close} with `releaseLeases: false` leaves them to the caller).
   */
  static ofClaims(
    store: QueueStore,
    claims: ReadonlyArray<{ job: QueuedJob; lease: Lease; ranBefore?: boolean }>,
  ): StoreJournal {
    if (claims.length === 0) throw new SluiceError('INVALID_REQUEST', 'A journal needs at least one job');
    const jobs = claims.map((c) => c.job);
    const resumed = claims.some((c) => c.ranBefore) || store.files.anyOf(jobs.map((j) => j.id));
    return new StoreJournal(
      store,
      jobs,
      claims.map((c) => c.lease),
      resumed,
      false,
      false,
    );
  }

  get resuming(): boolean {
    return this.resumed;
  }

  /** How an earlier run read the destination (JobOptions.destIsDir); the jobs of a batch share it. */
  destIsDir(): boolean | undefined {
    const kept = this.jobs.map((j) => this.store.jobs.get(j.id)?.options.destIsDir).find((v) => typeof v === 'boolean');
    return kept;
  }

  /** Keeps this run's reading of the destination with every job (written at once: folders are created next). */
  recordDestIsDir(isDir: boolean): void {
    for (const job of this.jobs) this.store.jobs.mergeOptions(job.id, { destIsDir: isDir });
  }

  /** What an earlier run left: bytes durably done in unfinished files, and the bytes of the files it had found. */
  resumeSummary(): { doneBytes: number; totalBytes: number } {
    let doneBytes = 0;
    let totalBytes = 0;
    for (const job of this.jobs) {
      for (const f of this.store.files.list(job.id, { limit: 1_000_000 })) {
        totalBytes += f.size;
        doneBytes += f.state === 'committed' || f.state === 'skipped' ? f.size : this.store.journal.doneBytes(f.id);
      }
    }
    return { doneBytes, totalBytes };
  }

  private jobOf(src: string): QueuedJob {
    return this.owners.ownerOf(src);
  }

  /** Big local sources are identified by a SHA-256 of their first and last MiB too (small ones by size and mtime). */
  private async fingerprintOf(src: string, size: number): Promise<string | undefined> {
    return this.jobs[0].direction === 'upload' && size >= SMALL_FILE_BYTES
      ? (await localFingerprint(src)).fingerprint
      : undefined;
  }

  async committedTarget(f: { src: string; size: number; mtimeMs: number }): Promise<string | undefined> {
    const row = this.store.files.findBySource(this.jobOf(f.src).id, f.src);
    if (row?.state !== 'committed' || row.size !== f.size || row.mtimeMs !== Math.trunc(f.mtimeMs)) return undefined;
    return row.fingerprint === (await this.fingerprintOf(f.src, f.size)) ? row.target : undefined;
  }

  async planFile(
    f: { src: string; dst: string; size: number; mtimeMs: number },
    proposedTemp: string,
  ): Promise<JournalledFile> {
    const jobId = this.jobOf(f.src).id;
    this.beforePlan?.(jobId);
    const small = f.size < SMALL_FILE_BYTES;
    const temp = stableTempName(proposedTemp, `${jobId}\0${f.src}`);
    const planned: PlannedFile = {
      source: f.src,
      target: f.dst,
      size: f.size,
      mtimeMs: Math.trunc(f.mtimeMs),
      tempName: temp,
    };
    if (small && !this.resumed) {
      this.unrecorded.set(f.src, { ...planned, jobId });
      return { temp, done: [], committed: false, discarded: [] };
    }
    const fingerprint = await this.fingerprintOf(f.src, f.size);
    if (fingerprint !== undefined) planned.fingerprint = fingerprint;
    const {
      files: [row],
      discardedTempNames,
    } = this.store.files.plan(jobId, [planned]);
    this.fileIds.set(f.src, row.id);
    const done = row.state === 'committed' ? [] : this.store.journal.ranges(row.id);
    const abandoned = row.state !== 'committed' && done.length === 0 ? this.takeAbandoned(jobId, f.dst) : [];
    return { temp: row.tempName, done, committed: row.state === 'committed', discarded: discardedTempNames, abandoned };
  }

  /**
   * Partial copies of `dst` that an interrupted get/put (origin `cli`, no live process) left under its own journal:
   * the run starts `dst` over, so those rows are forgotten and their temporary names returned for removal. Jobs of
   * the app's queue and of `sluice queue` keep theirs (they resume when run).
   */
  private takeAbandoned(jobId: string, dst: string): string[] {
    const job = this.jobs.find((j) => j.id === jobId) ?? this.jobs[0];
    const rows = this.store.files.unfinishedAt(dst, job.direction, formatTarget(job.target), jobId).filter((r) => {
      // Only a temporary name of ours: a file written in place (`--conflict append`) has the target as its name.
      if (r.tempName === dst || !TEMP_NAME.test(r.tempName)) return false;
      const other = this.store.jobs.get(r.jobId);
      const holder = this.store.leases.holder(r.jobId);
      return other?.options.origin === 'cli' && (!holder || this.store.leases.isStale(holder, currentOwner()));
    });
    if (rows.length === 0) return [];
    this.store.files.forget(rows.map((r) => r.id));
    for (const id of new Set(rows.map((r) => r.jobId))) this.store.files.recountJob(id);
    return rows.map((r) => r.tempName);
  }

  recordRange(src: string, start: number, end: number): void {
    const id = this.fileIds.get(src);
    if (id === undefined) return;
    if (this.store.files.get(id)?.state === 'planned') this.store.files.setState(id, 'moving');
    this.recorder.record(id, start, end);
  }

  restartFile(src: string): void {
    const id = this.fileIds.get(src);
    if (id === undefined) return;
    this.recorder.flush();
    const state = this.store.files.get(id)?.state;
    if (state === 'moving' || state === 'failed') this.store.files.setState(id, 'planned');
    else this.store.journal.clear(id);
  }

  fileEnded(src: string, state: 'committed' | 'skipped' | 'failed', error?: { code: string; message: string }): void {
    const small = this.unrecorded.get(src);
    if (small) {
      this.unrecorded.delete(src);
      if (state === 'committed') this.committed.push(small);
      if (this.committed.length >= COMMITTED_BATCH) this.flushCommitted();
      return;
    }
    const id = this.fileIds.get(src);
    if (id === undefined) return;
    this.recorder.flush();
    for (const next of PATHS[state] ?? []) {
      // The journal is advisory: a transition the store refuses (a no-clobber skip while verifying) is left out.
      try {
        this.store.files.setState(id, next, error);
      } catch {
        return;
      }
    }
  }

  private flushCommitted(): void {
    if (this.committed.length === 0) return;
    const files = this.committed;
    this.committed = [];
    // One upsert a file, one transaction: a sync batch has a job per file, and per-job plans cost more than the rows.
    this.store.files.recordCommitted(files);
  }

  flush(): void {
    this.recorder.flush();
    this.flushCommitted();
  }

  /**
   * Ends the run. Interrupted (`paused`): the jobs, files and journal stay for the next run of the command. Done or
   * failed: the batch is removed (a CLI run is not a queue entry). Leases are released either way. A journal
   * {@link ofClaims} only flushes (whatever the outcome: its jobs stay in the queue) and recounts its jobs: their
   * states and leases are the runner's.
   */
  close(outcome: 'done' | 'failed' | 'paused'): void {
    try {
      this.recorder.close();
      if (outcome === 'paused' || !this.ownsLeases) this.flushCommitted();
      if (!this.ownsLeases) {
        this.store.files.recountJobs(this.jobs.map((j) => j.id));
        return;
      }
      for (const k of this.keepers) k.stop();
      for (const job of this.jobs) {
        this.store.files.recountJob(job.id);
        try {
          this.store.jobs.setState(job.id, outcome);
        } catch {
          /* finished elsewhere */
        }
      }
      for (const lease of this.leases) this.store.leases.release(lease);
      if (outcome !== 'paused') this.store.jobs.clearFinished({ batchId: this.jobs[0].batchId });
    } finally {
      if (this.ownsStore) this.store.close();
    }
  }
}
