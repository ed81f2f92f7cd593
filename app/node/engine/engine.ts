/**
 * The engine's door: {@link openEngine} turns user-level settings (engine/setup.ts) into a site's pool
 * (ssh/session.ts) with its transfers (transfer/run.ts) on it, and keeps what it learned about the server. The CLI,
 * the service and (through the service) the e2e harness open engines only here. The ssh layer knows nothing of
 * transfers; this module puts the two together.
 */
import { Session } from '../ssh/session';
import { setGlobalRateLimit } from '../sftp/rateLimit';
import type { Negotiated, RemoteEntry, RemoteStat } from '../ssh/workerProtocol';
import { runTransfer } from '../transfer/run';
import type { TransferReport, TransferRequest } from '../transfer/types';
import { removeRemote } from './remoteRemove';
import { RemoteFiles } from './remoteFiles';
import { SluiceError } from '../errors';
import { sessionOptionsFor, type EngineOptions } from './setup';

export type { EngineOptions } from './setup';
/** The process-wide speed limit over every engine (bytes per second, 0 = none): sftp/rateLimit.ts. */
export { setGlobalRateLimit };

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

/** How the engine laid out its pool (the CLI's `-v` line). */
export interface PoolLayout {
  /** The login method that succeeded (`publickey`, `password`, `keyboard-interactive`, ...). */
  authMethod: string;
  /** SSH connections planned (planPool or the user's --connections). */
  connections: number;
  /** SFTP channels planned per connection. */
  channels: number;
  /** The connections up now, each with the SFTP channels it has open (connection numbers from 1). */
  up: Array<{ connection: number; channels: number }>;
  /** Receive window per SFTP channel, bytes. */
  channelWindow: number;
  /** Round-trip time measured on the first connection, ms. */
  rttMs?: number;
}

/** An open engine: a site's pool, remote file operations and the transfers run on it. Tests fake it. */
export interface Engine {
  /** What the engine learned about the server (from the first connection, the probe and verified jobs). */
  readonly traits: ServerTraits;
  readonly pool: PoolLayout;
  /** Lists a remote folder, without `.` and `..`. */
  list(path: string): Promise<RemoteEntry[]>;
  /** SSH_FXP_STAT (follows symlinks); null when the path does not exist. */
  stat(path: string): Promise<RemoteStat | null>;
  /** Canonical absolute form of a remote path ('.' = the login folder). */
  realpath(path: string): Promise<string>;
  /** SSH_FXP_READLINK: the path a symbolic link names, as stored in the link. */
  readlink(path: string): Promise<string>;
  mkdir(path: string): Promise<'created' | 'exists'>;
  /** Renames without replacing an existing target. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file, or a folder with `recursive`. */
  remove(path: string, recursive?: boolean): Promise<void>;
  /** Runs a get or put job over every lane of the pool (transfer/run.ts). */
  transfer(req: TransferRequest, signal?: AbortSignal): Promise<TransferReport>;
  /**
   * Sets this site's speed limit, running transfers included (the process-wide one: {@link setGlobalRateLimit}).
   * @param bytesPerSecond bytes per second; 0 = unlimited
   * @throws SluiceError USAGE for a negative or non-finite value
   */
  setRateLimit(bytesPerSecond: number): void;
  /** Closes every connection of the pool. */
  close(): Promise<void>;
}

/** How the service (and its tests) open an engine; {@link openEngine} by default. */
export type EngineFactory = (o: EngineOptions) => Promise<Engine>;

/** The {@link Engine} over a Session: the product's only implementation. */
export class SessionEngine implements Engine {
  private remoteHash: ServerTraits['remoteHash'];

  constructor(readonly session: Session) {}

  get traits(): ServerTraits {
    const info = this.session.connections[0]?.info;
    return {
      negotiated: { ...this.session.negotiated },
      serverVersion: this.session.serverVersion,
      extensions: { ...(info?.extensions ?? {}) },
      maxRead: info?.maxRead ?? 0,
      maxWrite: info?.maxWrite ?? 0,
      ordersRequests: info?.ordersRequests ?? false,
      outOfOrderWrites: this.session.outOfOrderWrites,
      remoteHash: this.remoteHash,
    };
  }

  get pool(): PoolLayout {
    const s = this.session;
    return {
      authMethod: s.authMethod, connections: s.settings.connections, channels: s.settings.channels, channelWindow: s.channelWindow, rttMs: s.rttMs,
      up: s.connections.map((c) => ({ connection: c.id + 1, channels: c.channels })),
    };
  }

  list(path: string): Promise<RemoteEntry[]> { return this.session.list(path); }
  stat(path: string): Promise<RemoteStat | null> { return this.session.stat(path); }
  realpath(path: string): Promise<string> { return this.session.realpath(path); }
  readlink(path: string): Promise<string> { return this.session.readlink(path); }
  mkdir(path: string): Promise<'created' | 'exists'> { return this.session.mkdir(path); }
  rename(from: string, to: string): Promise<void> { return this.session.rename(from, to); }
  remove(path: string, recursive = false): Promise<void> { return removeRemote(this.session, path, recursive); }
  close(): Promise<void> { return this.session.close(); }
  setRateLimit(bytesPerSecond: number): void { this.session.setRateLimit(bytesPerSecond); }

  async transfer(req: TransferRequest, signal?: AbortSignal): Promise<TransferReport> {
    const report = await runTransfer(this.session, req, signal);
    if (report.verify === 'sha256-remote') this.remoteHash = 'server';
    else if (report.verify === 'sha256-reread' && req.allowExec !== false) this.remoteHash = 'reread';
    return report;
  }
}

/**
 * The one door: resolves the user-level settings (engine/setup.ts: known_hosts, host-key policy, algorithms,
 * identities) and opens the site's pool. The first connection verifies the host key and authenticates.
 * @throws SluiceError USAGE, UNSUPPORTED_KEY, HOSTKEY_*, AUTH_FAILED, TIMEOUT, CONNECTION_LOST
 */
export async function openEngine(o: EngineOptions): Promise<Engine> {
  return new SessionEngine(await Session.open(await sessionOptionsFor(o)));
}

/**
 * The file manager's operations (engine/remoteFiles.ts) on an engine {@link openEngine} opened.
 * @throws SluiceError INTERNAL for another implementation of {@link Engine} (a test's fake)
 */
export function remoteFilesOf(engine: Engine): RemoteFiles {
  if (!(engine instanceof SessionEngine)) throw new SluiceError('INTERNAL', 'file operations need an engine over a session');
  return new RemoteFiles(engine.session);
}
