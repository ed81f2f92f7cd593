/**
 * Files on the server as a job's endpoints (endpoints.ts): the source of a download, read by the worker; the
 * destination of an upload, written under a remote temporary name, fsynced (fsync@openssh.com), given its source's
 * attributes on its handle (SSH_FXP_FSETSTAT) and renamed (SSH_FXP_RENAME, or posix-rename@openssh.com).
 */
import path from 'node:path';
import { SluiceError } from '../errors';
import type { Lane, ConnectionPool } from '../ssh/connectionPool';
import { tempFileMode, type KeptAttributes } from '../ssh/workerProtocol';
import type { CommitMode } from './conflict';
import type { DestinationEndpoint, EndpointFile, FileEnd, SourceEndpoint } from './endpoints';
import { inUserTerms, tempNameFor } from './fileNames';
import { targetWritable, tempCreationRefused } from './inPlace';
import { keepsOutOfOrderWrites } from './outOfOrderProbe';
import type { FileTimes, RunFeedback } from './types';

/** A remote file a job reads. */
export class RemoteSource implements SourceEndpoint {
  readonly side = 'remote';
  readonly pathKey = 'remotePath';

  constructor(private readonly pool: ConnectionPool) {}

  async stat(p: string): Promise<FileTimes | null> {
    const st = await this.pool.stat(p).catch(() => null);
    return st?.type === 'file' ? { size: st.size, mtimeMs: st.mtimeMs } : null;
  }

  /** Not checked (a download never was): an SSH_FXP_STAT per file would cost each one a round trip. */
  checkUnchanged(): Promise<void> {
    return Promise.resolve();
  }

  /** A server does not say where a file's holes are: it is read whole. */
  dataRanges(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
}

/** A remote file a job writes: a temporary file beside the target, renamed onto it once verified. */
export class RemoteDestination implements DestinationEndpoint {
  readonly side = 'remote';
  readonly pathKey = 'remotePath';
  readonly finishReleasesLane = true;

  constructor(
    private readonly pool: ConnectionPool,
    private readonly feedback: RunFeedback,
  ) {}

  tempName(dst: string): string {
    return tempNameFor(dst, true);
  }

  /** Writable by its owner, who reopens it for every segment (workerProtocol.ts tempFileMode). */
  createMode(sourceMode: number): number {
    return tempFileMode(sourceMode);
  }

  async stat(p: string): Promise<FileTimes | null> {
    const st = await this.pool.stat(p);
    return st ? { size: st.size, mtimeMs: st.mtimeMs } : null;
  }

  remove(p: string): Promise<boolean> {
    return this.pool.call('remove', { path: p }).then(
      () => true,
      (e: unknown) => SluiceError.from(e).code === 'NO_SUCH_FILE',
    );
  }

  /** The server's space is not known ahead: its write says when it runs out. */
  ensureRoom(): Promise<void> {
    return Promise.resolve();
  }

  takesOutOfOrder(dst: string): Promise<boolean> {
    return keepsOutOfOrderWrites(this.pool, path.posix.dirname(dst), this.feedback.server, this.feedback.events);
  }

  /**
   * Only while the probe's answer is awaited: once it is known, segments open their handles when they run (a long
   * queue of big files must not hold ten handles each on a server that limits open handles).
   */
  openAhead(f: EndpointFile, lanes: Lane[]): Array<Lane['conn']> {
    if (this.feedback.server.outOfOrderWrites !== undefined) return [];
    const byConn = new Map<Lane['conn'], number[]>();
    for (const { conn, channel } of lanes) byConn.set(conn, [...(byConn.get(conn) ?? []), channel]);
    for (const [conn, channels] of byConn) {
      conn.call('openAhead', { channels, remotePath: f.temp, mode: this.createMode(f.mode) }).catch(() => undefined);
    }
    return [...byConn.keys()];
  }

  /** Created by the first segment handle that opens (every one may create it, none truncates). */
  prepareSegments(): Promise<void> {
    return Promise.resolve();
  }

  async finish(lane: Lane, f: EndpointFile, keep: KeptAttributes | undefined): Promise<FileEnd> {
    const end = await lane.conn.call('finishUpload', { channel: lane.channel, path: f.temp, keep });
    return { size: end.size, attrsRefused: end.attrsRefused && SluiceError.fromInfo(end.attrsRefused) };
  }

  /** The attributes were set on the handle before (finish, or the whole upload's own FSETSTAT). */
  async commit(lane: Lane, f: EndpointFile, mode: CommitMode): Promise<undefined> {
    if (!f.inPlace) await lane.conn.call('rename', { channel: lane.channel, from: f.temp, to: f.dst, mode });
    return undefined;
  }

  /** A temporary file a lost connection kept is recorded for the next connection (stores/leftovers.ts). */
  removeTemp(f: EndpointFile): Promise<unknown> {
    if (f.inPlace) return Promise.resolve();
    const { pool: session } = this;
    return session.call('remove', { path: f.temp }).catch((e: unknown) => {
      if (SluiceError.from(e).code !== 'NO_SUCH_FILE') session.leftovers.record({ kind: 'temp', path: f.temp });
    });
  }

  keepTemp(): Promise<unknown> {
    return Promise.resolve();
  }

  async writesInPlaceAfter(lane: Lane, f: EndpointFile, e: SluiceError): Promise<boolean> {
    return !f.inPlace && tempCreationRefused(e, f.temp) && targetWritable(lane, f.dst);
  }

  segmentsRefused(f: EndpointFile, e: SluiceError): boolean {
    // The folder refuses new files, not the segments: one handle decides whether the target is written in place.
    if (!tempCreationRefused(e, f.temp)) {
      this.feedback.server.outOfOrderWrites = false;
      this.feedback.events({
        type: 'log',
        level: 'warn',
        message: `segmented upload of ${f.dst} failed (${inUserTerms(e, f.temp, f.dst).message}): sending it again through one handle; later uploads use one handle`,
      });
    }
    return true;
  }

  segmentedWrites(): boolean | undefined {
    return this.feedback.server.outOfOrderWrites;
  }
}
