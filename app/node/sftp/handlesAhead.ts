/**
 * Remote handles opened before the task that needs them exists: a single download's read handle sent behind
 * each channel's SSH_FXP_INIT, or an upload's write handles opened while the out-of-order probe runs. Each saves
 * the task an SSH_FXP_OPEN round trip (draft-ietf-secsh-filexfer-02 §6.3). Handles belong to their SFTP channel
 * (one sftp-server per channel), so the key is channel + remote path.
 */
/** Paths dropped lately that a late SSH_FXP_OPEN (a channel set up after the drop) is closed for at once. */
const DROPPED_REMEMBERED = 256;

export class HandlesAhead<Channel> {
  private readonly byChannel = new Map<Channel, Map<string, Promise<Buffer>>>();
  /** Recently dropped paths, oldest first (at most DROPPED_REMEMBERED). */
  private readonly dropped = new Set<string>();

  /** @param close sends SSH_FXP_CLOSE for a handle nobody took; its answer is not waited for */
  constructor(private readonly close: (channel: Channel, handle: Buffer, remotePath: string) => Promise<unknown>) {}

  /**
   * Records an SSH_FXP_OPEN in flight. A failed open is kept too: the task that takes it gets the server's error,
   * as if it had opened the file itself. A second handle for the same channel and path is closed at once.
   */
  add(channel: Channel, remotePath: string, opening: Promise<Buffer>): void {
    opening.catch(() => undefined);
    // A channel set up after its path was dropped (the source turned out to be a folder, or its transfer is over).
    if (this.dropped.has(remotePath)) {
      this.closeWhenOpen(channel, remotePath, opening);
      return;
    }
    let byPath = this.byChannel.get(channel);
    if (!byPath) this.byChannel.set(channel, (byPath = new Map()));
    if (byPath.has(remotePath)) {
      this.closeWhenOpen(channel, remotePath, opening);
      return;
    }
    byPath.set(remotePath, opening);
  }

  /** Removes and returns the handle opened ahead for this channel and path; closing it is then the caller's job. */
  take(channel: Channel, remotePath: string): Promise<Buffer> | undefined {
    const byPath = this.byChannel.get(channel);
    const h = byPath?.get(remotePath);
    byPath?.delete(remotePath);
    return h;
  }

  /**
   * Closes every handle opened ahead for `remotePath` that no task took (the path is done, or not a file), and any
   * opened for it later on a channel still being set up.
   * @returns resolves once those SSH_FXP_OPENs have been answered, so none can still create the file (their
   *   CLOSEs are sent, not waited for)
   */
  drop(remotePath: string): Promise<void> {
    this.dropped.delete(remotePath);
    this.dropped.add(remotePath);
    if (this.dropped.size > DROPPED_REMEMBERED) this.dropped.delete(this.dropped.values().next().value as string);
    const settled: Array<Promise<unknown>> = [];
    for (const [channel, byPath] of this.byChannel) {
      const h = byPath.get(remotePath);
      if (!h) continue;
      byPath.delete(remotePath);
      this.closeWhenOpen(channel, remotePath, h);
      settled.push(h.catch(() => undefined));
    }
    return Promise.all(settled).then(() => undefined);
  }

  /** Handles (or opens in flight) not yet taken or dropped. */
  get size(): number {
    let n = 0;
    for (const byPath of this.byChannel.values()) n += byPath.size;
    return n;
  }

  private closeWhenOpen(channel: Channel, remotePath: string, opening: Promise<Buffer>): void {
    opening.then((handle) => this.close(channel, handle, remotePath)).catch(() => undefined);
  }
}
