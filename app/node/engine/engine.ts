/**
 * The engine's door: a site's session (ssh/session.ts) with its transfers (transfer/run.ts) on it, and what it
 * learned about the server. The ssh layer knows nothing of transfers; this module puts the two together. The CLI
 * opens an {@link Engine}; the service opens {@link EngineSession}s (its own interface, which tests fake).
 */
import { openSession, type OpenSessionOptions } from '../ssh/openSession';
import { Session, type SessionOptions } from '../ssh/session';
import type { Negotiated, RemoteEntry, RemoteStat } from '../ssh/workerProtocol';
import { runTransfer } from '../transfer/run';
import type { EngineEvent, TransferReport, TransferRequest } from '../transfer/types';

/** The part of a session the service uses; a fake implements it in tests. */
export interface EngineSession {
  readonly negotiated: Negotiated;
  list(path: string): Promise<RemoteEntry[]>;
  stat(path: string): Promise<RemoteStat | null>;
  realpath(path: string): Promise<string>;
  mkdir(path: string): Promise<unknown>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string, recursive?: boolean): Promise<void>;
  /** Runs a get or put job over every lane of the pool (transfer/run.ts). */
  transfer(req: TransferRequest, signal?: AbortSignal): Promise<TransferReport>;
  close(): Promise<void>;
}

/** What the service passes to the engine to open a session: a subset of `SessionOptions`, with events required. */
export type EngineOpenOptions = Pick<SessionOptions, 'host' | 'port' | 'username' | 'auth' | 'algorithms' | 'connections' | 'channels'
  | 'readyTimeoutMs' | 'hostKeys' | 'dataDir'> & { onEvent: (e: EngineEvent) => void };

export type EngineFactory = (o: EngineOpenOptions) => Promise<EngineSession>;

/**
 * Opens a site's pool and returns it as an {@link EngineSession}.
 * @throws SluiceError HOSTKEY_*, AUTH_FAILED, TIMEOUT, CONNECTION_LOST (see Session.open)
 */
export async function openEngineSession(o: EngineOpenOptions): Promise<EngineSession> {
  const session = await Session.open(o);
  return {
    get negotiated() { return session.negotiated; },
    list: (p) => session.list(p),
    stat: (p) => session.stat(p),
    realpath: (p) => session.realpath(p),
    mkdir: (p) => session.mkdir(p),
    rename: (from, to) => session.rename(from, to),
    remove: (p, recursive) => session.remove(p, recursive),
    transfer: (req, signal) => runTransfer(session, req, signal),
    close: () => session.close(),
  };
}

/**
 * What the engine knows about the server of a session: its SFTP extensions and request sizes, whether its SFTP
 * server answers in request order, and whether it keeps out-of-order writes (after the probe; undefined before).
 */
export interface ServerTraits {
  extensions: Record<string, string>;
  /** Largest SSH_FXP_READ / SSH_FXP_WRITE used, bytes (limits@openssh.com, capped at 255 KiB). */
  maxRead: number;
  maxWrite: number;
  /** OpenSSH's sftp-server: requests are answered in order (see ConnectInfo.ordersRequests). */
  ordersRequests: boolean;
  /** The out-of-order write probe's answer: segmented uploads allowed. */
  outOfOrderWrites?: boolean;
}

/** An open engine: a site's pool and the transfers run on it. The one door for the CLI (the service uses {@link openEngineSession}). */
export class Engine {
  constructor(readonly session: Session) {}

  /** What the engine learned about the server (from the first connection and the probe). */
  get traits(): ServerTraits {
    const info = this.session.connections[0]?.info;
    return {
      extensions: { ...(info?.extensions ?? {}) },
      maxRead: info?.maxRead ?? 0,
      maxWrite: info?.maxWrite ?? 0,
      ordersRequests: info?.ordersRequests ?? false,
      outOfOrderWrites: this.session.outOfOrderWrites,
    };
  }

  /** Runs a get or put job over every lane of the pool (transfer/run.ts). */
  transfer(req: TransferRequest, signal?: AbortSignal): Promise<TransferReport> {
    return runTransfer(this.session, req, signal);
  }

  /** Closes every connection of the pool. */
  close(): Promise<void> {
    return this.session.close();
  }
}

/**
 * Opens an engine from user-level settings (known_hosts, host-key policy, algorithms, identities: ssh/openSession.ts).
 * @throws SluiceError USAGE, UNSUPPORTED_KEY, HOSTKEY_*, AUTH_FAILED, TIMEOUT, CONNECTION_LOST
 */
export async function openEngine(o: OpenSessionOptions): Promise<Engine> {
  return new Engine(await openSession(o));
}
