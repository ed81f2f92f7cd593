/**
 * Runs one get/put job over a pool's lanes, in stages: resolve (scan.ts: cp-style targets and folder walks,
 * streamed in while the transfer runs), conflict (conflict.ts), plan (whole file through one handle, or segments over
 * every lane), move and commit (transferFile.ts, one state per file: fileState.ts), and the job's books (job.ts).
 * A file never appears under its final name until it was fully written, fsynced and verified, except where its
 * target is written in place: the conflict rule `append` (append.ts), or an upload into a folder where the temporary
 * file cannot be created (inPlace.ts).
 */
import { SluiceError, isInterruption } from '../errors';
import type { Lane, ConnectionPool } from '../ssh/connectionPool';
import { cleanLeftovers } from '../stores/leftovers';
import { warnAttributesNotKept } from './attributes';
import { admit, type AdmitContext } from './admit';
import type { CommitMode } from './conflict';
import { conflictSideFor, endpointsFor } from './direction';
import type { Endpoints } from './endpoints';
import { refusedByServer } from './fileNames';
import { InPlaceNotices } from './inPlace';
import { RunBooks } from './runBooks';
import { leftoverRemote } from './leftoverRemote';
import { planFile, type PlanContext } from './planFile';
import { segmentsOf } from './planner';
import { scanJob, type FileItem, type ScanSink } from './scan';
import { Scheduler } from './scheduler';
import { TransferFile, type FileContext } from './transferFile';
import type { ByteRange, EventSink, ServerLearnings, TransferOptions, TransferReport, TransferRequest } from './types';

/** A whole-file task this big occupies a lane on its own (see Task.heavy). */
const HEAVY_FILE_BYTES = 4 * 1024 * 1024;
/**
 * Tasks queued before the folder scan waits: far more than the lanes run at once (10 channels × 32 files), and a
 * bound on the memory a tree of many small files holds.
 */
const MAX_QUEUED_TASKS = 1024;
/**
 * Files whose conflict check and plan run at once: the target's SSH_FXP_STAT of each (`--no-clobber`, ask) is
 * pipelined instead of costing the scan a round trip per file (200 files at 50 ms RTT: 10 s one at a time).
 */
const MAX_FILES_PLANNING = 64;
/** An upload whose source keeps changing is sent again at most this many times, then fails SOURCE_CHANGED. */
const MAX_SOURCE_RESTARTS = 2;

const asSluice = SluiceError.from;

/**
 * Runs a transfer job on the session; its events go to `o.onEvent` only, and what it learns of the server (the
 * out-of-order answer) to `o.server`.
 *
 * @returns a report listing files done, skipped and failed (per-file failures do not throw)
 * @throws SluiceError USAGE for impossible targets (several sources into a non-folder), the session's fatal
 *   host-key error, or ABORTED when `signal` fired
 */
export async function runTransfer(
  pool: ConnectionPool,
  req: TransferRequest,
  o: TransferOptions = {},
): Promise<TransferReport> {
  if (o.signal?.aborted) throw new SluiceError('ABORTED', 'transfer interrupted');
  return new TransferRun(pool, req, o.onEvent ?? (() => undefined), o.server ?? {}).run(o.signal);
}

/** The job stage: plans each file, queues its tasks on the scheduler and settles how every file ends. */
class TransferRun {
  readonly books: RunBooks;
  /** Clean-ups of files given up, awaited before the job returns. */
  private readonly cleanups: Array<Promise<unknown>> = [];
  /** Files given up with their partial copy kept for the next run (interrupted, disconnected). */
  private readonly keptFiles: TransferFile[] = [];
  aborted: SluiceError | null = null;
  /** Ends the wait for the scan at once (an interrupt or a fatal pool change); see {@link untilStopped}. */
  private stopScan: ((e: SluiceError) => void) | undefined;
  /** Aborted with {@link stopAll}: cancels the scan's listings under way. */
  private readonly scanStop = new AbortController();
  /** Files planned and not yet committed, skipped or failed. */
  private readonly files = new Set<TransferFile>();
  /** The job's source and destination (direction.ts): everything that differs between a put and a get. */
  private readonly ends: Endpoints;
  /** What each file needs from the job, and what its plan depends on. */
  private readonly fileContext: FileContext;
  private readonly planContext: PlanContext;
  private readonly scheduler: Scheduler;
  /** The planned pool, not the lanes up right now: an auto-sized pool is still growing when the job starts. */
  private readonly lanesCount: number;
  /** Bytes of resumed files that an earlier run had moved. */
  private resumedBytes = 0;
  /** Bytes `append` kept at targets of files committed (not sent). */
  private appendedAfterBytes = 0;
  /** What the conflict and resume stages need (admit.ts). */
  private readonly admitContext: AdmitContext;
  private readonly inPlaceNotices = new InPlaceNotices((level, m) => this.log(level, m));
  /** Files in the conflict and plan stages (at most MAX_FILES_PLANNING). */
  private readonly planning = new Set<Promise<void>>();
  /** Scanned files waiting for a planning slot, first come first served. */
  private readonly waitingToPlan: Array<() => void> = [];

  constructor(
    readonly pool: ConnectionPool,
    readonly req: TransferRequest,
    private readonly events: EventSink,
    server: ServerLearnings,
  ) {
    this.ends = endpointsFor(pool, req, { events, server });
    this.fileContext = {
      ends: this.ends,
      req,
      aborted: () => this.aborted,
      count: (done, moved) => {
        this.books.bytesDone += done;
        this.books.bytesMoved += moved;
      },
    };
    const lanes = pool.lanes();
    this.scheduler = new Scheduler(lanes, pool.settings.filesPerChannel);
    this.lanesCount = Math.max(lanes.length, pool.settings.connections * pool.settings.channels);
    this.planContext = {
      ends: this.ends,
      journal: req.journal,
      segmentSize: pool.settings.segmentSize,
      lanes: this.lanesCount,
      lanesNow: () => pool.lanes(),
    };
    this.books = new RunBooks(pool, req, this.files, events);
    const conflictSide = conflictSideFor(pool, req, (level, m) => this.log(level, m));
    this.admitContext = { req, dest: this.ends.dest, conflictSide, log: (m) => this.log('warn', m) };
  }

  async run(signal?: AbortSignal): Promise<TransferReport> {
    const onAbort = () => {
      this.aborted = new SluiceError('ABORTED', 'transfer interrupted');
      this.stopAll(this.aborted);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const stopWatchingPool = this.pool.onPoolChange((change) => {
      if (change.type === 'lanes') this.scheduler.addLanes(change.lanes);
      else if (change.type === 'park') this.scheduler.parkLanes(change.lanes);
      // A connection met a changed or revoked host key: nothing more may run on this server.
      else this.stopAll(change.error);
    });
    this.books.startSampling();
    try {
      await this.scanAndDrain();
    } catch (e) {
      this.scheduler.stop(asSluice(e));
      await this.scheduler.drained;
      throw this.pool.fatalError ?? e;
    } finally {
      stopWatchingPool();
      signal?.removeEventListener('abort', onAbort);
      this.books.stopSampling();
      // A file with durable ranges in the journal keeps its temporary copy: the next run resumes it.
      for (const f of this.files) this.cleanups.push(f.close());
      await Promise.all(this.cleanups);
      // Drained: no range is recorded any more. Kept partial downloads give back the disk reserved past their records.
      await Promise.all(
        [...this.files]
          .filter((f) => f.resumable)
          .concat(this.keptFiles)
          .map((f) => f.keepTemp()),
      );
      this.req.journal?.flush();
    }
    if (this.aborted) throw this.aborted;
    if (this.pool.fatalError) throw this.pool.fatalError;
    const report: TransferReport = this.books.report(this.ends.dest.segmentedWrites());
    if (this.resumedBytes) report.resumedBytes = this.resumedBytes;
    if (this.appendedAfterBytes) report.appendedAfterBytes = this.appendedAfterBytes;
    return report;
  }

  private async scanAndDrain(): Promise<void> {
    try {
      if (this.pool.leftovers.pending().length) await cleanLeftovers(this.pool.leftovers, leftoverRemote(this.pool));
      await this.untilStopped(scanJob(this.pool, this.req, this.sink()));
    } finally {
      // Files still in their conflict or plan stage may yet queue tasks (or create a download's temporary file).
      await Promise.allSettled(this.planning);
      this.books.scanning = false;
      this.scheduler.end();
    }
    await this.scheduler.drained;
    // Every file ends committed, skipped or failed: one still listed here was lost by a bug, and must say so.
    for (const f of [...this.files]) {
      this.giveUp(
        f,
        new SluiceError('INTERNAL', `${f.dst}: the transfer ended without finishing this file (internal error)`),
      );
    }
  }

  private sink(): ScanSink {
    return {
      file: (item) => this.enqueue(item),
      fail: (item, e) => this.books.fileFailed(item, e),
      skip: (item, reason) => {
        this.books.fileSkipped(item, reason, undefined, false, true);
        this.events({ type: 'log', level: 'warn', message: `skipped ${item.src}: ${reason}` });
      },
      log: (level, message) => this.events({ type: 'log', level, message }),
      destination: (isDir, fresh) => {
        if (fresh) this.req.journal?.recordDestIsDir?.(isDir);
        this.req.onDestination?.(isDir);
      },
      stopped: () => this.aborted !== null,
      signal: this.scanStop.signal,
    };
  }

  private log(level: 'info' | 'warn', message: string): void {
    this.events({ type: 'log', level, message });
  }

  /** How many times each upload was sent again because its source changed meanwhile. */
  private readonly sourceRestarts = new Map<string, number>();

  /** `work`, or the first error {@link stopAll} meets: a listing that never ends must not hold off a signal. */
  private untilStopped(work: Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stopScan = reject;
      work.then(resolve, reject);
    });
  }

  /** Fails queued work with `e`, ends the scan and aborts every running task on its worker. */
  private stopAll(e: SluiceError): void {
    this.stopScan?.(e);
    this.scanStop.abort();
    this.scheduler.stop(e);
    for (const f of this.files) f.cancelRunning();
  }

  /**
   * Takes a scanned file in: where planning asks the server (a conflict policy that checks the target, or a resumed
   * journal's checks), its conflict and plan stages run while the scan goes on (waits while the scheduler's queue is
   * full, or MAX_FILES_PLANNING files are being planned).
   */
  private async enqueue(raw: FileItem): Promise<void> {
    await this.scheduler.room(MAX_QUEUED_TASKS);
    // Nothing to ask the server: the file is planned at once, as the scan hands it in.
    if ((this.req.conflict ?? 'overwrite') === 'overwrite' && !this.req.journal?.resuming)
      return this.resolveAndPlan(raw);
    if (this.planning.size >= MAX_FILES_PLANNING) await new Promise<void>((r) => this.waitingToPlan.push(r));
    const planned: Promise<void> = this.resolveAndPlan(raw).finally(() => {
      this.planning.delete(planned);
      this.waitingToPlan.shift()?.();
    });
    this.planning.add(planned);
  }

  /** The conflict, resume and plan stages of one file; their failures are the file's (never rejects). */
  private async resolveAndPlan(raw: FileItem): Promise<void> {
    this.books.filesTotal++;
    this.books.bytesTotal += raw.size;
    const a = await admit(this.admitContext, raw);
    if (a.kind === 'earlier') return this.books.fileCommittedEarlier(a.item);
    if (a.kind === 'skip') return this.books.fileSkipped(raw, a.reason, undefined, true);
    if (a.kind === 'failed') {
      this.books.fileFailed(a.item, a.error);
      if (a.planned) this.req.journal?.fileEnded(a.item.src, 'failed', a.error.toInfo());
      return;
    }
    const { resolved, start } = a;
    const f = new TransferFile(a.item, start.temp, this.fileContext);
    this.files.add(f);
    try {
      const resume = start.kind === 'resume' ? start : undefined;
      // A download fails before any byte moves when what it still writes cannot fit (localSpace.ts).
      await this.ends.dest.ensureRoom(
        f.dst,
        f.size - (resume?.doneBytes ?? (resolved.kind === 'append' ? resolved.offset : 0)),
      );
      // A partial copy the journal recorded at the temporary name is this job's own: resumed rather than appended to.
      if (resolved.kind === 'append' && !resume) {
        f.writeInPlace(resolved.offset);
        this.books.bytesTotal -= resolved.offset;
        return this.pushWhole(f, 'overwrite');
      }
      const mode = resolved.kind === 'write' ? resolved.mode : 'overwrite';
      const plan = await planFile(this.planContext, f, resume);
      if (plan.kind === 'whole') return this.pushWhole(f, mode);
      this.resumedBytes += resume?.doneBytes ?? 0;
      this.pushSegments(f, mode, plan.ranges);
    } catch (e) {
      this.giveUp(f, asSluice(e));
    }
  }

  /** Queues a file as one task through one handle, in order (once `before` settled). */
  private pushWhole(f: TransferFile, mode: CommitMode, before?: Promise<unknown>): void {
    f.planWhole();
    this.scheduler.push({
      priority: 1,
      heavy: f.size >= HEAVY_FILE_BYTES,
      run: async (lane) => {
        await before;
        if (f.ended) return;
        const size = await this.moveWholeOrInPlace(lane, f, mode);
        await this.finish(lane, f, mode, size);
      },
      fail: (e) => this.giveUp(f, e),
    });
  }

  /**
   * Moves a file through one handle; an upload whose temporary file the server refuses to create goes into its
   * target in place instead, where the target exists and may be written (inPlace.ts).
   * @returns the size read back after the writes
   */
  private async moveWholeOrInPlace(lane: Lane, f: TransferFile, mode: CommitMode): Promise<number> {
    try {
      return await f.moveWhole(lane);
    } catch (e) {
      if (mode !== 'overwrite' || this.aborted || !(await this.ends.dest.writesInPlaceAfter(lane, f, asSluice(e))))
        throw e;
      this.inPlaceNotices.writingInPlace(f.dst);
      f.writeInPlace(0);
      return f.moveWhole(lane);
    }
  }

  /**
   * Queues the segments of a file's `ranges`: channels take them by work stealing; the last one to finish commits
   * the file. With a journal, each durable segment is recorded.
   */
  private pushSegments(f: TransferFile, mode: CommitMode, ranges: readonly ByteRange[]): void {
    f.planSegments();
    const segments = segmentsOf(ranges, this.lanesCount, this.pool.settings.segmentSize);
    let left = segments.length;
    for (const [start, end] of segments) {
      let moved = false;
      this.scheduler.push({
        priority: 0,
        heavy: true,
        run: async (lane) => {
          // Not segmented any more: the file fell back to one handle; this segment's work is void, its failure too.
          if (f.ended || !f.segmented) return;
          // A retry after the connection died inside finish() must neither move the range again nor count it
          // twice (left would pass 0 and the file would be dropped without a word).
          if (!moved) {
            try {
              if (!(await f.moveRange(lane, start, end))) return;
            } catch (e) {
              if (!f.segmented || this.fallBack(f, asSluice(e), mode)) return;
              throw e;
            }
            moved = true;
            left--;
          }
          if (left === 0 && !f.ended) await this.finish(lane, f, mode);
        },
        fail: (e) => {
          if (f.segmented && !this.fallBack(f, e, mode)) this.giveUp(f, e);
        },
      });
    }
  }

  /**
   * A segmented upload the server refused (an open or a write through several handles failed although the probe
   * passed): the file goes again through one handle in order, once, and later uploads of the session use one handle.
   * @returns false when the file cannot fall back (a download, a second failure, a lost connection, an interrupt)
   */
  private fallBack(f: TransferFile, e: SluiceError, mode: CommitMode): boolean {
    if (!f.segmented || f.ended || this.aborted || !refusedByServer(e)) return false;
    if (!this.ends.dest.segmentsRefused(f, e)) return false;
    this.pushWhole(f, mode, f.fallBackToWhole());
    return true;
  }

  /** Verifies and commits a file; a failure removes its temporary file, a lost connection retries the task. */
  private async finish(lane: Lane, f: TransferFile, mode: CommitMode, knownSize?: number): Promise<void> {
    try {
      const committed = await f.commit(lane, mode, knownSize);
      this.appendedAfterBytes += f.inPlace?.offset ?? 0;
      this.files.delete(f);
      this.books.verifiedWeaker(committed.weakerWhy);
      if (committed.attrsNotKept)
        warnAttributesNotKept(this, committed.attrsNotKept.keep, committed.attrsNotKept.error);
      this.books.fileCommitted(f, committed.level);
      this.req.journal?.fileEnded(f.src, 'committed');
    } catch (e) {
      const se = asSluice(e);
      if (se.code === 'EXISTS' && mode === 'no-clobber') {
        this.files.delete(f);
        this.books.fileSkipped(f, 'the target exists', se);
        this.req.journal?.fileEnded(f.src, 'skipped');
        this.cleanups.push(f.abort('skipped'));
        return;
      }
      if (se.code.startsWith('CONNECTION') || se.code === 'TIMEOUT') throw se;
      if (se.code === 'SOURCE_CHANGED' && (await this.sendChangedAgain(f, se))) return;
      this.giveUp(f, se);
    }
  }

  /**
   * An upload whose source changed while it was sent starts again from zero with the source as it is now (its
   * temporary copy removed), at most MAX_SOURCE_RESTARTS times per file; then it fails with `e`.
   * @returns false when the file is given up instead
   */
  private async sendChangedAgain(f: TransferFile, e: SluiceError): Promise<boolean> {
    const tries = (this.sourceRestarts.get(f.src) ?? 0) + 1;
    if (tries > MAX_SOURCE_RESTARTS || this.aborted) return false;
    const st = await this.ends.source.stat(f.src);
    if (!st) return false;
    this.sourceRestarts.set(f.src, tries);
    this.log('warn', `${e.message}: sending it again (${tries} of ${MAX_SOURCE_RESTARTS})`);
    this.files.delete(f);
    f.discardProgress();
    this.books.filesTotal--;
    this.books.bytesTotal -= f.size;
    this.req.journal?.restartFile(f.src, 'the source changed while it was sent');
    this.cleanups.push(f.abort('failed'));
    await this.enqueue({ src: f.src, dst: f.dst, size: st.size, mode: f.mode, mtimeMs: st.mtimeMs });
    return true;
  }

  /** The file fails: said once, its tasks aborted, its temporary file removed. */
  private giveUp(f: TransferFile, e: SluiceError): void {
    if (f.ended) return;
    this.files.delete(f);
    this.books.fileFailed(f, e);
    // An interrupted or disconnected file with durable ranges in the job's journal keeps its temporary copy: the next
    // run
    // resumes it. A checkpoint still on its way (its fsync queued behind the aborted WRITEs) records nothing once the
    // copy is removed (see the `keptTemp` test where ranges are recorded).
    const resumable = isInterruption(e.code) && f.resumable;
    this.cleanups.push(f.abort('failed', resumable));
    if (resumable) this.keptFiles.push(f);
    if (!resumable) this.req.journal?.fileEnded(f.src, 'failed', e.toInfo());
  }
}
