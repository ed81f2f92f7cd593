/**
 * One file of a job on its way: its state (fileState.ts) and the only operations that touch its data — move it
 * whole through one handle, move one byte range (a segment), verify and commit it under its final name, or abort it
 * (close its handles, remove its temporary file). Model: rclone fs/operations/multithread.go, where the job cuts
 * the chunks and reaches storage only through WriteChunk / Close / Abort.
 *
 * Temporary names (docs/engine.md): `.NAME.sluice-XXXXXXXX.part` beside the target, remote for uploads and local
 * for downloads; a file never appears under its final name until it is complete and verified — except a file written
 * in place (`inPlace`: the conflict rule `append`, or an upload into a folder where files cannot be created), whose
 * target is written directly, through one handle, and never removed when the file fails.
 */
import fs from 'node:fs';
import { fromLocalError, SluiceError } from '../errors';
import type { Lane, Session } from '../ssh/session';
import { tempFileMode, type InPlace, type KeptAttributes, type UploadEnd } from '../ssh/workerProtocol';
import { attributesToKeep, warnAttributesNotKept } from './attributes';
import type { CommitMode } from './conflict';
import { inUserTerms, tempNameFor } from './fileNames';
import { advance, isFinalPhase, type FilePhase } from './fileState';
import type { CallOptions } from '../ssh/connection';
import type { FileInFlight, JobBooks } from './job';
import { keepLocalAttributes, localCommit, localFinish } from './localFiles';
import { releaseReservation } from '../sys/preallocate';
import type { FileItem } from './scan';
import type { ByteRange, TransferRequest, VerifyLevel } from './types';

/** What a file needs from its job. */
export interface FileJob {
  readonly session: Session;
  readonly req: TransferRequest;
  readonly books: JobBooks;
  /** Set once the job was interrupted: nothing more is committed. */
  readonly aborted: SluiceError | null;
  /** Clean-ups the job awaits before it returns. */
  readonly cleanups: Array<Promise<unknown>>;
  /** Records ranges of `f` that became durable at its temporary name in the job's journal (if it has one). */
  recordDurable(f: TransferFile, ranges: readonly ByteRange[]): void;
}

/** Groups channels by the connection they belong to. */
function byConnection(lanes: Lane[]): Map<Lane['conn'], number[]> {
  const out = new Map<Lane['conn'], number[]>();
  for (const { conn, channel } of lanes) out.set(conn, [...(out.get(conn) ?? []), channel]);
  return out;
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

export class TransferFile implements FileItem, FileInFlight {
  readonly src: string;
  readonly dst: string;
  readonly size: number;
  readonly mode: number;
  readonly mtimeMs: number;
  /** The temporary name (an earlier run's, when the job resumes: see resume.ts); the target itself when `inPlace`. */
  temp: string;
  /** Set when the file is written into its target directly ({@link writeInPlace}). */
  inPlace: InPlace | undefined;
  /** The source's attributes the target gets before its rename (the job's preserveTimes / preservePermissions). */
  private readonly keep: KeptAttributes | undefined;
  /** Why the last attempt could not give the target those attributes (warned about once the file committed). */
  private attrsRefused: SluiceError | undefined;
  private state: FilePhase = 'planned';
  /** Bytes moved so far (a failed attempt's bytes are counted back out). */
  done = 0;
  /** Bytes of this file's segments that completed (a fallback moves them again). */
  private segmentBytes = 0;
  /**
   * How the file moves: whole through one handle, or in segments over several channels. A segmented upload the
   * server refuses goes back to `whole` once (the job's fallback); segments still running then count for nothing.
   */
  route: 'whole' | 'segments' = 'whole';
  /** Cancel switches of this file's data-moving calls still running. */
  private readonly running = new Set<AbortController>();
  /** Connections that ran a segment of this file (they keep its handles open until released). */
  readonly segmentConns = new Set<Lane['conn']>();
  /** Worker calls of this file still running (their SSH_FXP_OPENs may create the temporary file). */
  private readonly calls = new Set<Promise<unknown>>();
  private readonly put: boolean;

  /** An upload's temporary file is created writable by its owner; a download's mode goes to the worker as it is. */
  private get createMode(): number {
    return this.put ? tempFileMode(this.mode) : this.mode;
  }

  /** The target the conflict rule `rename` moved away from (it existed): `dst` is then `NAME (1).ext`. */
  renamedFrom?: string;

  constructor(item: FileItem, private readonly job: FileJob) {
    ({ src: this.src, dst: this.dst, size: this.size, mode: this.mode, mtimeMs: this.mtimeMs } = item);
    this.put = job.req.direction === 'put';
    this.temp = tempNameFor(item.dst, this.put);
    this.keep = attributesToKeep(job.req, item);
  }

  /**
   * From now on the file is written into its target directly, through one handle, keeping the target's first
   * `offset` bytes (0: truncated and written whole). No rename commits it, and a failure leaves the target as it is
   * (never removed). Handles kept under the temporary name must be released before (release() names `temp`).
   */
  writeInPlace(offset: number): void {
    this.inPlace = { offset };
    this.temp = this.dst;
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

  /** Runs a worker call of this file on `lane` that moves data, counting its bytes into the file and the job. */
  private async withTask<T>(fn: (options: CallOptions) => Promise<T>): Promise<T> {
    const books = this.job.books;
    let counted = 0;
    const abort = new AbortController();
    this.running.add(abort);
    const call = fn({ signal: abort.signal, onProgress: (n) => { counted += n; this.done += n; books.bytesDone += n; books.bytesMoved += n; } });
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

  /**
   * Moves the whole file through one handle, in order.
   * @returns the size the worker read back after its fsync (saves the commit a round trip)
   */
  moveWhole(lane: Lane): Promise<number> {
    this.to('moving');
    const { conn, channel } = lane;
    return this.withTask((options) => (this.put
      ? conn.call('putFile', {
        channel, localPath: this.src, remoteTemp: this.temp, size: this.size, mode: this.createMode, keep: this.keep, inPlace: this.inPlace,
      }, options).then((end) => this.uploadEnded(end))
      : conn.call('getFile', {
        channel, remotePath: this.src, localTemp: this.temp, size: this.size, mode: this.mode, inPlace: this.inPlace,
      }, options)));
  }

  /** Notes whether the server took the attributes (SSH_FXP_FSETSTAT) of an upload that ended; @returns its size */
  private uploadEnded(end: UploadEnd): number {
    this.attrsRefused = end.attrsRefused && SluiceError.fromInfo(end.attrsRefused);
    return end.size;
  }

  /**
   * Moves bytes [start, end) through `lane`; the handle stays open for the file's next segment on that channel.
   * With a journal, once CHECKPOINT_BYTES or CHECKPOINT_MS of segments moved since the last checkpoint, a checkpoint
   * (an fsync) makes them durable.
   * @returns the ranges that became durable (none between checkpoints, or when the server offers no fsync)
   */
  async moveRange(lane: Lane, start: number, end: number): Promise<ByteRange[]> {
    if (this.state !== 'moving') this.to('moving');
    // The checkpoint clock starts when the file's first segment does (a 2 s interval, not 2 s after its first end).
    if (this.lastCheckpoint === 0) this.lastCheckpoint = Date.now();
    this.segmentConns.add(lane.conn);
    const journalled = this.job.req.journal !== undefined && !this.noFsync;
    await this.withTask((options) => lane.conn.call(this.put ? 'upload' : 'download', {
      channel: lane.channel, remotePath: this.put ? this.temp : this.src, localPath: this.put ? this.src : this.temp,
      start, end, mode: this.createMode, fileEnd: !this.put && end === this.size,
      checkpointMs: journalled ? CHECKPOINT_MS : undefined,
    }, {
      ...options,
      onDurable: (to) => { if (this.route === 'segments') this.job.recordDurable(this, [[start, to]]); },
    }));
    if (this.route !== 'segments') {
      this.uncount(end - start);
      return [];
    }
    this.segmentBytes += end - start;
    if (this.job.req.journal === undefined || this.noFsync) return [];
    this.unsynced.push([start, end]);
    this.unsyncedBytes += end - start;
    return this.checkpointDue() ? this.checkpoint(lane) : [];
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
    const durable = await lane.conn.call('checkpoint', {
      channel: lane.channel, direction: this.put ? 'upload' : 'download', remotePath: this.put ? this.temp : this.src, localPath: this.put ? this.src : this.temp,
    }).catch(() => null);
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

  /** Segments moved since the last checkpoint (not yet known to be durable). */
  private readonly unsynced: ByteRange[] = [];
  private unsyncedBytes = 0;
  /** When the last checkpoint was sent (0: no segment started yet; the clock starts with the first). */
  private lastCheckpoint = 0;
  /** The server offers no fsync@openssh.com: no checkpoint can make this upload's segments durable. */
  private noFsync = false;

  /** A journal holds durable ranges of this file at its temporary name (kept when the job is interrupted). */
  journalled = false;

  /** The file was given up with its temporary copy kept for the next run (see abort). */
  keptTemp = false;

  /** The end of the furthest range a journal holds for this file (this run's records and an earlier run's), bytes. */
  recordedEnd = 0;

  /** Counts bytes an earlier run already moved (the job resumes after them; a fallback moves them again). */
  resumeAfter(bytes: number): void {
    this.journalled = bytes > 0;
    this.done += bytes;
    this.job.books.bytesDone += bytes;
    this.segmentBytes += bytes;
  }

  /**
   * Counts a sparse upload's holes as done (sparseUpload.ts): they are never sent, the server's file reads them as
   * zeros. A fallback to one handle counts them back out with the segments (undoSegments).
   */
  skipHoles(bytes: number): void {
    this.done += bytes;
    this.job.books.bytesDone += bytes;
    this.segmentBytes += bytes;
  }

  /**
   * Opens a segmented upload's temporary file on every lane ahead of its segments (one round trip less before the
   * first SSH_FXP_WRITE while the out-of-order probe runs); segments take those handles, release() closes the rest.
   */
  openAhead(lanes: Lane[]): void {
    for (const [conn, channels] of byConnection(lanes)) {
      this.segmentConns.add(conn);
      conn.call('openAhead', { channels, remotePath: this.temp, mode: this.createMode }).catch(() => undefined);
    }
  }

  /** Closes the handles the segments kept open, on every connection except `except`; never rejects. */
  release(except?: Lane['conn']): Promise<unknown> {
    const args = { remotePath: this.put ? this.temp : this.src, localPath: this.put ? this.src : this.temp, direction: this.put ? 'upload' : 'download' } as const;
    return Promise.all([...this.segmentConns].filter((c) => c !== except).map((c) => c.call('releaseFile', args).catch(() => undefined)));
  }

  /** Aborts the file's running tasks (each counts its own bytes back out). */
  cancelRunning(): void {
    for (const a of this.running) a.abort();
  }

  private uncount(bytes: number): void {
    this.job.books.bytesDone -= bytes;
    this.done -= bytes;
  }

  /** Counts the completed segments' bytes back out: the file moves again through one handle. */
  undoSegments(): void {
    this.uncount(this.segmentBytes);
    this.segmentBytes = 0;
  }

  /**
   * Verifies and commits the file under its final name (`mode`: see CommitMode).
   * @param knownSize the size a whole-file task read back after its fsync
   * @returns the level of verification reached
   * @throws SluiceError VERIFY_FAILED (size or SHA-256 differs), EXISTS (no-clobber target appeared), ABORTED, or
   *   the SFTP / local error of the FSTAT, hash or rename
   */
  async commit(lane: Lane, mode: CommitMode, knownSize?: number): Promise<VerifyLevel> {
    this.to('verifying');
    // Segment handles close first (an upload's finishUpload closes those of its own connection, in its round trip).
    const released = this.release(this.put ? lane.conn : undefined);
    // size: always (a download's local handles must be closed before its fsync and size check)
    const size = knownSize ?? (this.put
      ? this.uploadEnded(await lane.conn.call('finishUpload', { channel: lane.channel, path: this.temp, keep: this.keep }))
      : await released.then(() => localFinish(this.temp)));
    await released;
    if (size !== this.size) throw new SluiceError('VERIFY_FAILED', `${this.dst}: size after transfer is ${size} bytes, expected ${this.size}`);
    if (this.put) await this.checkSourceUnchanged();
    const level = this.job.req.verify === 'sha256' ? await this.compareHashes(lane) : 'size';
    // An interrupted job commits nothing, even a file whose last bytes raced the interrupt.
    if (this.job.aborted) throw this.job.aborted;
    // In place, the target already is the file: an upload's attributes were set on its handle, a download's here.
    if (this.put) {
      if (!this.inPlace) await lane.conn.call('rename', { channel: lane.channel, from: this.temp, to: this.dst, mode });
    } else {
      this.attrsRefused = await keepLocalAttributes(this.temp, this.keep, this.inPlace ? undefined : this.mode);
      if (!this.inPlace) await localCommit(this.temp, this.dst, mode);
    }
    this.to('committed');
    if (this.attrsRefused && this.keep) warnAttributesNotKept(this.job, this.keep, inUserTerms(this.attrsRefused, this.temp, this.dst));
    return level;
  }

  /**
   * An upload's source must still be what was planned (size and modification time), or the copy may mix old and
   * new bytes: such a copy is not committed.
   * @throws SluiceError SOURCE_CHANGED; LOCAL_IO when the source is gone or unreadable
   */
  private async checkSourceUnchanged(): Promise<void> {
    const st = await fs.promises.stat(this.src).catch((e: unknown) => { throw fromLocalError(e, this.src, 'stat'); });
    if (st.size === this.size && Math.trunc(st.mtimeMs) === Math.trunc(this.mtimeMs)) return;
    throw new SluiceError('SOURCE_CHANGED', `${this.src} changed while it was sent (${this.size} → ${st.size} bytes, modified `
      + `${new Date(st.mtimeMs).toISOString()}): the copy is not committed`);
  }

  /** Counts every byte this file moved back out (it is sent again from zero as a new file). */
  discardProgress(): void {
    this.uncount(this.done);
    this.segmentBytes = 0;
  }

  /**
   * Bytes of the file hashed so far while it is verified (`--verify sha256`): the slower side's when the remote side is
   * read back (both report progress), else the local side's (the server hashes without telling).
   */
  get hashedBytes(): number {
    return this.remoteHashed > 0 ? Math.min(this.localHashed, this.remoteHashed) : this.localHashed;
  }

  private localHashed = 0;
  private remoteHashed = 0;

  private async compareHashes(lane: Lane): Promise<VerifyLevel> {
    const [local, remote] = await Promise.all([
      lane.conn.call('hashLocal', { path: this.put ? this.src : this.temp }, { onProgress: (n) => { this.localHashed += n; } }),
      lane.conn.call('hashRemote', {
        channel: lane.channel, path: this.put ? this.temp : this.src, size: this.size, allowExec: this.job.req.allowExec !== false,
      }, { onProgress: (n) => { this.remoteHashed += n; } }),
    ]);
    const how = remote.method === 'reread' ? 'read back over SFTP' : `by the server (${remote.method})`;
    if (local !== remote.sha256) {
      throw new SluiceError('VERIFY_FAILED', `${this.dst}: SHA-256 differs after transfer (local ${local}, remote ${remote.sha256}, hashed ${how})`);
    }
    if (remote.method === 'reread') this.job.books.verifiedWeaker(remote.why);
    return remote.method === 'reread' ? 'sha256-reread' : 'sha256-remote';
  }

  /**
   * Removes the temporary copy; a remote one a lost connection kept is recorded for the next connection. Nothing for
   * a file written in place: its temporary name is the target.
   */
  removeTemp(): Promise<unknown> {
    if (this.inPlace) return Promise.resolve();
    const { session } = this.job;
    const p = this.put
      ? session.call('remove', { path: this.temp }).catch((e: unknown) => {
        if (SluiceError.from(e).code !== 'NO_SUCH_FILE') session.leftovers.record({ kind: 'temp', path: this.temp });
      })
      : fs.promises.unlink(this.temp).catch(() => undefined);
    return p;
  }

  /**
   * Keeps the temporary copy for the next run: a download's is cut after its last recorded byte, which gives back the
   * disk its preallocation reserved (sys/preallocate.ts releaseReservation), so a kept `.part` takes no more room
   * than what it holds. Called once no range can be recorded any more (the job drained).
   */
  keepTemp(): Promise<unknown> {
    return this.put || this.inPlace ? Promise.resolve() : releaseReservation(this.temp, this.recordedEnd);
  }

  /**
   * Gives the file up: it ends `failed` (or `skipped`), its tasks are aborted, and once its calls ended its handles
   * are closed and its temporary file removed (a handle opened ahead must not recreate the removed file) — unless
   * `keepTemp`: the job's journal holds (or a checkpoint still on its way may record) its durable ranges, and the next
   * run resumes from them.
   */
  abort(as: 'failed' | 'skipped' = 'failed', keepTemp = false): void {
    this.keptTemp = keepTemp;
    this.to(as);
    this.cancelRunning();
    this.job.cleanups.push(Promise.allSettled([...this.calls]).then(() => this.release()).then(() => (keepTemp ? undefined : this.removeTemp())));
  }
}
