/**
 * A session's defaults and its channel window sizing: what a pool uses unless told otherwise, and the receive window
 * per SFTP channel for a measured RTT (RFC 4254 §5.2).
 */
import { AUTO_TUNE } from './poolPlan';

/** ssh2's fixed receive window per channel (lib/Channel.js MAX_WINDOW), in bytes. */
export const SSH2_DEFAULT_WINDOW = 2 * 1024 * 1024;

/**
 * Receive window per SFTP channel (RFC 4254 §5.2) for a measured RTT: the bandwidth-delay product at
 * `WINDOW_TUNE.bytesPerSecond`, between ssh2's 2 MiB and `maxBytes`. A channel moves at most one window per
 * round trip, so ssh2's fixed 2 MiB caps a channel near 20 MB/s at 50 ms; on loopback a larger window only
 * costs cache misses (measured slower), so low RTTs keep 2 MiB.
 *
 * @param rttMs round-trip time in ms (see ConnectionPool.measureRtt)
 * @returns window in bytes, a multiple of 64 KiB
 */
export function channelWindowFor(rttMs: number): number {
  if (!(rttMs >= AUTO_TUNE.rttMs)) return SSH2_DEFAULT_WINDOW;
  const bdp = (rttMs / 1000) * WINDOW_TUNE.bytesPerSecond;
  const rounded = Math.ceil(bdp / 65536) * 65536;
  return Math.min(WINDOW_TUNE.maxBytes, Math.max(SSH2_DEFAULT_WINDOW, rounded));
}

/** Sizing of {@link channelWindowFor}: 4–32 MiB measured alike at 50 ms (bench/), so the middle is used. */
export const WINDOW_TUNE = { bytesPerSecond: 128 * 1024 * 1024, maxBytes: 16 * 1024 * 1024 };

/**
 * A session's settings when none are given: pool, requests per channel, files per channel, segments, keepalives,
 * timeouts (ms, bytes).
 */
export const POOL_DEFAULTS = {
  connections: 1,
  channels: 1,
  requests: 64,
  // 1000 × 4 KiB at 50 ms RTT, 5 alternated runs: 8 → 2.98 / 2.27 s (put / get), 16 → 2.19 / 1.62 s,
  // 32 → 1.92 / 1.43 s, 64 → 1.88 / 1.40 s; 32 keeps local descriptors well under a 1024 limit with 2 × 10 lanes.
  filesPerChannel: 32,
  segmentSize: 16 * 1024 * 1024,
  keepaliveIntervalMs: 15_000,
  keepaliveCountMax: 3,
  readyTimeoutMs: 20_000,
};
