/**
 * The worker's one connection and what it holds: every operation gets it as its first argument
 * (`op(conn, arg, ctx)`, see ssh/worker.ts), so nothing of a connection lives in module state. Before connect it
 * holds only the link to the coordinator; connect sets `open`.
 */
import type fs from 'node:fs';
import type { Duplex } from 'node:stream';
import type { Client, SFTPWrapper } from 'ssh2';
import { SluiceError } from '../../errors';
import { HandlesAhead } from '../../sftp/handlesAhead';
import type { InFlightBudget, RequestSlots } from '../../sftp/requestBudget';
import type { RateGate } from '../../sftp/rateLimit';
import { SegmentHandles } from '../../sftp/segmentHandles';
import type { HashTraits } from '../remoteHash';
import type { ConnectInfo, ConnectParams } from '../workerProtocol';
import type { Coordinator } from './link';
import { EarlyAhead } from './earlyAhead';
import { SEGMENT_FLAGS, closeRemote, openRemote } from './sftpCalls';

/** Largest request we issue even when a server allows more: 255 KiB, OpenSSH's own limit. */
export const MAX_REQUEST_BYTES = 261120;

/** The established connection: its SFTP channels, request budgets and counters. */
export interface OpenConn {
  client: Client;
  /** The TCP socket, or the last jump host's direct-tcpip channel. */
  sock: Duplex;
  /** The jump hosts' connections, first hop first (closed after the target's). */
  hops: Client[];
  /** The first hop's TCP socket (ended last), when there are jump hosts. */
  hopSock?: Duplex;
  sftp: SFTPWrapper[];
  slots: RequestSlots[];
  /** Upload bytes in flight on this connection, across its channels. */
  uploads: InFlightBudget;
  /** The speed limits (process-wide and the site's) every request takes from. */
  rate: RateGate;
  counters: Float64Array;
  info: ConnectInfo;
  params: ConnectParams;
  nextChannel: number;
  /** Which remote hash methods work on this server (learned on first use). */
  hashTraits: HashTraits;
}

/** A worker's connection: set up by connect, then used by every other operation. */
export class WorkerConn {
  open: OpenConn | null = null;
  /** Why the connection is gone; every later operation fails with it. */
  closedError: SluiceError | null = null;
  /** Last time any SFTP channel of this connection received data (ms since epoch). */
  lastSftpReply = Date.now();
  /** Receive window for SFTP channels in bytes; 0 keeps ssh2's 2 MiB. */
  channelWindow = 0;
  /** SFTP channels connect started opening on a slow link (`autoChannels`), for the next addChannels. */
  earlyChannels: Promise<SFTPWrapper[]> | null = null;
  /** The probe sent with the first channel's set-up (`prefetch.probeDir`), until probeOutOfOrder takes it. */
  prefetchedProbe: Promise<boolean | null> | null = null;
  /** Handles kept open between segments of a file on a channel; closed by `releaseFile` or `finishUpload`. */
  readonly segmentHandles = new SegmentHandles<fs.promises.FileHandle>();
  /**
   * Handles opened before their task: a single download's read handle behind each channel's INIT (`prefetch.read`),
   * an upload's write handles while the probe runs (`openAhead`). A segment or getFile on that channel takes its
   * handle; the rest are closed once the path turns out not to be a file, or its transfer is over (getFile,
   * releaseFile). A file the job skips keeps them until the connection closes.
   */
  readonly handlesAhead = new HandlesAhead<SFTPWrapper>((s, h, p) => closeRemote(s, h, p));
  /** An upload's temporary file opened on the early channels as their INIT is queued (earlyAhead.ts). */
  readonly earlyAhead = new EarlyAhead<SFTPWrapper>((s, p, mode) =>
    this.handlesAhead.add(s, p, openRemote(s, p, SEGMENT_FLAGS, mode)),
  );
  /** Rejecters of every in-flight operation, failed together when the connection drops. */
  private readonly pending = new Set<(e: SluiceError) => void>();

  /** @param link posts to and asks the coordinating thread */
  constructor(readonly link: Coordinator) {}

  /** The established connection. @throws SluiceError the connection's loss, or CONNECTION_LOST before connect */
  require(): OpenConn {
    if (this.closedError) throw this.closedError;
    if (!this.open) throw new SluiceError('CONNECTION_LOST', 'not connected');
    return this.open;
  }

  /** SFTP channel `channel`, or the next one in turn when undefined. */
  sftpOf(channel?: number): SFTPWrapper {
    const c = this.require();
    if (channel === undefined) {
      channel = c.nextChannel;
      c.nextChannel = (c.nextChannel + 1) % c.sftp.length;
    }
    const s = c.sftp[channel];
    if (!s) throw new SluiceError('REMOTE_FAILURE', `no SFTP channel ${channel}`);
    return s;
  }

  /** Whether the server advertised SFTP extension `name` (in its VERSION). */
  hasExt(name: string): boolean {
    return this.require().info.extensions[name] !== undefined;
  }

  /** Fails every in-flight operation with `e`, which stays the connection's error. */
  failAll(e: SluiceError): void {
    if (!this.closedError) this.closedError = e;
    for (const reject of [...this.pending]) reject(e);
    this.pending.clear();
  }

  /** Runs an operation so that a connection loss rejects it at once instead of leaving it waiting. */
  guarded<T>(run: () => Promise<T>): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise<T>((resolve, reject) => {
      const rejecter = (e: SluiceError) => reject(e);
      this.pending.add(rejecter);
      run().then(
        (v) => {
          this.pending.delete(rejecter);
          resolve(v);
        },
        (e) => {
          this.pending.delete(rejecter);
          reject(e);
        },
      );
    });
  }
}
