/**
 * The engine's door: {@link openEngine} turns user-level settings (engine/setup.ts) into a site's pool
 * (ssh/connectionPool.ts) with its transfers (transfer/run.ts) on it, and keeps what it learned about the server. The
 * CLI, the service and (through the service) the e2e harness open engines only here. The ssh layer knows nothing of
 * transfers; this module puts the two together. Events: the pool's own (ssh/poolOptions.ts PoolEvent, a part of
 * EngineEvent) go to EngineOptions.onEvent as they are; each transfer's go to the sink given with it.
 */
import { ConnectionPool } from '../ssh/connectionPool';
import { setGlobalRateLimit } from '../sftp/rateLimit';
import type { RemoteEntry, RemoteStat } from '../ssh/workerProtocol';
import { runTransfer } from '../transfer/run';
import type { TransferOptions, TransferReport, TransferRequest } from '../transfer/types';
import { removeEmptyFolder, removeRemote } from './remoteRemove';
import { ServerRecord, type ServerTraits } from './serverTraits';
import { RemoteFiles } from './remoteFiles';
import { SluiceError } from '../errors';
import { poolOptionsFor, type EngineOptions } from './setup';

export type { EngineOptions } from './setup';
export type { ServerTraits } from './serverTraits';
/** The process-wide speed limit over every engine (bytes per second, 0 = none): sftp/rateLimit.ts. */
export { setGlobalRateLimit };

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
  /** Lists a remote folder, without `.` and `..`; `long`: with owners, groups and `ls -l` lines (RemoteStat). */
  list(path: string, o?: { long?: boolean }): Promise<RemoteEntry[]>;
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
  /**
   * Removes a path whose kind a listing just gave (a sync's deletions): SSH_FXP_REMOVE or SSH_FXP_RMDIR at once,
   * without {@link remove}'s LSTAT first (a round trip each). @throws as {@link remove}
   */
  removeListed?(path: string, kind: 'file' | 'dir'): Promise<void>;
  /**
   * Runs a get or put job over every lane of the pool (transfer/run.ts). The job's progress samples, file ends and
   * log lines go to `o.onEvent` only (the pool's own events go to EngineOptions.onEvent); `o.signal` stops it.
   */
  transfer(req: TransferRequest, o?: TransferCall): Promise<TransferReport>;
  /**
   * Sets this site's speed limit, running transfers included (the process-wide one: {@link setGlobalRateLimit}).
   * @param bytesPerSecond bytes per second; 0 = unlimited
   * @throws SluiceError USAGE for a negative or non-finite value
   */
  setRateLimit(bytesPerSecond: number): void;
  /** Closes every connection of the pool. */
  close(): Promise<void>;
}

/** How one transfer is run: its signal and its own event sink. */
export type TransferCall = Pick<TransferOptions, 'signal' | 'onEvent'>;

/** How the service (and its tests) open an engine; {@link openEngine} by default. */
export type EngineFactory = (o: EngineOptions) => Promise<Engine>;

/** The {@link Engine} over a ConnectionPool: the product's only implementation. */
export class PoolEngine implements Engine {
  /** What this engine's jobs learned about the server (engine/serverTraits.ts). */
  readonly server = new ServerRecord();

  constructor(readonly connectionPool: ConnectionPool) {}

  get traits(): ServerTraits {
    return this.server.traits(this.connectionPool);
  }

  get pool(): PoolLayout {
    const s = this.connectionPool;
    return {
      authMethod: s.authMethod,
      connections: s.settings.connections,
      channels: s.settings.channels,
      channelWindow: s.channelWindow,
      rttMs: s.rttMs,
      up: s.connections.map((c) => ({ connection: c.id + 1, channels: c.channels })),
    };
  }

  list(path: string, o: { long?: boolean } = {}): Promise<RemoteEntry[]> {
    return this.connectionPool.list(path, o.long === true);
  }
  stat(path: string): Promise<RemoteStat | null> {
    return this.connectionPool.stat(path);
  }
  realpath(path: string): Promise<string> {
    return this.connectionPool.realpath(path);
  }
  readlink(path: string): Promise<string> {
    return this.connectionPool.readlink(path);
  }
  mkdir(path: string): Promise<'created' | 'exists'> {
    return this.connectionPool.mkdir(path);
  }
  rename(from: string, to: string): Promise<void> {
    return this.connectionPool.rename(from, to);
  }
  remove(path: string, recursive = false): Promise<void> {
    return removeRemote(this.connectionPool, path, recursive);
  }
  removeListed(path: string, kind: 'file' | 'dir'): Promise<void> {
    return kind === 'dir' ? removeEmptyFolder(this.connectionPool, path) : this.connectionPool.call('remove', { path });
  }
  close(): Promise<void> {
    return this.connectionPool.close();
  }
  setRateLimit(bytesPerSecond: number): void {
    this.connectionPool.setRateLimit(bytesPerSecond);
  }

  async transfer(req: TransferRequest, o: TransferCall = {}): Promise<TransferReport> {
    const report = await runTransfer(this.connectionPool, req, { ...o, server: this.server });
    this.server.learnFrom(req, report);
    return report;
  }
}

/**
 * The one door: resolves the user-level settings (engine/setup.ts: known_hosts, host-key policy, algorithms,
 * identities) and opens the site's pool. The first connection verifies the host key and authenticates.
 * @throws SluiceError USAGE, UNSUPPORTED_KEY, HOSTKEY_*, AUTH_FAILED, TIMEOUT, CONNECTION_LOST
 */
export async function openEngine(o: EngineOptions): Promise<Engine> {
  return new PoolEngine(await ConnectionPool.open(await poolOptionsFor(o)));
}

/**
 * The file manager's operations (engine/remoteFiles.ts) on an engine {@link openEngine} opened.
 * @throws SluiceError INTERNAL for another implementation of {@link Engine} (a test's fake)
 */
export function remoteFilesOf(engine: Engine): RemoteFiles {
  if (!(engine instanceof PoolEngine))
    throw new SluiceError('INTERNAL', 'file operations need an engine over a connection pool');
  return new RemoteFiles(engine.connectionPool);
}

/**
 * What a folder walk needs of an engine (sync/remoteListing.ts RemoteLister): its pool's streamed listing
 * (ConnectionPool.listEach: SSH_FXP_READDIR batches as they come, and SSH_FXP_REALPATH), or, for an engine without a
 * pool, `list` whole and no realpath (links are then left out of the walk).
 */
export function listerOf(
  engine: Engine,
): Pick<ConnectionPool, 'stat' | 'listEach'> & Partial<Pick<ConnectionPool, 'realpath'>> {
  if (engine instanceof PoolEngine) return engine.connectionPool;
  return {
    stat: (p) => engine.stat(p),
    listEach: async (p, onNames) => {
      const names = await engine.list(p);
      await onNames(names);
      return names.length;
    },
  };
}
