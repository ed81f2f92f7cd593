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
  /** How many times each remote path's handles were released (takeAll): a handle borrowed before must not come back. */
  private readonly releases = new Map<string, number>();

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

  /** A token for `remotePath` to hand to {@link putBack}: it changes when the path's handles are released. */
  releaseCount(remotePath: string): number {
    return this.releases.get(remotePath) ?? 0;
  }

  /**
   * Keeps a handle pair taken while `remotePath`'s release count was `count` (e.g. borrowed by a journal checkpoint),
   * unless the path's handles were released since: then the file was given up or finished, and a handle kept now
   * would outlive it (a later run of the same temporary name would write through it into a removed file).
   * @returns whether the pair was kept; when false the caller closes it
   */
  putBack(
    direction: Direction,
    remotePath: string,
    localPath: string,
    h: SegmentHandle<Local>,
    count: number,
  ): boolean {
    if (this.releaseCount(remotePath) !== count) return false;
    this.put(direction, remotePath, localPath, h);
    return true;
  }

  /**
   * Removes and returns every idle handle pair of `remotePath` (any channel or direction; only those paired with
   * `localPath` when given), for closing.
   */
  takeAll(remotePath: string, localPath?: string): Array<SegmentHandle<Local>> {
    const out: Array<SegmentHandle<Local>> = [];
    this.releases.set(remotePath, this.releaseCount(remotePath) + 1);
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
