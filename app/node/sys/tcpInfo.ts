/**
 * TCP_INFO of one connection's socket: what the kernel knows about the link (RTT, congestion window,
 * retransmissions, delivery rate) and what held the sender back (Linux `tcpi_busy_time`, `tcpi_rwnd_limited`,
 * `tcpi_sndbuf_limited`). Read through the native/ addon where it is built, else through the JavaScript fallback.
 *
 * Sources, in order: the native/ addon (getsockopt TCP_INFO on the socket's descriptor: Linux `struct tcp_info`,
 * macOS `TCP_CONNECTION_INFO`, Windows `SIO_TCP_INFO`); else, on Linux, `ss -tinH` (iproute2) filtered to the socket's
 * two ports; else nothing — every consumer treats `undefined` as "not known on this platform".
 */
import { execFile } from 'node:child_process';
import type net from 'node:net';
import { nativeAddon, type RawTcpInfo } from './native';

/** One sample of a TCP connection's state (Linux `struct tcp_info`, macOS `tcp_connection_info`). */
export interface TcpInfo {
  /** Smoothed RTT, µs. */
  rttUs: number;
  /** RTT variance, µs. */
  rttVarUs: number;
  /** Minimum RTT seen, µs (Linux only). */
  minRttUs?: number;
  /** Congestion window, segments. */
  sndCwnd: number;
  /** Sender MSS, bytes. */
  sndMss: number;
  /** Retransmitted segments over the connection's life. */
  totalRetrans: number;
  /** Delivery rate estimate, bytes/s (Linux ≥ 4.9). */
  deliveryRateBps?: number;
  /** Time the connection had data to send, µs (Linux ≥ 4.10). */
  busyTimeUs?: number;
  /** Of that, time limited by the peer's receive window, µs. */
  rwndLimitedUs?: number;
  /** Of that, time limited by our send buffer, µs. */
  sndbufLimitedUs?: number;
  /** Bytes acknowledged by the peer / received from it (Linux). */
  bytesAcked?: number;
  bytesReceived?: number;
  /** Where the sample came from. */
  source: 'native' | 'ss';
}

/** The socket's descriptor (libuv's TCP handle; -1 or absent where the platform has none, e.g. Windows). */
function socketFd(socket: net.Socket): number {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  return typeof fd === 'number' ? fd : -1;
}

/** The addon's fields in this module's terms. */
export function fromRaw(r: RawTcpInfo): TcpInfo {
  const out: TcpInfo = {
    rttUs: r.rtt,
    rttVarUs: r.rttvar,
    sndCwnd: r.snd_cwnd,
    sndMss: r.snd_mss,
    totalRetrans: r.total_retrans,
    source: 'native',
  };
  if (r.min_rtt !== undefined) out.minRttUs = r.min_rtt;
  if (r.delivery_rate !== undefined) out.deliveryRateBps = r.delivery_rate;
  if (r.busy_time !== undefined) out.busyTimeUs = r.busy_time;
  if (r.rwnd_limited !== undefined) out.rwndLimitedUs = r.rwnd_limited;
  if (r.sndbuf_limited !== undefined) out.sndbufLimitedUs = r.sndbuf_limited;
  if (r.bytes_acked !== undefined) out.bytesAcked = r.bytes_acked;
  if (r.bytes_received !== undefined) out.bytesReceived = r.bytes_received;
  return out;
}

/** Set once `ss` could not be run: not tried again. */
let ssMissing = process.platform !== 'linux';

/** A number after `key:` in an `ss -ti` line (`rtt:0.116/0.088` gives 0.116 and, as `second`, 0.088). */
function field(line: string, key: string, second = false): number | undefined {
  const m = new RegExp(`(?:^|\\s)${key}[: ]([0-9.]+)(?:/([0-9.]+))?`).exec(line);
  const v = m ? Number(second ? m[2] : m[1]) : NaN;
  return Number.isFinite(v) ? v : undefined;
}

/**
 * Parses the information line of `ss -ti` (iproute2 ss(8); times in ms, rates in bits/s) into a sample.
 * @returns undefined when the line has no `rtt:` (not a TCP socket's line)
 */
export function parseSsInfo(line: string): TcpInfo | undefined {
  const rttMs = field(line, 'rtt');
  if (rttMs === undefined) return undefined;
  const ms = (v: number | undefined) => (v === undefined ? undefined : Math.round(v * 1000));
  const out: TcpInfo = {
    rttUs: ms(rttMs)!,
    rttVarUs: ms(field(line, 'rtt', true)) ?? 0,
    sndCwnd: field(line, 'cwnd') ?? 0,
    sndMss: field(line, 'mss') ?? 0,
    // `retrans:0/3`: retransmitted segments now in flight / over the connection's life
    totalRetrans: field(line, 'retrans', true) ?? 0,
    source: 'ss',
  };
  const extra: Array<[keyof TcpInfo, number | undefined]> = [
    ['minRttUs', ms(field(line, 'minrtt'))],
    [
      'deliveryRateBps',
      (() => {
        const b = field(line, 'delivery_rate');
        return b === undefined ? undefined : Math.round(b / 8);
      })(),
    ],
    ['busyTimeUs', ms(field(line, 'busy'))],
    ['rwndLimitedUs', ms(field(line, 'rwnd_limited'))],
    ['sndbufLimitedUs', ms(field(line, 'sndbuf_limited'))],
    ['bytesAcked', field(line, 'bytes_acked')],
    ['bytesReceived', field(line, 'bytes_received')],
  ];
  for (const [k, v] of extra) if (v !== undefined) (out as unknown as Record<string, number>)[k] = v;
  return out;
}

/**
 * `ss -tinH` for the connection between the socket's two ports (ours: source = local port), without blocking the
 * thread.
 */
function readBySs(socket: net.Socket): Promise<TcpInfo | undefined> {
  if (ssMissing || !socket.localPort || !socket.remotePort) return Promise.resolve(undefined);
  const filter = `sport = :${socket.localPort} and dport = :${socket.remotePort}`;
  return new Promise((resolve) => {
    execFile('ss', ['-tinH', filter], { encoding: 'utf8', timeout: 2000 }, (err, out) => {
      if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT') ssMissing = true;
      resolve(err ? undefined : parseSsInfo(out.split('\n').slice(1).join(' ')));
    });
  });
}

/**
 * Samples TCP_INFO for a socket: through the native/ addon (a getsockopt, answered at once), else `ss -tinH` on Linux
 * (a child process per call, a few ms, run asynchronously: meant for a sample a second), else nothing.
 * @param socket a connected `net.Socket` (a jump host's forwarded channel has no socket of its own: pass the first
 * hop's)
 * @returns the sample, or undefined where neither the addon nor the fallback can read it (never rejects)
 */
export function readTcpInfo(socket: net.Socket): Promise<TcpInfo | undefined> {
  const addon = nativeAddon();
  const fd = socketFd(socket);
  if (addon && fd >= 0) {
    try {
      return Promise.resolve(fromRaw(addon.tcpInfo(fd)));
    } catch {
      // a failing call (a closed socket, a handle the platform cannot look up): the fallback, as without the addon
    }
  }
  return readBySs(socket);
}
