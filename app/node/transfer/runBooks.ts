/**
 * One transfer run's books (engine.transfer: a "run"; "job" is the queue's): its counters, the per-file events it
 * publishes, the progress samples sent at a fixed rate (never per packet), the worker tasks running for it, and its
 * report. Holds no transfer logic.
 */
import { ThroughputEstimator } from '../../common/stats/throughput';
import { SluiceError } from '../errors';
import type { ConnectionPool } from '../ssh/connectionPool';
import { inUserTerms } from './fileNames';
import { BottleneckSampler } from './bottleneckSampler';
import { PoolSampler } from './progress';
import { globalRateLimit } from '../sftp/rateLimit';
import type { FileItem } from './scan';
import type { EventSink, FileFailure, TransferReport, TransferRequest, VerifyLevel } from './types';

const LEVEL_STRENGTH: Readonly<Record<VerifyLevel, number>> = { size: 0, 'sha256-reread': 1, 'sha256-remote': 2 };

/** The weaker of two verification levels (`a` undefined: none yet): the job's report names the weakest it used. */
function weakerLevel(a: VerifyLevel | undefined, b: VerifyLevel): VerifyLevel {
  return a === undefined || LEVEL_STRENGTH[b] < LEVEL_STRENGTH[a] ? b : a;
}

const PROGRESS_INTERVAL_MS = 250;
/** Files listed in one progress sample (the UI shows the ones in flight). */
const PROGRESS_FILES = 64;

/** A file as the events name it: a scanned item, or a file in flight with its temporary name. */
export type NamedFile = Pick<FileItem, 'src' | 'dst'> & { size?: number; temp?: string; renamedFrom?: string };

/** A file in flight, as the progress samples list it. */
export interface FileInFlight {
  readonly src: string;
  readonly size: number;
  readonly done: number;
  /** `verifying` while its hashes are compared (progress events' `verifying`). */
  readonly phase: string;
  /** Bytes hashed so far while verifying. */
  readonly hashedBytes: number;
}

/** The files of the verifying phase: how many, their bytes, the bytes hashed so far. */
function verifyingTotals(files: readonly FileInFlight[]): { files: number; bytes: number; hashedBytes: number } {
  let bytes = 0;
  let hashedBytes = 0;
  for (const f of files) {
    bytes += f.size;
    hashedBytes += Math.min(f.size, f.hashedBytes);
  }
  return { files: files.length, bytes, hashedBytes };
}

export class RunBooks {
  readonly started = Date.now();
  readonly failed: FileFailure[] = [];
  filesTotal = 0;
  filesDone = 0;
  skipped = 0;
  /** Files of the totals that ended without being sent (progress events' filesSkipped, bytesSkipped). */
  filesPassed = 0;
  bytesPassed = 0;
  /** Files an earlier run of the job committed, and their bytes (TransferReport.earlierFiles, earlierBytes). */
  earlierFiles = 0;
  earlierBytes = 0;
  bytesTotal = 0;
  bytesDone = 0;
  /** Payload bytes moved over the wire, never counted back out (TransferReport.movedBytes). */
  bytesMoved = 0;
  scanning = true;
  /** The weakest level reached over the files committed so far. */
  verifyLevel: VerifyLevel | undefined;
  private readonly sampler: PoolSampler;
  private readonly bottlenecks: BottleneckSampler;
  private readonly rate = new ThroughputEstimator(3000);
  private timer: NodeJS.Timeout | undefined;
  private weakerSaid = false;

  /**
   * @param inFlight files planned and not yet committed, skipped or failed (listed in progress samples)
   * @param events the job's own event sink (its progress samples, file ends and log lines)
   */
  constructor(
    private readonly pool: ConnectionPool,
    private readonly req: TransferRequest,
    private readonly inFlight: ReadonlySet<FileInFlight>,
    readonly events: EventSink,
  ) {
    this.sampler = new PoolSampler(() => pool.connections);
    this.bottlenecks = new BottleneckSampler(
      () => pool.connections,
      Date.now,
      () => [pool.rateLimitStats(), globalRateLimit().stats()],
    );
  }

  /** Starts the progress samples (every PROGRESS_INTERVAL_MS). */
  startSampling(): void {
    // The start is a point of the rate too: a job done before the first interval still reports its average rate in
    // the last sample (a 48 MiB upload on loopback took < 250 ms and drew nothing in the app's graph). The rate counts
    // bytes sent (bytesMoved), not those an earlier run or a sparse file's holes account for.
    this.rate.record(this.bytesMoved);
    this.timer = setInterval(() => this.sample(), PROGRESS_INTERVAL_MS);
  }

  /** Stops the samples and sends a last one. */
  stopSampling(): void {
    clearInterval(this.timer);
    this.sample();
    this.pool.growth?.release(this);
  }

  private sample(): void {
    this.rate.record(this.bytesMoved);
    const connections = this.sampler.sample();
    const bottleneck = this.bottlenecks.sample(connections);
    // An auto-sized pool adapts to what holds this transfer back (ssh/poolGrowth.ts). Its rates are read from the
    // channels' counters (every reply), not from the files' progress, which arrives in lumps.
    this.pool.growth?.observe(this, {
      t: Date.now(),
      bytes: connections.reduce((a, c) => a + c.bytes, 0),
      bottleneck,
      remainingBytes: this.scanning ? undefined : Math.max(0, this.bytesTotal - this.bytesDone - this.bytesPassed),
    });
    const inFlight = [...this.inFlight];
    // The verifying phase: every file still in flight is having its hashes compared, nothing moves.
    const verifying = this.req.verify === 'sha256' && inFlight.every((f) => f.phase === 'verifying') ? inFlight : [];
    this.events({
      type: 'progress',
      jobId: this.req.id,
      t: Date.now(),
      bytesDone: this.bytesDone,
      bytesTotal: this.bytesTotal,
      filesDone: this.filesDone,
      filesTotal: this.filesTotal,
      rate: this.rate.rate(),
      scanning: this.scanning,
      connections,
      bottleneck,
      filesSkipped: this.filesPassed,
      bytesSkipped: this.bytesPassed,
      ...(verifying.length ? { verifying: verifyingTotals(verifying) } : {}),
      files: inFlight.slice(0, PROGRESS_FILES).map((f) => ({ path: f.src, bytes: f.done, size: f.size })),
    });
  }

  private emitFile(
    f: NamedFile,
    state: 'done' | 'failed' | 'skipped',
    error?: SluiceError,
    verify?: VerifyLevel,
    reason?: string,
    earlier?: boolean,
    warned?: boolean,
  ): void {
    this.events({
      type: 'file',
      jobId: this.req.id,
      path: f.src,
      target: f.dst,
      size: f.size ?? 0,
      state,
      verify,
      error: error?.toInfo(),
      reason,
      ...(earlier ? { earlier } : {}),
      ...(f.renamedFrom !== undefined ? { renamedFrom: f.renamedFrom } : {}),
      ...(warned ? { warned } : {}),
    });
  }

  /** Counts a file as failed and says so; an error naming only its temporary file names the user's file too. */
  fileFailed(f: NamedFile, e0: SluiceError): void {
    const e = f.temp ? inUserTerms(e0, f.temp, f.dst) : e0;
    this.failed.push({ path: f.src, code: e.code, message: e.message });
    this.emitFile(f, 'failed', e);
  }

  /**
   * Counts a file as skipped (`reason` for the user, `error` when a refusal caused it); `inTotals`: the file was
   * counted in the job's totals (skipped by the conflict rule), so progress counts it as passed. `warned`: the skip
   * was also said as a warn log (the scan's), so the CLI's `-v` does not print it a second time.
   */
  fileSkipped(f: NamedFile, reason: string, error?: SluiceError, inTotals = false, warned = false): void {
    this.skipped++;
    if (inTotals) this.pass(f);
    this.emitFile(f, 'skipped', error, undefined, reason, undefined, warned);
  }

  /** Counts a file an earlier run of the job committed as skipped: nothing to send (the event says `earlier`). */
  fileCommittedEarlier(f: NamedFile): void {
    this.skipped++;
    this.earlierFiles++;
    this.earlierBytes += f.size ?? 0;
    this.pass(f);
    this.emitFile(f, 'skipped', undefined, undefined, 'already copied by an earlier run of this job', true);
  }

  private pass(f: NamedFile): void {
    this.filesPassed++;
    this.bytesPassed += f.size ?? 0;
  }

  /**
   * Says once per job why `--verify sha256` reached sha256-reread instead of sha256-remote (a `warn` log event).
   * @param why the server's side, from ssh/remoteHash.ts RemoteHash.why
   */
  verifiedWeaker(why: string | undefined): void {
    if (this.weakerSaid || why === undefined) return;
    this.weakerSaid = true;
    this.events({
      type: 'log',
      level: 'warn',
      message: `verified sha256-reread, not sha256-remote: the server did not hash the files itself (${why}), so they were read back over SFTP`,
    });
  }

  /** Counts a file as committed under its final name after verification at `level`. */
  fileCommitted(f: NamedFile, level: VerifyLevel): void {
    this.filesDone++;
    this.verifyLevel = weakerLevel(this.verifyLevel, level);
    this.emitFile(f, 'done', undefined, level);
  }

  /** The job's report. */
  report(segmentedUploads: boolean | undefined): TransferReport {
    return {
      files: this.filesDone,
      skipped: this.skipped,
      bytes: this.bytesDone,
      movedBytes: this.bytesMoved,
      failed: this.failed,
      verify: this.verifyLevel,
      elapsedMs: Date.now() - this.started,
      segmentedUploads,
      ...(this.earlierFiles ? { earlierFiles: this.earlierFiles, earlierBytes: this.earlierBytes } : {}),
    };
  }
}
