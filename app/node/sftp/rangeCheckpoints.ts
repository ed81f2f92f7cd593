/**
 * Checkpoints inside one running range (issue #24 item 11): every so often the range's file is fsynced and the
 * contiguous prefix of the range that the fsync covers is reported as durable, so that a journal can record it while
 * the range is still moving. Without them a range counted only once whole, and a connection cut or a kill lost every
 * lane's unfinished segment (111 MiB of a 256 MiB put on ten lanes).
 *
 * What an fsync covers (it flushes the whole file on the server or locally, whichever handle it goes through):
 * - a download: every byte whose local write completed before the fsync started;
 * - an upload: every SSH_FXP_WRITE answered before the fsync@openssh.com request was sent; on a server that handles
 *   a channel's requests one at a time in order (OpenSSH's sftp-server: ConnectInfo.ordersRequests), also the WRITEs
 *   sent on the same channel before it, provided they were all answered with success by the time the fsync's reply
 *   came (a failed WRITE is not made durable by a later fsync). draft-ietf-secsh-filexfer-02 §6 lets other servers
 *   handle requests in any order: there only the answered ones count.
 */

/** The contiguous prefix of a byte range whose pieces completed, pieces completing in any order. */
export class PrefixTracker {
  private readonly pending = new Map<number, number>();

  /** @param prefix the range's first byte: nothing completed yet */
  constructor(public prefix: number) {}

  /** Notes bytes [start, end) as completed. */
  complete(start: number, end: number): void {
    if (start !== this.prefix) {
      this.pending.set(start, end);
      return;
    }
    let next = end;
    for (let e = this.pending.get(next); e !== undefined; e = this.pending.get(next)) {
      this.pending.delete(next);
      next = e;
    }
    this.prefix = next;
  }
}

/** How a range checkpoints (see the module comment); absent: it does not. */
export interface RangeCheckpoints {
  /** An fsync is started this often, ms, while the range has moved bytes that are not yet durable. */
  everyMs: number;
  /** The channel's requests are handled one at a time in order (an upload then counts what it sent before). */
  ordered: boolean;
  /** Starts one fsync of the file and calls back once it is done (err: it failed, nothing more is durable). */
  sync(done: (err: Error | null) => void): void;
  /** The range's bytes [its start, end) are durable now; called with increasing `end`. */
  onDurable(end: number): void;
}

/** Runs the checkpoints of one range while it moves; {@link stop} ends them. */
export class RangeCheckpointer {
  /** Bytes answered (an upload's WRITEs) or written locally (a download's READ data). */
  readonly done: PrefixTracker;
  /** An upload's WRITEs handed to the channel, in its order. */
  readonly sent: PrefixTracker;
  private durable: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private syncing = 0;
  private idle: (() => void) | undefined;

  constructor(
    start: number,
    private readonly o: RangeCheckpoints,
    private readonly upload: boolean,
  ) {
    this.done = new PrefixTracker(start);
    this.sent = new PrefixTracker(start);
    this.durable = start;
    this.arm();
  }

  private arm(): void {
    this.timer = setTimeout(() => this.tick(), this.o.everyMs);
    this.timer.unref?.();
  }

  private tick(): void {
    if (this.stopped) return;
    this.arm();
    const countsSent = this.upload && this.o.ordered;
    const covered = countsSent ? this.sent.prefix : this.done.prefix;
    if (covered <= this.durable) return;
    this.syncing++;
    this.o.sync((err) => {
      this.syncing--;
      // A WRITE sent before the fsync but refused is not durable: the answered prefix must have reached it.
      const end = countsSent ? Math.min(covered, this.done.prefix) : covered;
      if (!err && !this.stopped && end > this.durable) {
        this.durable = end;
        this.o.onDurable(end);
      }
      if (this.syncing === 0) this.idle?.();
    });
  }

  /**
   * Ends the checkpoints: none starts any more and none reports; resolves once the fsyncs started have ended (a
   * download's file descriptor must stay open until then).
   */
  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.syncing === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.idle = resolve;
    });
  }
}
