/**
 * Open handles kept between the segments of one file on one SFTP channel. A segment otherwise costs an
 * SSH_FXP_OPEN and an SSH_FXP_CLOSE round trip (draft-ietf-secsh-filexfer-02 §6.3), a quarter of a 4 MiB
 * segment's time at 50 ms RTT. SFTP handles belong to the channel (one sftp-server per channel), so the key is
 * channel + direction + remote path; a channel running two segments of a file at once holds two entries.
 */
export interface SegmentHandle<Local> {
  channel: number;
  remote: Buffer;
  local: Local;
}

export class SegmentHandles<Local> {
  private readonly byKey = new Map<string, Array<SegmentHandle<Local>>>();

  private static key(channel: number, direction: 'download' | 'upload', remotePath: string): string {
    return `${channel}\0${direction}\0${remotePath}`;
  }

  /** Removes and returns an idle handle pair for this channel, direction and path, if one is kept. */
  take(channel: number, direction: 'download' | 'upload', remotePath: string): SegmentHandle<Local> | undefined {
    const k = SegmentHandles.key(channel, direction, remotePath);
    const list = this.byKey.get(k);
    const h = list?.pop();
    if (list && list.length === 0) this.byKey.delete(k);
    return h;
  }

  /** Keeps an idle handle pair for the next segment of the same file on the same channel. */
  put(direction: 'download' | 'upload', remotePath: string, h: SegmentHandle<Local>): void {
    const k = SegmentHandles.key(h.channel, direction, remotePath);
    const list = this.byKey.get(k);
    if (list) list.push(h);
    else this.byKey.set(k, [h]);
  }

  /** Removes and returns every idle handle pair of `remotePath` (any channel or direction), for closing. */
  takeAll(remotePath: string): Array<SegmentHandle<Local>> {
    const out: Array<SegmentHandle<Local>> = [];
    for (const [k, list] of this.byKey) {
      if (k.slice(k.indexOf('\0', k.indexOf('\0') + 1) + 1) !== remotePath) continue;
      out.push(...list);
      this.byKey.delete(k);
    }
    return out;
  }

  /** Number of idle handle pairs kept. */
  get size(): number {
    let n = 0;
    for (const list of this.byKey.values()) n += list.length;
    return n;
  }
}
