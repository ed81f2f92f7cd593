/**
 * What limits a transfer: one verdict per connection and per transfer, from the signals of one interval (about a
 * second). Pure: the engine gathers the signals (app/node/ssh/worker/signals.ts, app/node/sftp/pipeStats.ts) and
 * this module only decides. The section "What limits a transfer" of docs/engine.md explains each verdict to users.
 *
 * The rules, first match wins (each threshold's reason is at its constant):
 * 1. nothing moved and nothing waited → `unknown` (idle);
 * 2. the worker's event loop is busy nearly all the time → `client-cpu` (it checks before anything else, because a
 *    saturated thread makes every other signal late: replies are read late, requests issued late);
 * 3. TCP retransmits, or a keepalive round trip queues behind our data (the link is full) → `link` (bandwidth-bound);
 * 4. the sender waited on SSH_MSG_CHANNEL_WINDOW_ADJUST (RFC 4254 §5.2) for most of the interval, or the rate is what
 *    the channel windows allow per idle round trip, or TCP says the peer's receive window held it back → `window`;
 * 5. the requests' slots spent most of their time on local reads/writes → `local-disk`;
 * 6. requests wait on the server: replies take far longer than a keepalive round trip → `server`; else every request
 *    slot is busy and replies come in about one round trip → `link` (RTT-bound: the requests in flight are fewer
 *    bytes than the bandwidth-delay product);
 * 7. otherwise `unknown` (requests are not kept outstanding: a speed limit, few files, the scheduler).
 *
 * Over the whole transfer, a speed limit (the user's `--limit`, a site's or the app's) that requests waited on while
 * the rate reached most of it wins over every connection's verdict: `speed-limit` ({@link limiterVerdict}).
 */

/** The verdicts, as `--json` progress events and the graph name them (issue #16). */
export type BottleneckVerdict = 'link' | 'server' | 'client-cpu' | 'local-disk' | 'window' | 'speed-limit' | 'unknown';

/** A verdict and the numbers behind it, for people (`detail`). */
export interface Bottleneck {
  verdict: BottleneckVerdict;
  detail: string;
}

/** TCP_INFO differences over the interval (app/node/sys/tcpInfo.ts), when the platform reports them. */
export interface TcpSignals {
  /** Smoothed RTT at the interval's end, ms. */
  rttMs: number;
  /** Lowest RTT the kernel saw, ms (Linux). */
  minRttMs?: number;
  /** Congestion window × MSS, bytes. */
  cwndBytes: number;
  /** Segments retransmitted during the interval. */
  retransmits: number;
  /** Share of the interval the sender was held by the peer's TCP receive window (0–1; Linux tcpi_rwnd_limited). */
  rwndLimited?: number;
}

/** What one connection did during one interval. Means are over the interval's samples (every ~25 ms). */
export interface IntervalSignals {
  /** Length of the interval, ms. */
  intervalMs: number;
  /** Payload bytes moved during the interval. */
  bytes: number;
  /** SFTP READ/WRITE requests answered during the interval. */
  requestsDone: number;
  /** Mean requests awaiting the server's reply. */
  remoteMean: number;
  /** Mean requests whose local read or write was running. */
  localMean: number;
  /** Request slots of the connection (K per channel × channels). */
  requestLimit: number;
  /** Share of the interval (0–1) some channel's data waited for the peer's window (outgoing window 0, data queued). */
  windowWait: number;
  /** The channels' receive windows added up, bytes (what a sending server may have in flight to us). */
  receiveWindowBytes?: number;
  /** The worker thread's event-loop utilisation over the interval (0–1; perf_hooks eventLoopUtilization). */
  elu?: number;
  /** Latest keepalive@openssh.com round trip, ms, including one still unanswered (its age so far). */
  pingMs?: number;
  /** The connection's RTT when idle (measured at connect), ms. */
  baseRttMs?: number;
  tcp?: TcpSignals;
  /** Direction of the data: the window signals differ (we send on uploads, the server on downloads). */
  direction?: 'up' | 'down';
}

/**
 * Thresholds. Each is a ratio or a floor chosen so that the normal jitter of a healthy transfer does not cross it.
 */
export const BOTTLENECK_THRESHOLDS = {
  /**
   * ELU at or above this means the worker thread (which does the SSH crypto, SFTP framing and request issue for its
   * connection) had no idle time left: Node documents ELU as the share of time the loop was not idle, and a loop
   * at 0.9 cannot react to a reply for 9 ms in 10.
   */
  cpuElu: 0.9,
  /** Share of the interval spent waiting for WINDOW_ADJUST: at half or more, the window decides the rate. */
  windowWait: 0.5,
  /**
   * Downloads: throughput × RTT reaching this share of the receive windows means the server can have no more bytes
   * in flight than the windows allow (rate ≈ window / RTT), so a bigger window would go faster.
   */
  windowBdpShare: 0.8,
  /** Local I/O share of the busy request slots at which the disk, not the network, holds the requests. */
  localShare: 0.5,
  /** Fewer requests than this outstanding on average: nothing waits on the network (the pipeline is not kept full). */
  minRemoteMean: 0.5,
  /**
   * Replies this many times slower than a keepalive round trip (and slower by {@link serverExtraMs}) mean the server
   * took the time: a keepalive is answered by sshd itself, not the SFTP subsystem, and crosses the same link.
   */
  serverLatencyRatio: 2.5,
  serverExtraMs: 15,
  /**
   * A keepalive taking this many times the idle RTT (and {@link queueExtraMs} more) queued behind our own data: the
   * link (or a buffer in front of it) is full.
   */
  queueRatio: 2,
  queueExtraMs: 10,
  /** Every request slot busy: at this share of K × channels the request count, not the link, bounds bytes in flight. */
  slotsFull: 0.8,
  /** Consecutive intervals a new verdict must win before it replaces the shown one (no flicker). */
  switchAfter: 2,
  /**
   * A speed limit holds the rate when requests waited on it during the interval and the rate reached this share of
   * it (the sliding-window rate lags a limit that was just set or lowered, and a burst lets it run a little over).
   */
  limitShare: 0.8,
} as const;

const T = BOTTLENECK_THRESHOLDS;

const ms = (x: number) => `${x < 10 ? x.toFixed(1) : Math.round(x)} ms`;
const pct = (x: number) => `${Math.round(x * 100)}%`;
const mib = (b: number) => `${(b / 1048576).toFixed(b < 10 * 1048576 ? 1 : 0)} MiB`;

/** Mean reply latency by Little's law (requests waiting / requests answered per ms), ms; undefined without answers. */
export function replyLatencyMs(s: IntervalSignals): number | undefined {
  if (s.requestsDone <= 0 || s.intervalMs <= 0) return undefined;
  return s.remoteMean / (s.requestsDone / s.intervalMs);
}

/**
 * The connection's idle round trip, ms: the SSH one measured at connect, end to end. TCP_INFO's minimum RTT is the
 * round trip to the next TCP hop only (a jump host's forwarding, a proxy such as Toxiproxy on loopback: ~0 ms), so it
 * can raise the figure (a lucky connect-time sample) but never replace it.
 */
export function idleRttMs(s: Pick<IntervalSignals, 'baseRttMs' | 'tcp'>): number | undefined {
  const tcp = s.tcp?.minRttMs;
  if (s.baseRttMs === undefined) return tcp;
  return tcp === undefined ? s.baseRttMs : Math.max(tcp, s.baseRttMs);
}

function windowVerdict(s: IntervalSignals, rate: number): Bottleneck | undefined {
  if (s.windowWait >= T.windowWait) {
    return {
      verdict: 'window',
      detail: `sender waited on the server's SSH channel window ${pct(s.windowWait)} of the time`,
    };
  }
  if (s.tcp?.rwndLimited !== undefined && s.tcp.rwndLimited >= T.windowWait) {
    return { verdict: 'window', detail: `TCP receive window full ${pct(s.tcp.rwndLimited)} of the time` };
  }
  // The idle RTT, not the keepalive's: on a full link the keepalive queues behind a window of data, and rate × that
  // time is the window whatever limits the rate.
  const rtt = idleRttMs(s);
  if (
    s.direction === 'down' &&
    s.receiveWindowBytes &&
    rtt !== undefined &&
    rtt >= 1 &&
    s.remoteMean >= T.minRemoteMean
  ) {
    const bdp = (rate * rtt) / 1000;
    if (bdp >= T.windowBdpShare * s.receiveWindowBytes) {
      return {
        verdict: 'window',
        detail: `our SSH channel windows (${mib(s.receiveWindowBytes)}) hold one round trip (${ms(rtt)}) of data`,
      };
    }
  }
  return undefined;
}

/**
 * The link is full: TCP retransmits, or a keepalive queues behind our data. Checked before the window and the
 * server: on a full link the peer's window runs out too (its adjustments wait behind the data in the pipe) and the
 * SFTP replies wait even longer than the keepalive (behind every request before them), so either alone would be
 * blamed for what the link does.
 */
function fullLink(s: IntervalSignals): Bottleneck | undefined {
  if (s.tcp && s.tcp.retransmits > 0) {
    return {
      verdict: 'link',
      detail: `${s.tcp.retransmits} TCP retransmissions, congestion window ${mib(s.tcp.cwndBytes)}`,
    };
  }
  const ping = s.pingMs;
  const base = idleRttMs(s);
  if (ping !== undefined && base !== undefined && ping >= T.queueRatio * base && ping - base >= T.queueExtraMs) {
    return {
      verdict: 'link',
      detail: `bandwidth-bound: a round trip takes ${ms(ping)} behind our data, ${ms(base)} idle`,
    };
  }
  return undefined;
}

function remoteVerdict(s: IntervalSignals): Bottleneck {
  const latency = replyLatencyMs(s);
  const ping = s.pingMs;
  const base = idleRttMs(s);
  if (
    latency !== undefined &&
    ping !== undefined &&
    latency >= T.serverLatencyRatio * ping &&
    latency - ping >= T.serverExtraMs
  ) {
    return {
      verdict: 'server',
      detail: `replies take ${ms(latency)}, a round trip ${ms(ping)}: the server is slow to answer`,
    };
  }
  if (s.requestLimit > 0 && s.remoteMean >= T.slotsFull * s.requestLimit) {
    const rtt = ping ?? base;
    return {
      verdict: 'link',
      detail: `RTT-bound: all ${s.requestLimit} requests in flight, each a round trip${rtt !== undefined ? ` of ${ms(rtt)}` : ''}`,
    };
  }
  return { verdict: 'unknown', detail: `${s.remoteMean.toFixed(1)} of ${s.requestLimit} requests outstanding` };
}

/** Said of a link or window verdict where the platform gives no TCP_INFO (Windows: Node has no socket handle there). */
export const NO_TCP_NOTE = 'no TCP data on this system: judged from SSH timings alone';

/**
 * The verdict of one interval, without hysteresis (see {@link BottleneckTracker}). A `link` or `window` verdict made
 * without TCP data (no retransmissions, no receive-window time) says so in its detail ({@link NO_TCP_NOTE}).
 * @param s the connection's signals over the interval
 */
export function classifyInterval(s: IntervalSignals): Bottleneck {
  const b = classifySignals(s);
  if (s.tcp !== undefined || (b.verdict !== 'link' && b.verdict !== 'window')) return b;
  return { ...b, detail: `${b.detail}; ${NO_TCP_NOTE}` };
}

function classifySignals(s: IntervalSignals): Bottleneck {
  if (s.bytes <= 0 && s.remoteMean < 0.1 && s.localMean < 0.1) return { verdict: 'unknown', detail: 'idle' };
  if (s.elu !== undefined && s.elu >= T.cpuElu) {
    return { verdict: 'client-cpu', detail: `the connection's worker thread is busy ${pct(s.elu)} of the time` };
  }
  const link = fullLink(s);
  if (link) return link;
  const rate = s.intervalMs > 0 ? (s.bytes * 1000) / s.intervalMs : 0;
  const window = windowVerdict(s, rate);
  if (window) return window;
  const busy = s.localMean + s.remoteMean;
  if (busy > 0 && s.localMean / busy >= T.localShare) {
    return {
      verdict: 'local-disk',
      detail: `requests spend ${pct(s.localMean / busy)} of their time on local reads and writes`,
    };
  }
  if (s.remoteMean < T.minRemoteMean) {
    return { verdict: 'unknown', detail: `only ${s.remoteMean.toFixed(1)} requests outstanding on average` };
  }
  return remoteVerdict(s);
}

/**
 * A verdict that does not flicker: a new interval verdict replaces the shown one only after it won
 * `switchAfter` intervals in a row; the first verdict other than `unknown` is shown at once. The detail follows the
 * latest interval of the shown verdict.
 */
export class BottleneckTracker {
  private shown: Bottleneck = { verdict: 'unknown', detail: 'not measured yet' };
  private candidate: BottleneckVerdict | undefined;
  private wins = 0;

  /**
   * @param switchAfter intervals in a row a new verdict must win (default {@link BOTTLENECK_THRESHOLDS.switchAfter})
   */
  constructor(private readonly switchAfter: number = T.switchAfter) {}

  /** Feeds one interval's verdict; returns the verdict to show. */
  update(next: Bottleneck): Bottleneck {
    if (next.verdict === this.shown.verdict) {
      this.shown = next;
      this.candidate = undefined;
      this.wins = 0;
      return this.shown;
    }
    if (next.verdict === this.candidate) this.wins++;
    else {
      this.candidate = next.verdict;
      this.wins = 1;
    }
    if ((this.shown.verdict === 'unknown' && next.verdict !== 'unknown') || this.wins >= this.switchAfter) {
      this.shown = next;
      this.candidate = undefined;
      this.wins = 0;
    }
    return this.shown;
  }

  /** The verdict shown now. */
  get current(): Bottleneck {
    return this.shown;
  }
}

/**
 * The transfer's verdict from its connections': the verdict carrying the most bytes per second (a connection that
 * moves nothing still counts a little, so a stalled pool is named), `unknown` when no connection has one.
 * @param connections each connection's shown verdict and its rate, bytes/s
 */
export function transferBottleneck(connections: ReadonlyArray<{ bottleneck: Bottleneck; rate: number }>): Bottleneck {
  const weight = new Map<BottleneckVerdict, number>();
  for (const c of connections) {
    if (c.bottleneck.verdict === 'unknown') continue;
    weight.set(c.bottleneck.verdict, (weight.get(c.bottleneck.verdict) ?? 0) + c.rate + 1);
  }
  let best: BottleneckVerdict | undefined;
  for (const [v, w] of weight) if (best === undefined || w > weight.get(best)!) best = v;
  if (best === undefined)
    return { verdict: 'unknown', detail: connections.length ? connections[0].bottleneck.detail : 'no connection' };
  const of = connections.filter((c) => c.bottleneck.verdict === best);
  const detail =
    of.length === 1 || of.length === connections.length
      ? `${of[0].bottleneck.detail}${connections.length > 1 ? ` (${of.length} of ${connections.length} connections)` : ''}`
      : `${of.length} of ${connections.length} connections: ${of[0].bottleneck.detail}`;
  return { verdict: best, detail };
}

/** What a speed limit did over one interval, for {@link limiterVerdict}. */
export interface LimiterSignals {
  /** The tightest limit in force, bytes/s (0: none). */
  bytesPerSecond: number;
  /** Requests that found a limit's bucket empty and waited, during the interval. */
  waits: number;
  /** The transfer's rate, bytes/s. */
  rate: number;
}

/**
 * `speed-limit` when a limit holds the rate (requests waited on it, the rate reached {@link
 * BOTTLENECK_THRESHOLDS.limitShare} of it), else undefined.
 */
export function limiterVerdict(s: LimiterSignals): Bottleneck | undefined {
  if (s.bytesPerSecond <= 0 || s.waits <= 0 || s.rate < T.limitShare * s.bytesPerSecond) return undefined;
  return { verdict: 'speed-limit', detail: `${mib(s.rate)}/s of a ${mib(s.bytesPerSecond)}/s limit` };
}

/** The words the CLI and the graph show after "limited by: ". */
export const VERDICT_LABELS: Readonly<Record<BottleneckVerdict, string>> = {
  link: 'the network link',
  server: 'the server',
  'client-cpu': "this computer's CPU",
  'local-disk': 'the local disk',
  window: 'the SSH channel window',
  'speed-limit': 'your speed limit',
  unknown: 'nothing measured',
};

/** "limited by: the server (replies take 120 ms, a round trip 0.3 ms: …)". */
export function limitedByText(b: Bottleneck): string {
  return `limited by: ${VERDICT_LABELS[b.verdict]} (${b.detail})`;
}
