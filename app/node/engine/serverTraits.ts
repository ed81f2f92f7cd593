/**
 * What the engine knows about a server: read from the pool's first connection (algorithms, SFTP extensions and
 * request sizes, answer order), and learned by its transfers (the out-of-order write probe,
 * draft-ietf-secsh-filexfer-02 §6; how `sha256` verification hashed). The pool (ssh/connectionPool.ts) keeps only its
 * connections; what jobs learn is kept here, one record per engine, and each job reads and adds to it ({@link
 * ServerLearnings}).
 */
import type { ConnectionPool } from '../ssh/connectionPool';
import type { Negotiated } from '../ssh/workerProtocol';
import type { ServerLearnings, TransferReport, TransferRequest } from '../transfer/types';

/**
 * The one record of what the engine learned about the server: the negotiated algorithms, its SFTP extensions and
 * request sizes, whether its SFTP server answers in request order, whether it keeps out-of-order writes (after the
 * probe), and how `sha256` verification could hash its copies (after such a job).
 */
export interface ServerTraits {
  /** Key exchange, host key, cipher and MAC of the first connection. */
  negotiated: Negotiated;
  /** The server's identification line (RFC 4253 §4.2), e.g. `SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3`. */
  serverVersion?: string;
  extensions: Record<string, string>;
  /** Largest SSH_FXP_READ / SSH_FXP_WRITE used, bytes (limits@openssh.com, capped at 255 KiB). */
  maxRead: number;
  maxWrite: number;
  /** OpenSSH's sftp-server: requests are answered in order (see ConnectInfo.ordersRequests). */
  ordersRequests: boolean;
  /** The out-of-order write probe's answer: segmented uploads allowed. Undefined before the probe. */
  outOfOrderWrites?: boolean;
  /**
   * How the last `verify: 'sha256'` job hashed the server's copies: `server` (every file hashed by the server:
   * check-file-name or `sha256sum` over exec), `reread` (exec was allowed, yet a file was read back over SFTP).
   * Undefined before such a job. Which method works is learned per connection in the worker (ssh/remoteHash.ts).
   */
  remoteHash?: 'server' | 'reread';
}

/** What the engine's transfers learned about its server; {@link ServerRecord.traits} adds what the pool read. */
export class ServerRecord implements ServerLearnings {
  outOfOrderWrites: boolean | undefined;
  private remoteHash: ServerTraits['remoteHash'];

  /** Learns from a finished job how `sha256` verification hashed the server's copies. */
  learnFrom(req: TransferRequest, report: TransferReport): void {
    if (report.verify === 'sha256-remote') this.remoteHash = 'server';
    else if (report.verify === 'sha256-reread' && req.allowExec !== false) this.remoteHash = 'reread';
  }

  /** The whole record: the pool's first connection's facts and what jobs learned (a copy). */
  traits(pool: ConnectionPool): ServerTraits {
    const info = pool.connections[0]?.info;
    return {
      negotiated: { ...pool.negotiated },
      serverVersion: pool.serverVersion,
      extensions: { ...(info?.extensions ?? {}) },
      maxRead: info?.maxRead ?? 0,
      maxWrite: info?.maxWrite ?? 0,
      ordersRequests: info?.ordersRequests ?? false,
      outOfOrderWrites: this.outOfOrderWrites,
      remoteHash: this.remoteHash,
    };
  }
}
