/**
 * One file of a job on its way: its state (fileState.ts) and the only operations that touch its data — move it
 * whole through one handle, move one byte range (a segment), verify and commit it under its final name, or abort it
 * (close its handles, remove its temporary file). It reaches both sides only through its job's endpoints
 * (endpoints.ts), so one path moves bytes both ways. Model: rclone fs/operations/multithread.go, where the job cuts
 * the chunks and reaches storage only through WriteChunk / Close / Abort. Its methods return what happened (sizes,
 * durable ranges, the verification reached, the clean-up to await); the job keeps the books.
 *
 * Temporary names (docs/engine.md): `.NAME.sluice-XXXXXXXX.part` beside the target, made by the stage that plans the
 * file (the destination endpoint, or the journal of a resumed job); a file never appears under its final name until
 * it is complete and verified — except a file written in place (`inPlace`: the conflict rule `append`, or an upload
 * into a folder where files cannot be created), whose target is written directly, through one handle, and never
 * removed when the file fails.
 */
import { SluiceError } from '../errors';
import type { CallOptions } from '../ssh/connection';
import type { Lane } from '../ssh/connectionPool';
import type { InPlace, KeptAttributes } from '../ssh/workerProtocol';
import { attributesToKeep } from './attributes';
import type { CommitMode } from './conflict';
import type { EndpointFile, Endpoints } from './endpoints';
import { inUserTerms } from './fileNames';
import { advance, isFinalPhase, type FilePhase } from './fileState';
import type { FileInFlight } from './runBooks';
import type { FileItem } from './scan';
import type { ByteRange, TransferRequest, VerifyLevel } from './types';

/** What a file needs from its job: its endpoints, its request, and where its bytes are counted. */
export interface FileContext {
  readonly ends: Endpoints;
  readonly req: TransferRequest;
  /** Counts bytes into the job: `done` toward the file's size (negative: counted back out), `moved` over the wire. */
  count(done: number, moved: number): void;
  /** The job's interrupt, once it came: nothing more is committed. */
  aborted(): SluiceError | null;
}

/** A committed file: the verification it reached, and what the job says once about it. */
export interface Committed {
  level: VerifyLevel;
  /** `--verify sha256` read the copy back: why the server did not hash it (RunBooks.verifiedWeaker). */
  weakerWhy?: string;
  /** The attributes the target could not be given (committed without them), in the user's terms. */
  attrsNotKept?: { keep: KeptAttributes; error: SluiceError };
}

/**
 * The checkpoint interval, ms. A segment still moving fsyncs its file this often and its durable prefix is recorded
 * (sftp/rangeCheckpoints.ts); finished segments are made durable together by a checkpoint when one ends this long
 * after the last (or CHECKPOINT_BYTES later). A cut or a kill then sends again what was in flight and about this long
 * of data, not every lane's unfinished segment (#24 item 11: 111 MiB of a 256 MiB put with checkpoints only between
 * segments, every 2 s).
 */
export const CHECKPOINT_MS = 250;
/** A checkpoint of finished segments is also due after this many bytes (32 MiB: ~0.1 s at 300 MB/s). */
const CHECKPOINT_BYTES = 32 * 1024 * 1024;

export class TransferFile implements FileItem, FileInFlight, EndpointFile {
  readonly src: string;
  readonly dst: string;
  readonly size: number;
  readonly mode: number;
  readonly mtimeMs: number;
  /** The target the conflict rule `rename` moved away from (it existed): `dst` is then `NAME (1).ext`. */
  readonly renamedFrom?: string;
  private tempName: string;
  /** Set when the file is written into its target directly ({@link writeInPlace}). */
  inPlace: InPlace | undefined;
  /** The source's attributes the target gets before its rename (the job's preserveTimes / preservePermissions). */
  private readonly keep: KeptAttributes | undefined;
  /** Why the last attempt could not give the target those attributes (said once the file committed). */
  private attrsRefused: SluiceError | undefined;
  private state: FilePhase = 'planned';
  /** Bytes moved so far (a failed attempt's bytes are counted back out). */
  done = 0;
  /** Bytes of this file's segments that completed (a fallback moves them again). */
  private segmentBytes = 0;
  /**
   * How the file moves: whole through one handle, or in segments over several channels. A segmented upload the
   * server refuses goes back to `whole` once ({@link fallBackToWhole}); segments still running then count for nothing.
   */
  private route: 'whole' | 'segments' = 'whole';
  /** Cancel switches of this file's data-moving calls still running. */
  private readonly running = new Set<AbortController>();
  /** Connections that ran a segment of this file (they keep its handles open until released). */
  private readonly segmentConns = new Set<Lane['conn']>();
  /** Worker calls of this file still running (their opens may create the temporary file). */
  private readonly calls = new Set<Promise<unknown>>();
  /** Segments moved since the last checkpoint (not yet known to be durable). */
  private readonly unsynced: ByteRange[] = [];
  private unsyncedBytes = 0;
  /** When the last checkpoint was sent (0: no segment started yet; the clock starts with the first). */
  private lastCheckpoint = 0;
  /** The destination offers no fsync: no checkpoint can make this file's segments durable. */
  private noFsync = false;
  /** A journal holds durable ranges of this file at its temporary name (kept when the job is interrupted). */
  private journalled = false;
  /** The file was given up with its temporary copy kept for the next run (see abort). */
  private keptTemp = false;
  /** The end of the furthest range a journal holds for this file (this run's records and an earlier run's), bytes. */
  private recordedEnd = 0;
  private localHashed = 0;
  private remoteHashed = 0;

  /**
   * @param item the file and its target (`renamedFrom`: the conflict rule `rename` chose `dst`)
   * @param temp its temporary name, as the plan stage made it (resume.ts, or the destination endpoint)
   */
  constructor(
    item: FileItem & { renamedFrom?: string },
    temp: string,
    private readonly ctx: FileContext,
  ) {
    ({ src: this.src, dst: this.dst, size: this.size, mode: this.mode, mtimeMs: this.mtimeMs } = item);
    if (item.renamedFrom !== undefined) this.renamedFrom = item.renamedFrom;
    this.tempName = temp;
    this.keep = attributesToKeep(ctx.req, item);
  }

  /** The temporary name; the target itself when `inPlace`. */
  get temp(): string {
    return this.tempName;
  }

  /** Whether the file moves in segments now (false once it fell back to one handle). */
  get segmented(): boolean {
    return this.route === 'segments';
  }

  /** Whether its temporary copy is kept at the job's end: a journal holds durable ranges of it. */
  get resumable(): boolean {
    return this.journalled;
  }

  /**
   * From now on the file is written into its target directly, through one handle, keeping the target's first
   * `offset` bytes (0: truncated and written whole). No rename commits it, and a failure leaves the target as it is
   * (never removed). Handles kept under the temporary name must be released before (release() names `temp`).
   */
  writeInPlace(offset: number): void {
    this.inPlace = { offset };
    this.tempName = this.dst;
    this.route = 'whole';
    // Shown in the progress samples as already there; the job's byte counts only what is sent.
    this.done = offset;
  }

  get phase(): FilePhase {
    return this.state;
  }

  /** Committed, skipped or failed: nothing more runs for this file. */
  get ended(): boolean {
    return isFinalPhase(this.state);
  }

  /** Moves the file to its next state. @throws Error on an illegal transition (a bug) */
  to(next: FilePhase): void {
    this.state = advance(this.state, next);
  }

  /** Runs a worker call of this file that moves data, counting its bytes into the file and the job. */
  private async withTask<T>(fn: (options: CallOptions) => Promise<T>, extra: CallOptions = {}): Promise<T> {
    let counted = 0;
    const abort = new AbortController();
    this.running.add(abort);
    const onProgress = (n: number) => {
      counted += n;
      this.done += n;
      this.ctx.count(n, n);
    };
    const call = fn({ ...extra, signal: abort.signal, onProgress });
    this.calls.add(call);
    try {
      return await call;
    } catch (e) {
      // bytes of a failed attempt are moved again by the retry
      this.uncount(counted);
      throw e;
    } finally {
      this.running.delete(abort);
      this.calls.delete(call);
    }
  }

  /** Queued to move whole through one handle. */
  planWhole(): void {
    this.route = 'whole';
  }

  /** Queued to move in segments. */
  planSegments(): void {
    this.route = 'segments';
  }

  /**
   * Moves the whole file through one handle, in order.
   * @returns the size the destination reported after its fsync (saves the commit a round trip)
   */
  async moveWhole(lane: Lane): Promise<number> {
    this.to('moving');
    const end = await this.withTask((o) => this.ctx.ends.moveWhole(lane, this, this.keep, o));
    this.attrsRefused = end.attrsRefused;
    return end.size;
  }

  /**
   * Moves bytes [start, end) through `lane`; the handle stays open for the file's next segment on that channel.
   * With a journal, once CHECKPOINT_BYTES or CHECKPOINT_MS of segments moved since the last checkpoint, a checkpoint
   * (an fsync) makes them durable, and they are recorded in the journal.
   * @returns false when the segment counts for nothing (the file fell back to one handle meanwhile)
   */
  async moveRange(lane: Lane, start: number, end: number): Promise<boolean> {
    if (this.state !== 'moving') this.to('moving');
    // The checkpoint clock starts when the file's first segment does (a 2 s interval, not 2 s after its first end).
    if (this.lastCheckpoint === 0) this.lastCheckpoint = Date.now();
    this.segmentConns.add(lane.conn);
    const journalled = this.ctx.req.journal !== undefined && !this.noFsync;
    const onDurable = (to: number) => {
      if (this.route === 'segments') this.recordDurable([[start, to]]);
    };
    await this.withTask(
      (o) => this.ctx.ends.moveRange(lane, this, start, end, journalled ? CHECKPOINT_MS : undefined, o),
      { onDurable },
    );
    if (this.route !== 'segments') {
      this.uncount(end - start);
      return false;
    }
    this.segmentBytes += end - start;
    if (this.ctx.req.journal === undefined || this.noFsync) return true;
    this.unsynced.push([start, end]);
    this.unsyncedBytes += end - start;
    if (!this.checkpointDue()) return true;
    const durable = await this.checkpoint(lane);
    // The file fell back to one handle while the fsync was on its way: its ranges are void.
    if (this.route !== 'segments') return false;
    this.recordDurable(durable);
    return true;
  }

  private checkpointDue(): boolean {
    const now = Date.now();
    return this.unsyncedBytes >= CHECKPOINT_BYTES || now - this.lastCheckpoint >= CHECKPOINT_MS;
  }

  /** fsyncs the file: every segment moved before is durable (its last reply came before the fsync was sent). */
  private async checkpoint(lane: Lane): Promise<ByteRange[]> {
    const covered = this.unsynced.splice(0);
    const coveredBytes = this.unsyncedBytes;
    this.unsyncedBytes = 0;
    // Sent now: segments that end while this fsync is on its way wait for the next checkpoint, not one each.
    this.lastCheckpoint = Date.now();
    const durable = await this.ctx.ends.checkpoint(lane, this).catch(() => null);
    if (!durable) {
      // false: no fsync@openssh.com, nothing of this upload is recorded (its ranges could not be trusted after a
      // crash); null: this checkpoint failed, the next one covers its ranges.
      this.noFsync = durable === false;
      this.unsynced.unshift(...covered);
      this.unsyncedBytes += coveredBytes;
      return [];
    }
    return covered;
  }

  /**
   * Records durable ranges of the segmented file in the job's journal: a finished segment's at a checkpoint, a moving
   * one's prefix. A file given up without its temporary copy has nothing left to record.
   */
  private recordDurable(ranges: readonly ByteRange[]): void {
    const journal = this.ctx.req.journal;
    if (!ranges.length || !journal || (this.ended && !this.keptTemp)) return;
    for (const [a, b] of ranges) {
      journal.recordRange(this.src, a, b);
      this.recordedEnd = Math.max(this.recordedEnd, b);
    }
    // A checkpoint is already a batch (a lane's half second, or 32 MiB of segments): written out at once.
    journal.flush();
    this.journalled = true;
  }

  /**
   * Counts bytes an earlier run already moved (the job resumes after them; a fallback moves them again).
   * @param recordedEnd the end of the furthest range the journal holds, bytes
   */
  resumeAfter(bytes: number, recordedEnd: number): void {
    this.journalled = bytes > 0;
    this.recordedEnd = recordedEnd;
    this.skipHoles(bytes);
  }

  /**
   * Counts a sparse upload's holes as done (sparseUpload.ts): they are never sent, the server's file reads them as
   * zeros. A fallback to one handle counts them back out with the segments (undoSegments).
   */
  skipHoles(bytes: number): void {
    this.done += bytes;
    this.ctx.count(bytes, 0);
    this.segmentBytes += bytes;
  }

  /**
   * Opens the temporary file for its segments on every lane ahead of them, where the destination wants that (one
   * round trip less before the first write while the out-of-order probe runs); release() closes what they leave.
   */
  openAhead(lanes: Lane[]): void {
    for (const conn of this.ctx.ends.dest.openAhead(this, lanes)) this.segmentConns.add(conn);
  }

  /** Closes the handles the segments kept open, on every connection except `except`; never rejects. */
  release(except?: Lane['conn']): Promise<unknown> {
    return Promise.all([...this.segmentConns].filter((c) => c !== except).map((c) => this.ctx.ends.release(c, this)));
  }

  /** Aborts the file's running tasks (each counts its own bytes back out). */
  cancelRunning(): void {
    for (const a of this.running) a.abort();
  }

  private uncount(bytes: number): void {
    this.ctx.count(-bytes, 0);
    this.done -= bytes;
  }

  /**
   * A segmented file the destination refused goes again through one handle: its running segments are cancelled
   * (each counts its bytes back out), the completed ones counted out here, its journal records dropped.
   * @returns the release of its segment handles, to await before the file moves again
   */
  fallBackToWhole(): Promise<unknown> {
    this.cancelRunning();
    this.uncount(this.segmentBytes);
    this.segmentBytes = 0;
    this.journalled = false;
    this.ctx.req.journal?.restartFile(this.src, 'sent again through one handle');
    return this.release();
  }

  /**
   * Verifies and commits the file under its final name (`mode`: see CommitMode).
   * @param knownSize the size a whole-file task read back after its fsync
   * @returns the level of verification reached, and what the job says once
   * @throws SluiceError VERIFY_FAILED (size or SHA-256 differs), SOURCE_CHANGED, EXISTS (no-clobber target appeared),
   *   ABORTED, or the error of the fsync, hash or rename
   */
  async commit(lane: Lane, mode: CommitMode, knownSize?: number): Promise<Committed> {
    this.to('verifying');
    const { source, dest } = this.ctx.ends;
    // Segment handles close first (a remote finish closes those of its own connection, in its round trip).
    const released = this.release(dest.finishReleasesLane ? lane.conn : undefined);
    let size = knownSize;
    if (size === undefined) {
      const end = await dest.finish(lane, this, this.keep, released);
      this.attrsRefused = end.attrsRefused;
      size = end.size;
    }
    await released;
    if (size !== this.size)
      throw new SluiceError(
        'VERIFY_FAILED',
        `${this.dst}: size after transfer is ${size} bytes, expected ${this.size}`,
      );
    await source.checkUnchanged(this);
    const verified = this.ctx.req.verify === 'sha256' ? await this.compareHashes(lane) : { level: 'size' as const };
    // An interrupted job commits nothing, even a file whose last bytes raced the interrupt.
    const aborted = this.ctx.aborted();
    if (aborted) throw aborted;
    // In place, the target already is the file.
    this.attrsRefused = (await dest.commit(lane, this, mode, this.keep)) ?? this.attrsRefused;
    this.to('committed');
    if (!this.attrsRefused || !this.keep) return verified;
    return {
      ...verified,
      attrsNotKept: { keep: this.keep, error: inUserTerms(this.attrsRefused, this.temp, this.dst) },
    };
  }

  /** Counts every byte this file moved back out (it is sent again from zero as a new file). */
  discardProgress(): void {
    this.uncount(this.done);
    this.segmentBytes = 0;
    this.journalled = false;
  }

  /**
   * Bytes of the file hashed so far while it is verified (`--verify sha256`): the slower side's when the remote side is
   * read back (both report progress), else the local side's (the server hashes without telling).
   */
  get hashedBytes(): number {
    return this.remoteHashed > 0 ? Math.min(this.localHashed, this.remoteHashed) : this.localHashed;
  }

  private async compareHashes(lane: Lane): Promise<Omit<Committed, 'attrsNotKept'>> {
    const { local, remote } = await this.ctx.ends.hashes(lane, this, this.ctx.req.allowExec !== false, {
      local: (n) => {
        this.localHashed += n;
      },
      remote: (n) => {
        this.remoteHashed += n;
      },
    });
    const how = remote.method === 'reread' ? 'read back over SFTP' : `by the server (${remote.method})`;
    if (local !== remote.sha256) {
      throw new SluiceError(
        'VERIFY_FAILED',
        `${this.dst}: SHA-256 differs after transfer (local ${local}, remote ${remote.sha256}, hashed ${how})`,
      );
    }
    return remote.method === 'reread' ? { level: 'sha256-reread', weakerWhy: remote.why } : { level: 'sha256-remote' };
  }

  /**
   * At the job's end: closes the file's handles and removes its temporary copy, unless a journal holds durable ranges
   * of it (the next run resumes them). Never rejects.
   */
  close(): Promise<unknown> {
    return this.release().then(() => (this.journalled ? undefined : this.ctx.ends.dest.removeTemp(this)));
  }

  /**
   * Keeps the temporary copy for the next run: a local one is cut after its last recorded byte, which gives back the
   * disk its preallocation reserved, so a kept `.part` takes no more room than what it holds. Called once no range
   * can be recorded any more (the job drained).
   */
  keepTemp(): Promise<unknown> {
    return this.ctx.ends.dest.keepTemp(this, this.recordedEnd);
  }

  /**
   * Gives the file up: it ends `failed` (or `skipped`), its tasks are aborted, and once its calls ended its handles
   * are closed and its temporary file removed (a handle opened ahead must not recreate the removed file) — unless
   * `keepTemp`: the job's journal holds (or a checkpoint still on its way may record) its durable ranges, and the next
   * run resumes from them.
   * @returns the clean-up, for the job to await before it returns
   */
  abort(as: 'failed' | 'skipped' = 'failed', keepTemp = false): Promise<unknown> {
    this.keptTemp = keepTemp;
    this.to(as);
    this.cancelRunning();
    return Promise.allSettled([...this.calls])
      .then(() => this.release())
      .then(() => (keepTemp ? undefined : this.ctx.ends.dest.removeTemp(this)));
  }
}
