/**
 * A connection's SFTP channels: opening them (the set-up's own requests sent behind each channel's INIT), the
 * automatic extra ones of a slow link, their receive windows, the RTT, and the watchdog of SFTP replies.
 */
import type { Client, SFTPWrapper } from 'ssh2';
import { SluiceError } from '../../errors';
import { RequestSlots } from '../../sftp/requestBudget';
import { awaitingReplies, onChannelData, sendPing, serverSoftware, setReceiveWindow, withEarlyHook } from '../../ssh2x';
import type { ConnectParams, PrefetchedStat, RemoteStat, WorkerOps } from '../workerProtocol';
import type { WorkerConn } from './conn';
import { probeIn } from './probe';
import { openRemote, statOn } from './sftpCalls';

/**
 * The automatic extra SFTP channels of a slow link. They start opening with the first channel when the set-up
 * exchange already took `earlyRttMs` or more (two round trips sooner than the keepalive RTT would allow), and are
 * closed again if the keepalive RTT then says the link is fast (under `minRttMs`); otherwise they start once it
 * says slow.
 * @returns the channels that opened; [] on a fast link
 */
export async function openEarlyChannels(
  conn: WorkerConn,
  client: Client,
  count: number,
  auto: { minRttMs: number; earlyRttMs: number },
  setupRttMs: number | undefined,
  rtt: Promise<number | undefined>,
  early: (s: SFTPWrapper) => void,
): Promise<SFTPWrapper[]> {
  const slow = (ms: number | undefined) => ms !== undefined && ms >= auto.minRttMs;
  const openAll = () =>
    Promise.allSettled(Array.from({ length: count }, () => openSftp(conn, client, early))).then((rs) =>
      rs.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
    );
  if (!(setupRttMs !== undefined && setupRttMs >= auto.earlyRttMs)) return slow(await rtt) ? openAll() : [];
  const opened = openAll();
  if (slow(await rtt)) return opened;
  for (const ch of await opened) ch.end();
  return [];
}

/**
 * Round-trip time of a `keepalive@openssh.com` global request (OpenSSH PROTOCOL §2.2's
 * keepalive, answered by sshd itself with SSH_MSG_REQUEST_FAILURE or SUCCESS), sent as soon as the connection
 * is authenticated so it overlaps opening the SFTP channels. ssh2 matches global replies to its `_callbacks`
 * queue in order (RFC 4254 §4), as its own keepalive does. Undefined when the internals are missing or no
 * reply comes within 10 s.
 */
export function measureRtt(client: Client): Promise<number | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 10_000);
    timer.unref();
    const t0 = process.hrtime.bigint();
    const sent = sendPing(client, () => {
      clearTimeout(timer);
      resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    });
    if (!sent) {
      clearTimeout(timer);
      resolve(undefined);
    }
  });
}

/**
 * SSH keepalives prove the connection, not the SFTP server: a hung sftp-server behind a live sshd would
 * leave requests waiting forever. When requests are outstanding and no SFTP reply has arrived for
 * keepaliveInterval × keepaliveCountMax (60 s with keepalives off), the connection counts as stalled.
 */
export function watchSftpReplies(
  conn: WorkerConn,
  client: Client,
  channels: SFTPWrapper[],
  params: ConnectParams,
): void {
  const limitMs = params.keepaliveIntervalMs > 0 ? params.keepaliveIntervalMs * params.keepaliveCountMax : 60_000;
  const mark = () => {
    conn.lastSftpReply = Date.now();
  };
  for (const ch of channels) watchChannel(ch, mark);
  const timer = setInterval(
    () => {
      if (!conn.open || conn.closedError) {
        clearInterval(timer);
        return;
      }
      // While nothing is outstanding the clock restarts, so an idle spell never counts as silence.
      if (!conn.open.sftp.some(awaitingReplies)) {
        conn.lastSftpReply = Date.now();
        return;
      }
      if (Date.now() - conn.lastSftpReply <= limitMs) return;
      clearInterval(timer);
      conn.failAll(
        new SluiceError(
          'CONNECTION_STALLED',
          `SFTP server at ${params.host}:${params.port} stopped answering: ` +
            `no reply for ${Math.round(limitMs / 1000)} s`,
        ),
      );
      client.destroy();
    },
    Math.min(1000, Math.max(100, limitMs / 4)),
  );
  timer.unref();
}

export function watchChannel(ch: SFTPWrapper, mark: () => void): void {
  onChannelData(ch, mark);
}

/**
 * Raises a channel's receive window (RFC 4254 §5.2). ssh2 fixes it at 2 MiB; patches/ssh2+*.patch makes
 * its window adjustments top up to `incoming.maxWindow` instead, so the next data packet sends the larger
 * SSH_MSG_CHANNEL_WINDOW_ADJUST.
 */
export function applyWindow(conn: WorkerConn, ch: SFTPWrapper): void {
  if (conn.channelWindow > 0) setReceiveWindow(ch, conn.channelWindow);
}

/**
 * Opens an SFTP channel. `early` runs when the patched ssh2 pipelines the set-up (docs/round-trips.md): right after
 * SSH_FXP_INIT is queued, before VERSION, so requests it sends share the set-up's round trips.
 */
export function openSftp(conn: WorkerConn, client: Client, early?: (s: SFTPWrapper) => void): Promise<SFTPWrapper> {
  return new Promise<SFTPWrapper>((resolve, reject) => {
    const done = (e: Error | undefined, s: SFTPWrapper) => {
      if (e) {
        reject(new SluiceError('REMOTE_FAILURE', `cannot open SFTP channel: ${e.message}`));
        return;
      }
      applyWindow(conn, s);
      resolve(s);
    };
    client.sftp(early ? withEarlyHook(done, early) : done);
  });
}

export async function setChannelWindow(conn: WorkerConn, a: WorkerOps['setChannelWindow'][0]): Promise<number> {
  const c = conn.require();
  conn.channelWindow = a.bytes;
  for (const ch of c.sftp) applyWindow(conn, ch);
  return conn.channelWindow;
}

export async function addChannels(conn: WorkerConn, a: WorkerOps['addChannels'][0]): Promise<number> {
  const c = conn.require();
  const early = conn.earlyChannels ? await conn.earlyChannels : [];
  conn.earlyChannels = null;
  conn.earlyAhead.end();
  for (const ch of early.slice(a.count)) ch.end();
  const reused = early.slice(0, a.count);
  // Opened together: each costs 2–4 round trips (CHANNEL_OPEN, subsystem, INIT/VERSION, limits). A server
  // may refuse some (OpenSSH MaxSessions, default 10 per connection): those that opened are used.
  const results = await Promise.allSettled(
    Array.from({ length: a.count - reused.length }, () => openSftp(conn, c.client)),
  );
  const opened = [...reused, ...results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))];
  const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (refused && opened.length === 0) throw refused.reason;
  for (const ch of opened) {
    applyWindow(conn, ch);
    watchChannel(ch, () => {
      conn.lastSftpReply = Date.now();
    });
    c.sftp.push(ch);
    c.slots.push(new RequestSlots(c.params.requests));
  }
  return c.sftp.length;
}

/** The set-up's SSH_FXP_STATs sent, by path (ConnectParams.prefetch.stat), filled as the first channel sets up. */
export type StatsInFlight = Map<string, Promise<RemoteStat | null>>;

/** The set-up's requests to send on one channel (ConnectParams.prefetch). */
export interface ChannelPrefetch {
  /** Paths to SSH_FXP_STAT, their answers recorded in `statsSent`. */
  stats: string[];
  statsSent: StatsInFlight;
  /** Paths to open for reading; the handles go to `conn.handlesAhead`. */
  reads: string[];
  /** Where the out-of-order probe runs (`conn.prefetchedProbe` keeps its answer). */
  probeDir?: string;
}

/**
 * Sends the set-up's requests on a channel whose INIT was just queued: the out-of-order probe, the STATs, the read
 * OPENs. A path whose STAT says it is not a file (or fails) has its read handles closed at once.
 */
export function prefetchOn(conn: WorkerConn, s: SFTPWrapper, what: ChannelPrefetch): void {
  if (what.probeDir !== undefined) {
    // VERSION has not arrived yet: the SSH software alone says whether replies come in order. Wrong, it only makes
    // the probe answer "no" (the read overtook the writes), and uploads go through one handle.
    conn.prefetchedProbe = probeIn(s, what.probeDir, /^OpenSSH_/.test(serverSoftware(s)));
    conn.prefetchedProbe.catch(() => undefined);
  }
  for (const p of what.stats) {
    const answer = statOn(s, p, true);
    const drop = () => void conn.handlesAhead.drop(p);
    answer.then((st) => {
      if (st?.type !== 'file') drop();
    }, drop);
    what.statsSent.set(p, answer);
  }
  for (const p of what.reads) conn.handlesAhead.add(s, p, openRemote(s, p, 'r'));
}

/**
 * The answers of the set-up's STATs, for ConnectInfo.prefetchedStats: each path's ATTRS, null (no such file) or the
 * error. A STAT that was not sent (a server without the pipelined set-up) is not among them.
 */
export async function statAnswers(sent: StatsInFlight): Promise<PrefetchedStat[]> {
  return Promise.all(
    [...sent].map(([path, answer]) =>
      answer.then(
        (stat): PrefetchedStat => ({ path, stat }),
        (e: unknown): PrefetchedStat => ({ path, error: SluiceError.from(e).toInfo() }),
      ),
    ),
  );
}
