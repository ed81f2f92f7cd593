/**
 * What the service reports about a site's session and transfers, outside any request: the session status (state,
 * negotiated algorithms, the pool), throughput samples for the graph and log lines. Payloads of contract.ts events.
 */
import type { Bottleneck } from '../stats/bottleneck';

/**
 * A site's connection pool as the engine laid it out (`Engine.pool`): SSH connections planned (the site's, else sized
 * from the measured RTT by planPool), SFTP channels planned per connection, and each planned connection up or down.
 */
export interface PoolStatus {
  /** SSH connections planned. */
  connections: number;
  /** SFTP channels planned per connection. */
  channels: number;
  /**
   * Every planned connection by number (from 1, as {@link ProgressSample} connection ids): up with its open SFTP
   * channels, or down (0 channels).
   */
  links: Array<{ connection: number; up: boolean; channels: number }>;
  /** Round-trip time measured on the first connection, ms. */
  rttMs?: number;
}

/** `reconnecting`: every connection was lost and the session is being opened again (with backoff; see `attempt`). */
export type SessionState = 'connecting' | 'connected' | 'reconnecting' | 'disconnected' | 'failed';

export interface SessionStatus {
  siteId: string;
  siteName: string;
  state: SessionState;
  /** Negotiated algorithms (RFC 4253 §7.1), present once connected. */
  kex?: string;
  cipher?: string;
  mac?: string;
  serverHostKey?: string;
  /** The server's identification line (RFC 4253 §4.2), e.g. `SSH-2.0-OpenSSH_9.2p1`, once connected. */
  serverVersion?: string;
  /** Connections currently up / configured (once connected: planned, as {@link SessionStatus.pool} says). */
  connectionsUp: number;
  connections: number;
  /** The engine's pool as it stands, once connected (service/poolStatus.ts): what the status bar shows. */
  pool?: PoolStatus;
  /** Remote home (realpath of `.`), once connected. */
  home?: string;
  /** While `reconnecting`: the attempt under way or waited for, from 1 (the first after the loss). */
  attempt?: number;
  /** Why the session failed; while `reconnecting`, why it was lost (or why the last attempt failed). */
  error?: { code: string; message: string };
}

/** One throughput sample for the graph (about 4 per second per connected site). */
export interface ProgressSample {
  siteId: string;
  /** Milliseconds since the epoch. */
  t: number;
  /** Total rate in bytes/s across all connections. */
  rate: number;
  /** Each connection's rate, bytes/s; `id` is the connection's number from 1, as {@link PoolStatus} links. */
  connections: Array<{ id: number; rate: number }>;
  /** What limits the site's transfers now (the busiest run's verdict, app/common/stats/bottleneck.ts). */
  bottleneck?: Bottleneck;
}

export interface LogLine {
  t: number;
  level: 'info' | 'warn' | 'error';
  message: string;
  siteId?: string;
}
