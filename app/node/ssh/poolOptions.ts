/**
 * What a site's pool (ssh/connectionPool.ts) is opened with, and the events the pool itself raises. Events of a
 * transfer never pass through here: each transfer has its own sink (engine/engine.ts Engine.transfer).
 */
import type { Algorithms } from 'ssh2';
import type { AuthMaterial } from './auth';
import type { LearnedHostKey, HostKeyPolicy } from './hostKeys';
import type { JumpHost } from './jumpHosts';
import type { KeyboardRound } from './keyboardInteractive';
import type { ConnectParams } from './workerProtocol';

/**
 * What the pool tells of itself: a connection (numbered from 0) came up or went down, a log line (its layout on a
 * slow link, an extra connection that failed, how the login went), and keys a trusted server announced and proved
 * (hostkeys-00@openssh.com) that were appended to `file` (never empty). The engine passes them on as EngineEvents
 * (transfer/types.ts), of which they are a part.
 */
export type PoolEvent =
  | { type: 'connection'; id: number; state: 'up' | 'down'; reason?: string }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'hostKeysLearned'; host: string; port: number; keys: LearnedHostKey[]; file: string };

export interface PoolOptions {
  host: string;
  port: number;
  username: string;
  auth: AuthMaterial;
  /** ssh2 algorithm lists (app/node/ssh/algorithms.ts buildAlgorithms). */
  algorithms?: Algorithms;
  /**
   * SSH connections (N), each in its own worker thread. Default: chosen from the measured RTT when neither
   * `connections` nor `channels` is given (see poolPlan.ts AUTO_TUNE).
   */
  connections?: number;
  /** SFTP channels per connection (M). Default: chosen with `connections`. */
  channels?: number;
  /** Outstanding SSH_FXP_READ/WRITE requests per channel (K). Default 64. */
  requests?: number;
  /**
   * Receive window per SFTP channel in bytes (≥ 2 MiB). Default: from the measured RTT (sessionDefaults.ts
   * channelWindowFor).
   */
  channelWindow?: number;
  /** Files in flight per channel (small files overlap their round trips). Default 32. */
  filesPerChannel?: number;
  /** Files larger than this are cut into segments spread over channels, in bytes. Default 16 MiB. */
  segmentSize?: number;
  /** ms between keepalives; 0 disables. Default 15000. */
  keepaliveIntervalMs?: number;
  /** Missed keepalives before the connection is dropped. Default 3. */
  keepaliveCountMax?: number;
  /** ms allowed for connect + handshake + auth. Default 20000. */
  readyTimeoutMs?: number;
  /** The job's first requests, sent with the first connection's channel set-up (see ConnectParams.prefetch). */
  prefetch?: ConnectParams['prefetch'];
  /**
   * Leave one channel per connection free for an exec (`--verify sha256` hashes with `sha256sum`; RFC 4254 §6.5): an
   * auto-sized pool then opens one SFTP channel fewer than OpenSSH's MaxSessions (10), which would otherwise refuse
   * the exec ("no more sessions"). Explicit `channels` are kept as given.
   */
  reserveExecChannel?: boolean;
  /**
   * Data folder (leftovers journal, cipher-speed.json for the default algorithm orders); default stores/dataDir.ts
   * resolveHome().
   */
  dataDir?: string;
  /** This site's speed limit, bytes per second (0 or absent: none); ConnectionPool.setRateLimit changes it. */
  rateLimit?: number;
  hostKeys: HostKeyPolicy;
  /**
   * The password, when the server wants one and none was given, or `again` after it refused one (asked again while
   * the server allows: it closes the connection at its limit, OpenSSH's MaxAuthTries). Undefined or '' = none.
   */
  askPassword?: (again: boolean) => Promise<string | undefined>;
  /**
   * Answers a keyboard-interactive round (RFC 4256: name, instruction, prompts with their echo flags) that the
   * password did not answer (ssh/keyboardInteractive.ts); rejects to end the login with that error (AUTH_FAILED
   * naming the prompt in --batch mode). Absent: such a login fails AUTH_FAILED.
   */
  askKeyboard?: (round: KeyboardRound) => Promise<string[]>;
  /**
   * Jump hosts (ssh_config(5) ProxyJump), in the order they are visited: every connection of the pool reaches the
   * target through them (ssh/worker/jump.ts), and their host keys go through `hostKeys` too.
   */
  jump?: JumpHost[];
  /**
   * The pool's own events: connections up and down, its log lines (the pool's layout, a failed extra connection, the
   * login note), host keys learned. A transfer's progress, file and log events go to its own sink (transfer/run.ts
   * runTransfer's `onEvent`), never through the pool.
   */
  onEvent?: (e: PoolEvent) => void;
}
