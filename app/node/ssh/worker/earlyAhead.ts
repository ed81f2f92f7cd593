/**
 * An upload's write handles on the early SFTP channels of a slow link (channels.ts openEarlyChannels). A get's early
 * channels open its source behind their SSH_FXP_INIT (`prefetch.read`), but a put's temporary name is made only once
 * the set-up's STAT has answered, while those channels are still on their way: each then joined the pool without a
 * handle and opened the file when its first segment ran, one round trip after it could have sent. The paths
 * `openAhead` is given while they open (the first {@link EARLY_AHEAD_PATHS}) are opened on each of them as soon as
 * its INIT is queued (at once on those already there), so an early channel brings the handle with its VERSION.
 */

/** Paths an early channel opens ahead: the first files of a job, not a long queue's (servers limit open handles). */
export const EARLY_AHEAD_PATHS = 2;

export class EarlyAhead<Channel> {
  private readonly channels: Channel[] = [];
  private readonly paths: Array<{ remotePath: string; mode?: number }> = [];
  private ended = false;

  /** @param open sends one SSH_FXP_OPEN (create, no truncate) and keeps its handle for the channel's next segment */
  constructor(private readonly open: (channel: Channel, remotePath: string, mode?: number) => void) {}

  /** An early channel's INIT is queued: it opens the paths given so far. */
  channelReady(channel: Channel): void {
    if (this.ended) return;
    this.channels.push(channel);
    for (const p of this.paths) this.open(channel, p.remotePath, p.mode);
  }

  /** An upload's temporary file to open on every early channel, now or when its INIT is queued. */
  path(remotePath: string, mode?: number): void {
    if (this.ended || this.paths.length >= EARLY_AHEAD_PATHS) return;
    this.paths.push({ remotePath, mode });
    for (const channel of this.channels) this.open(channel, remotePath, mode);
  }

  /** The early channels joined the pool (or were closed): later paths are opened by the usual openAhead. */
  end(): void {
    this.ended = true;
    this.channels.length = 0;
    this.paths.length = 0;
  }
}
