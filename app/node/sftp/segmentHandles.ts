/**
 * Open handles kept between the segments of one file on one SFTP channel. A segment otherwise costs an
 * SSH_FXP_OPEN and an SSH_FXP_CLOSE round trip (draft-ietf-secsh-filexfer-02 §6.3), a quarter of a 4 MiB
 * segment's time at 50 ms RTT. SFTP handles belong to the channel (one sftp-server per channel), so the key is
 * channel + direction + remote path + local path (the same remote file fetched twice in one job goes to two
 * local files); a channel running two segments of a file at once holds two entries.
 */
export interface SegmentHandle<Local> {
  channel: number;
  remote: Buffer;
  local: Local;
}

type Direction = 'download' | 'upload';

interface Kept<Local> {
  remotePath: string;
  localPath: string;
  list: Array<SegmentHandle<Local>>;
}

export class SegmentHandles<Local> {
  private readonly byKey = new Map<string, Kept<Local>>();

  private static key(channel: number, direction: Direction, remotePath: string, localPath: string): string {
    return JSON.stringify([channel, direction, remotePath, localPath]);
  }

  /** Removes and returns an idle handle pair for this channel, direction and file pair, if one is kept. */
  take(channel: number, direction: Direction, remotePath: string, localPath: string): SegmentHandle<Local> | undefined {
    const k = SegmentHandles.key(channel, direction, remotePath, localPath);
    const kept = this.byKey.get(k);
    const h = kept?.list.pop();
    if (kept && kept.list.length === 0) this.byKey.delete(k);
    return h;
  }

  /** Keeps an idle handle pair for the next segment of the same file pair on the same channel. */
  put(direction: Direction, remotePath: string, localPath: string, h: SegmentHandle<Local>): void {
    const k = SegmentHandles.key(h.channel, direction, remotePath, localPath);
    const kept = this.byKey.get(k);
    if (kept) kept.list.push(h);
    else this.byKey.set(k, { remotePath, localPath, list: [h] });
  }

  /**
   * Removes and returns every idle handle pair of `remotePath` (any channel or direction; only those paired with
   * `localPath` when given), for closing.
   */
  takeAll(remotePath: string, localPath?: string): Array<SegmentHandle<Local>> {
    const out: Array<SegmentHandle<Local>> = [];
    for (const [k, kept] of this.byKey) {
      if (kept.remotePath !== remotePath || (localPath !== undefined && kept.localPath !== localPath)) continue;
      out.push(...kept.list);
      this.byKey.delete(k);
    }
    return out;
  }

  /** Number of idle handle pairs kept. */
  get size(): number {
    let n = 0;
    for (const kept of this.byKey.values()) n += kept.list.length;
    return n;
  }
}
