/**
 * The two ends of a job's files: a source endpoint and a destination endpoint (a local file, a remote file), chosen
 * once per job from its direction. Everything that differs between an upload and a download is here and in the two
 * endpoint modules (localEndpoint.ts, remoteEndpoint.ts); the job (run.ts) and the file (transferFile.ts) only ask
 * their endpoints. Models: ssh2's `fastXfer(src, dst, …)` (lib/protocol/SFTP.js), one loop over a source and a
 * destination that each open, read or write, stat and close; rclone's fs/operations/multithread.go, where the copy
 * reaches the destination only through WriteChunk / Close / Abort.
 *
 * Bytes still move through the worker's range operations (sftp/pipeline.ts), which read one side and write the other
 * in one call: the pair of sides names the operation ({@link WORKER_ROUTES}); each endpoint gives its path to it.
 */
import { SluiceError } from '../errors';
import type { CallOptions } from '../ssh/connection';
import type { Lane } from '../ssh/connectionPool';
import type { InPlace, KeptAttributes } from '../ssh/workerProtocol';
import type { CommitMode } from './conflict';
import type { SparsePlan } from './sparseUpload';
import type { FileTimes } from './types';

/** Where a file lies: on this computer, or on the server. */
export type Side = 'local' | 'remote';

/** One file of a job, as its endpoints see it (transferFile.ts TransferFile). */
export interface EndpointFile {
  readonly src: string;
  readonly dst: string;
  /** The temporary name the destination writes (the target itself when `inPlace`). */
  readonly temp: string;
  /** Bytes. */
  readonly size: number;
  /** The source's permission bits. */
  readonly mode: number;
  /** The source's modification time, ms since the epoch. */
  readonly mtimeMs: number;
  readonly inPlace: InPlace | undefined;
}

/** How a temporary file ended: its size on the destination and a refusal of the attributes it was to get. */
export interface FileEnd {
  size: number;
  attrsRefused?: SluiceError;
}

/** The side a file is read from. */
export interface SourceEndpoint {
  readonly side: Side;
  /** The worker's name for a path on this side (RangeTask `localPath` / `remotePath`). */
  readonly pathKey: 'localPath' | 'remotePath';
  /** Size and modification time of `p` now; null when it is gone or not a regular file. */
  stat(p: string): Promise<FileTimes | null>;
  /**
   * Checks that the source is still what was planned (size and modification time), before its copy commits.
   * @throws SluiceError SOURCE_CHANGED; LOCAL_IO when a local source is gone or unreadable
   */
  checkUnchanged(f: EndpointFile): Promise<void>;
  /**
   * The data ranges of a sparse source (sparseUpload.ts), or undefined: the file moves as a whole.
   * @param clearTemp removes an earlier run's temporary file first (a fresh start with a journal); false: it could not
   */
  dataRanges(f: EndpointFile, clearTemp?: () => Promise<boolean>): Promise<SparsePlan | undefined>;
}

/** The side a file is written to, under a temporary name committed by a rename. */
export interface DestinationEndpoint {
  readonly side: Side;
  readonly pathKey: 'localPath' | 'remotePath';
  /** A fresh temporary name beside `dst` (fileNames.ts tempNameFor). */
  tempName(dst: string): string;
  /** The mode the temporary file is created with, from the source's. */
  createMode(sourceMode: number): number;
  /** Size and modification time of `p` on this side (a local link not followed); null when missing. */
  stat(p: string): Promise<FileTimes | null>;
  /** Removes `p`; never rejects. @returns whether it is gone (removed, or not there) */
  remove(p: string): Promise<boolean>;
  /** @throws SluiceError DISK_FULL when `bytes` more cannot fit beside `dst` (localSpace.ts) */
  ensureRoom(dst: string, bytes: number): Promise<void>;
  /** Whether several handles may write the file out of order (a server is asked once: outOfOrderProbe.ts). */
  takesOutOfOrder(dst: string): Promise<boolean>;
  /**
   * Starts opening `f`'s temporary file on `lanes` ahead of its segments while the out-of-order answer is awaited.
   * @returns the connections now holding handles of it (release them)
   */
  openAhead(f: EndpointFile, lanes: Lane[]): Array<Lane['conn']>;
  /** Prepares the temporary file for segments written at any offset (a local one: created at full size). */
  prepareSegments(f: EndpointFile): Promise<void>;
  /** Whether {@link finish} closes the segment handles its own lane's connection kept (in its round trip). */
  readonly finishReleasesLane: boolean;
  /**
   * fsyncs the finished temporary file (once `released`, the segment handles closed) and reads its size; a remote one
   * also gets `keep` on its handle.
   */
  finish(lane: Lane, f: EndpointFile, keep: KeptAttributes | undefined, released: Promise<unknown>): Promise<FileEnd>;
  /**
   * Commits a verified temporary file under its final name (nothing to rename when in place).
   * @returns a refusal of the attributes given here (a local file gets them now), else undefined
   * @throws SluiceError EXISTS for a no-clobber target that appeared, or the error of the rename
   */
  commit(
    lane: Lane,
    f: EndpointFile,
    mode: CommitMode,
    keep: KeptAttributes | undefined,
  ): Promise<SluiceError | undefined>;
  /** Abort: removes the temporary file (never the target of a file written in place); never rejects. */
  removeTemp(f: EndpointFile): Promise<unknown>;
  /** A temporary file kept for the next run: a local one gives back its reservation past `recordedEnd` bytes. */
  keepTemp(f: EndpointFile, recordedEnd: number): Promise<unknown>;
  /**
   * Whether a whole write that failed with `e` goes into its target in place instead (the server refused to create
   * the temporary file, and the target exists and may be written: inPlace.ts).
   */
  writesInPlaceAfter(lane: Lane, f: EndpointFile, e: SluiceError): Promise<boolean>;
  /**
   * A segmented write refused by the server (`e`): whether the file goes again through one handle; the endpoint notes
   * for later files that segments are refused, and says so.
   */
  segmentsRefused(f: EndpointFile, e: SluiceError): boolean;
  /** Whether files were written in segments (TransferReport.segmentedUploads), where the destination was asked. */
  segmentedWrites(): boolean | undefined;
}

/** Worker operations that move a file's bytes from one side to the other (sftp/pipeline.ts). */
interface WorkerRoute {
  /** The name checkpoint and releaseFile know it by. */
  direction: 'upload' | 'download';
  /** A range task ending where the file does asks for its end (RangeTask.fileEnd: a download's EOF READ). */
  marksFileEnd: boolean;
  whole(lane: Lane, f: EndpointFile, mode: number, keep: KeptAttributes | undefined, o: CallOptions): Promise<FileEnd>;
}

/** The worker's operations for each pair of sides: `source>destination`. A remote-to-remote copy adds a row. */
const WORKER_ROUTES: Readonly<Record<string, WorkerRoute>> = {
  'local>remote': {
    direction: 'upload',
    marksFileEnd: false,
    whole: ({ conn, channel }, f, mode, keep, o) =>
      conn
        .call(
          'putFile',
          {
            channel,
            localPath: f.src,
            remoteTemp: f.temp,
            size: f.size,
            mode,
            keep,
            inPlace: f.inPlace,
          },
          o,
        )
        .then((end) => ({ size: end.size, attrsRefused: end.attrsRefused && SluiceError.fromInfo(end.attrsRefused) })),
  },
  'remote>local': {
    direction: 'download',
    marksFileEnd: true,
    whole: ({ conn, channel }, f, mode, _keep, o) =>
      conn
        .call(
          'getFile',
          {
            channel,
            remotePath: f.src,
            localTemp: f.temp,
            size: f.size,
            mode,
            inPlace: f.inPlace,
          },
          o,
        )
        .then((size) => ({ size })),
  },
};

/** A job's two endpoints and the worker calls that move bytes between them. */
export class Endpoints {
  private readonly route: WorkerRoute;

  constructor(
    readonly source: SourceEndpoint,
    readonly dest: DestinationEndpoint,
  ) {
    const route = WORKER_ROUTES[`${source.side}>${dest.side}`];
    if (!route) throw new Error(`internal error: no transfer from a ${source.side} file to a ${dest.side} one`);
    this.route = route;
  }

  /** The worker's paths of `f`: its source, and its temporary name on the destination. */
  paths(f: EndpointFile): { localPath: string; remotePath: string } {
    const out = { [this.source.pathKey]: f.src, [this.dest.pathKey]: f.temp };
    return { localPath: out.localPath, remotePath: out.remotePath };
  }

  /** Moves `f` whole through one handle, in order. @returns how its temporary file ended (size after the fsync) */
  moveWhole(lane: Lane, f: EndpointFile, keep: KeptAttributes | undefined, o: CallOptions): Promise<FileEnd> {
    return this.route.whole(lane, f, this.dest.createMode(f.mode), keep, o);
  }

  /** Moves bytes [start, end) of `f` through `lane`; the handles stay open for its next segment there. */
  moveRange(
    lane: Lane,
    f: EndpointFile,
    start: number,
    end: number,
    checkpointMs: number | undefined,
    o: CallOptions,
  ): Promise<number> {
    return lane.conn.call(
      this.route.direction,
      {
        channel: lane.channel,
        ...this.paths(f),
        start,
        end,
        mode: this.dest.createMode(f.mode),
        fileEnd: this.route.marksFileEnd && end === f.size,
        checkpointMs,
      },
      o,
    );
  }

  /** fsyncs `f` where its segments wrote it. @returns false without fsync; rejects when the fsync failed */
  checkpoint(lane: Lane, f: EndpointFile): Promise<boolean> {
    return lane.conn.call('checkpoint', { channel: lane.channel, direction: this.route.direction, ...this.paths(f) });
  }

  /** Closes the handles `conn` kept between `f`'s segments; never rejects. */
  release(conn: Lane['conn'], f: EndpointFile): Promise<unknown> {
    return conn.call('releaseFile', { ...this.paths(f), direction: this.route.direction }).catch(() => undefined);
  }

  /**
   * SHA-256 of both sides of `f` (the source, and the destination's temporary file), each reporting its progress.
   * @returns both digests, and how the remote one was made (ssh/remoteHash.ts)
   */
  async hashes(
    lane: Lane,
    f: EndpointFile,
    allowExec: boolean,
    progress: { local(n: number): void; remote(n: number): void },
  ) {
    const { localPath, remotePath } = this.paths(f);
    const [local, remote] = await Promise.all([
      lane.conn.call('hashLocal', { path: localPath }, { onProgress: progress.local }),
      lane.conn.call(
        'hashRemote',
        { channel: lane.channel, path: remotePath, size: f.size, allowExec },
        { onProgress: progress.remote },
      ),
    ]);
    return { local, remote };
  }
}
