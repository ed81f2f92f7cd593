/**
 * How many SSH connections and SFTP channels a site's pool uses: one pure decision from the measured RTT, the
 * machine's cores and the user's overrides, used by every path (CLI, app, harness).
 */
import os from 'node:os';

/**
 * A second connection adds a core for cipher work, but on a 2-core machine the first connection, sshd and the
 * network path already use both: measured at 50 ms RTT (bench/), 1 connection × 8 channels moved 128 MiB
 * faster than 2 × 6 or 2 × 4 both ways, and a late second handshake slowed the running transfer.
 * Channels: 10, OpenSSH's default MaxSessions (sshd_config(5)); at 50 ms 16 channels measured the same as 10
 * both ways (each carries at most sshd's 2 MiB window per round trip on uploads).
 */
export function autoConnections(cores: number): number {
  return cores > 2 ? 2 : 1;
}

/**
 * RTT-based pool sizing, from the benchmark (FIELD.md, bench/): on a low-latency link a 2-core machine is
 * CPU-bound and one connection with one channel wins (sshd needs the other core); at `rttMs` or more each
 * channel is bound by its window per round trip, so `channels` channels open on the first connection while
 * it connects (a channel costs 2 round trips on a connection we have with OpenSSH, 4 elsewhere; a new connection
 * about 6–10), and
 * `connections` connections in all ({@link autoConnections}: 1 on 2 cores, else 2).
 * `earlyRttMs`: when the set-up exchange alone took this long (setupRtt.ts), the channels start opening with the
 * first, before the keepalive RTT confirms; set well above `rttMs`, since a busy server on loopback can take a
 * few ms to answer it.
 * `segmentedPutChannels`: channels the first connection opens for a put that will cut a file into segments
 * (`prefetch.probeDir` set), whatever the RTT: on loopback one channel waits on sshd's 2 MiB window between
 * bursts, and 1 GiB puts measured 4–7 % faster over 2 channels (bench/README.md, sixth session; 14 of 17 paired
 * runs), while gets measured alike and stay on one.
 */
export const AUTO_TUNE = {
  rttMs: 5,
  earlyRttMs: 20,
  connections: autoConnections(os.availableParallelism()),
  channels: 10,
  probes: 2,
  segmentedPutChannels: 2,
};

/** What {@link planPool} decides from. */
export interface PoolInputs {
  /** Round-trip time of the first connection, ms; undefined before it is measured. */
  rttMs?: number;
  /** Cores of this machine (os.availableParallelism()). */
  cores: number;
  /** `--connections N`, the site's connections. */
  connections?: number;
  /** `--channels M`, the site's channels per connection. */
  channels?: number;
  /** A put that will cut a file into segments (the CLI knows before connecting). */
  segmentedPut?: boolean;
  /** Leave one of OpenSSH's 10 channels per connection (MaxSessions) free for an exec (`--verify sha256`). */
  reserveExecChannel?: boolean;
}

/** The pool to open: connections, and SFTP channels on each. */
export interface PoolPlan {
  connections: number;
  channelsPerConnection: number;
  /** The RTT says the link is slow (≥ AUTO_TUNE.rttMs): channels are bound by their windows, not the CPU. */
  slowLink: boolean;
}

/**
 * Sizes the pool ({@link AUTO_TUNE}). On a slow link every connection gets the planned channels (10, or 9 with
 * `reserveExecChannel`), also when the user chose only the number of connections; on a fast one a connection gets
 * 1 channel (2 for a segmented put of an auto-sized pool). Connections: the user's, else 1 on a fast link and
 * {@link autoConnections} on a slow one when channels were not chosen either.
 */
export function planPool(i: PoolInputs): PoolPlan {
  const slowLink = i.rttMs !== undefined && i.rttMs >= AUTO_TUNE.rttMs;
  const slowChannels = AUTO_TUNE.channels - (i.reserveExecChannel ? 1 : 0);
  const fastChannels = i.connections === undefined && i.segmentedPut ? AUTO_TUNE.segmentedPutChannels : 1;
  const channelsPerConnection = i.channels ?? (slowLink ? slowChannels : fastChannels);
  const connections = i.connections ?? (slowLink && i.channels === undefined ? autoConnections(i.cores) : 1);
  return { connections, channelsPerConnection, slowLink };
}

/**
 * The smallest of `probes` timed round trips, ms (the pool's RTT when the keepalive gave none).
 * @param roundTrip one request and its answer (an SSH_FXP_REALPATH)
 */
export async function probeRtt(roundTrip: () => Promise<unknown>, probes = AUTO_TUNE.probes): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < probes; i++) {
    const t0 = performance.now();
    await roundTrip();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}
