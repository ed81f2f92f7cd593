/**
 * TCP_INFO of one connection's socket: what the kernel knows about the link (RTT, congestion window,
 * retransmissions, delivery rate) and what held the sender back (Linux `tcpi_busy_time`, `tcpi_rwnd_limited`,
 * `tcpi_sndbuf_limited`). Read through the native/ addon where it is built, else through the JavaScript fallback.
 *
 * Seam for issue #16: the reader is filled in by the native/ work (native addon + `ss -ti` fallback); until then it
 * reports nothing and every consumer must treat `undefined` as "not known on this platform".
 */
import type net from 'node:net';

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
  source: 'native' | 'ss' ;
}

/**
 * Samples TCP_INFO for a socket.
 * @param socket a connected `net.Socket` (a jump host's forwarded channel has no socket of its own: pass the first hop's)
 * @returns the sample, or undefined where neither the addon nor the fallback can read it (never throws)
 */
export function readTcpInfo(socket: net.Socket): TcpInfo | undefined {
  void socket;
  return undefined;
}
