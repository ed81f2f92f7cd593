/**
 * A session = one site's pool of N connection workers × M SFTP channels, with the host-key policy shared
 * by all of them. Transfers run on its lanes (app/node/transfer/run.ts); browsing goes through any live
 * connection.
 */
import * as os from 'node:os';
import { SluiceError } from '../errors';
import { WorkerConnection, type CallOptions } from './connection';
import { AUTO_TUNE, planPool, probeRtt, type PoolPlan } from './poolPlan';
import { POOL_DEFAULTS, SSH2_DEFAULT_WINDOW, channelWindowFor } from './poolDefaults';
import { RateBucket, globalRateLimit, type RateLimitStats } from '../sftp/rateLimit';
import { resolveHome } from '../stores/dataDir';
import { LeftoverJournal } from '../stores/leftovers';
import type { HostKeyPolicy } from './hostKeys';
import { JumpHosts, atJumpHost } from './jumpHosts';
import type { Negotiated, RemoteEntry, RemoteStat, WorkerOps } from './workerProtocol';
import type { PoolEvent, PoolOptions } from './poolOptions';
import { MAX_CHANNELS_PER_CONNECTION, MAX_CONNECTIONS, PoolGrowth } from './poolGrowth';

export type { PoolEvent, PoolOptions } from './poolOptions';

export { AUTO_TUNE } from './poolPlan';

export { POOL_DEFAULTS, SSH2_DEFAULT_WINDOW, WINDOW_TUNE, channelWindowFor } from './poolDefaults';

/** `lanes`: new lanes (or parked ones back) for running jobs; `park`: start no new task on these; `fatal`: stop. */
export type PoolChange =
  { type: 'lanes'; lanes: Lane[] } | { type: 'park'; lanes: Lane[] } | { type: 'fatal'; error: SluiceError };

/** One SFTP channel of one connection: the unit the scheduler leases work to. */
export interface Lane {
  conn: WorkerConnection;
  channel: number;
}

export class ConnectionPool {
  private readonly conns: WorkerConnection[] = [];
  private fatal: SluiceError | null = null;
  /** The key each connection's target (`ID`) or jump host (`ID:HOP`) presented and the policy accepted. */
  private readonly connectionKeys = new Map<string, Buffer>();
  private password: string | undefined;
  private passwordAsk: Promise<string | undefined> | null = null;
  private readonly poolListeners = new Set<(e: PoolChange) => void>();
  private growing: Promise<void> = Promise.resolve();
  private closing = false;
  negotiated: Negotiated = { kex: '', serverHostKey: '', cipher: '', mac: '' };
  /** The server's identification line (RFC 4253 §4.2) seen by the first connection. */
  serverVersion = '';
  /** Round-trip time measured on the first connection, in ms (see measureRtt). */
  rttMs: number | undefined;
  /** Receive window of every SFTP channel, in bytes ({@link channelWindowFor} unless given). */
  channelWindow = SSH2_DEFAULT_WINDOW;
  authMethod = '';
  readonly settings: typeof POOL_DEFAULTS;
  /** Remote files left behind on this server by earlier runs (cleaned by the next transfer). */
  readonly leftovers: LeftoverJournal;
  /** This site's speed limit, shared with its connection workers (each request also takes from the process's). */
  private readonly siteLimit: RateBucket;
  private readonly jump: JumpHosts;
  /** Adapts the pool while a transfer runs (poolGrowth.ts): only when neither connections nor channels were given. */
  readonly growth: PoolGrowth | undefined;

  private constructor(readonly options: PoolOptions) {
    this.settings = {
      connections: options.connections ?? POOL_DEFAULTS.connections,
      channels: planPool(ConnectionPool.poolInputs(options)).channelsPerConnection,
      requests: options.requests ?? POOL_DEFAULTS.requests,
      filesPerChannel: options.filesPerChannel ?? POOL_DEFAULTS.filesPerChannel,
      segmentSize: options.segmentSize ?? POOL_DEFAULTS.segmentSize,
      keepaliveIntervalMs: options.keepaliveIntervalMs ?? POOL_DEFAULTS.keepaliveIntervalMs,
      keepaliveCountMax: options.keepaliveCountMax ?? POOL_DEFAULTS.keepaliveCountMax,
      readyTimeoutMs: options.readyTimeoutMs ?? POOL_DEFAULTS.readyTimeoutMs,
    };
    this.password = options.auth.password;
    this.siteLimit = new RateBucket({ bytesPerSecond: options.rateLimit });
    this.jump = new JumpHosts(options.jump ?? []);
    this.leftovers = new LeftoverJournal(options.dataDir ?? resolveHome(), {
      host: options.host,
      port: options.port,
      user: options.username,
    });
    // Planned, then adapted while a transfer runs, unless the user chose the connections or the channels.
    if (options.connections === undefined && options.channels === undefined) {
      this.growth = new PoolGrowth(
        {
          host: options.host,
          port: options.port,
          dataDir: this.leftovers.dataDir,
          liveConnections: () => this.connections,
          plannedLanes: () => this.settings.connections * this.settings.channels,
          openConnection: (channels) => this.openConnection(channels),
          announce: (lanes) => this.tell({ type: 'lanes', lanes }),
          park: (lanes) => this.tell({ type: 'park', lanes }),
          log: (message) => this.emit({ type: 'log', level: 'info', message }),
        },
        { maxConnections: MAX_CONNECTIONS, reserveExecChannel: options.reserveExecChannel === true },
      );
    }
  }

  /**
   * Opens the pool: the first connection verifies the host key and authenticates (so the user is asked at
   * most once), then the other N−1 connect in parallel with the same identity. Every connection verifies the
   * host key; one that sees a changed key stops the whole session before authenticating.
   *
   * @throws SluiceError HOSTKEY_* | AUTH_FAILED | TIMEOUT | CONNECTION_LOST
   */
  static async open(options: PoolOptions): Promise<ConnectionPool> {
    const s = new ConnectionPool(options);
    try {
      const first = await s.addConnection();
      s.negotiated = first.info!.negotiated;
      s.serverVersion = first.info!.serverVersion ?? '';
      s.authMethod = first.info!.authMethod;
      await s.measureRtt(first);
      s.channelWindow = options.channelWindow ?? channelWindowFor(s.rttMs!);
      if (s.channelWindow !== SSH2_DEFAULT_WINDOW) await first.setChannelWindow(s.channelWindow);
      if (s.authMethod === 'keyboard-interactive' && s.settings.connections > 1) {
        // A keyboard-interactive (often 2FA) login would ask the user again per connection: widen this one instead.
        await first.addChannels((s.settings.connections - 1) * s.settings.channels);
        s.emit({
          type: 'log',
          level: 'info',
          message: `keyboard-interactive login: using ${first.channels} ${first.channels === 1 ? 'channel' : 'channels'} on one connection instead of ${s.settings.connections} connections`,
        });
        return s;
      }
      s.applyPlan(planPool({ ...ConnectionPool.poolInputs(options), rttMs: s.rttMs }));
      s.growing = s.growPool();
      // A pool whose channels were planned (auto-sized, or only `connections` given) grows in the background: a
      // small job is done on the first connection before the others would even have authenticated; a big one gains
      // their lanes as they come up (measured at 50 ms: --connections 2 waiting for its second connection took
      // 2.33 s for a 128 MiB put where the default took 1.66 s). A layout given whole is there before the job starts.
      if (options.channels !== undefined) await s.growing;
      if (s.fatal) throw s.fatal;
      return s;
    } catch (e) {
      await s.close();
      throw s.fatal ?? e;
    }
  }

  /** Opens connections 2…N in parallel; each announces its lanes to running jobs as it comes up. */
  private async growPool(): Promise<void> {
    const rest: Array<Promise<void>> = [];
    const first = this.conns[0];
    if (first && first.channels < this.settings.channels) {
      const before = first.channels;
      rest.push(first.addChannels(this.settings.channels - before).then(() => this.announceLanes(first, before)));
    }
    for (let i = 1; i < this.settings.connections; i++)
      rest.push(this.addConnection().then((conn) => this.announceLanes(conn, 0)));
    const results = await Promise.allSettled(rest);
    if (this.fatal) {
      for (const l of this.poolListeners) l({ type: 'fatal', error: this.fatal });
      return;
    }
    if (this.closing) return;
    for (const r of results) {
      if (r.status === 'rejected')
        this.emit({ type: 'log', level: 'warn', message: `extra connection failed: ${(r.reason as Error).message}` });
    }
  }

  /** Tells running jobs about a connection's channels from `from` on, and the log (`-v`) how the pool stands. */
  private announceLanes(conn: WorkerConnection, from: number): void {
    if (this.closing) return;
    const lanes = Array.from({ length: conn.channels - from }, (_, i) => ({ conn, channel: from + i }));
    for (const l of this.poolListeners) l({ type: 'lanes', lanes });
    const { connections, channels } = this.settings;
    this.emit({
      type: 'log',
      level: 'info',
      message: `connection ${conn.id + 1} of ${connections}: ${conn.channels} of ${channels} planned SFTP ${channels === 1 ? 'channel' : 'channels'} up`,
    });
  }

  /**
   * Follows the pool while a job runs: `lanes` when a connection comes up, `fatal` when a connection saw a
   * changed or revoked host key (the job must stop). Returns the unsubscribe function.
   */
  onPoolChange(listener: (e: PoolChange) => void): () => void {
    this.poolListeners.add(listener);
    return () => this.poolListeners.delete(listener);
  }

  /** Resolves once every connection of the pool has connected or failed. */
  whenPoolSettled(): Promise<void> {
    return this.growing;
  }

  /**
   * The RTT of the first connection: its SSH keepalive round trip, measured while its SFTP channel opened, else
   * the smallest of {@link AUTO_TUNE}.probes SSH_FXP_REALPATH calls.
   */
  private async measureRtt(first: WorkerConnection): Promise<void> {
    this.rttMs = first.info?.rttMs ?? (await probeRtt(() => first.call('realpath', { path: '.' })));
  }

  /** What the pool is planned from, before the RTT is known ({@link planPool}). */
  private static poolInputs(o: PoolOptions) {
    return {
      cores: os.availableParallelism(),
      connections: o.connections,
      channels: o.channels,
      segmentedPut: o.prefetch?.probeDir !== undefined,
      reserveExecChannel: o.reserveExecChannel,
    };
  }

  /** Sizes the pool from the measured RTT ({@link planPool}); says so when the link is slow. */
  private applyPlan(plan: PoolPlan): void {
    this.settings.connections = plan.connections;
    this.settings.channels = plan.channelsPerConnection;
    if (!plan.slowLink) return;
    this.emit({
      type: 'log',
      level: 'info',
      message: `RTT ${(this.rttMs ?? 0).toFixed(1)} ms: using ${plan.connections} ${plan.connections === 1 ? 'connection' : 'connections'} × ${plan.channelsPerConnection} ${plan.channelsPerConnection === 1 ? 'channel' : 'channels'}, ${this.channelWindow / 1048576} MiB channel window`,
    });
  }

  /** SFTP channels per connection of an auto-sized pool on a slow link (one fewer with `reserveExecChannel`). */
  private get autoChannels(): number {
    return AUTO_TUNE.channels - (this.options.reserveExecChannel ? 1 : 0);
  }

  private emit(e: PoolEvent): void {
    this.options.onEvent?.(e);
  }

  /**
   * The password for a connection: the known one (given, or the last answer), asked once for all connections when
   * there is none; asked anew `again` (the server refused it), and that answer is the one later connections use.
   */
  private askPassword(again: boolean): Promise<string | undefined> {
    if (!again && this.password !== undefined) return Promise.resolve(this.password);
    if (!this.options.askPassword) return Promise.resolve(undefined);
    const ask = this.options.askPassword;
    const remember = (p: string | undefined): string | undefined => {
      this.password = p;
      return p;
    };
    if (again) return ask(true).then(remember);
    this.passwordAsk ??= ask(false).then(remember);
    return this.passwordAsk;
  }

  /** One more connection with `channels` SFTP channels (the adaptive pool's); running jobs are told its lanes. */
  private async openConnection(channels: number): Promise<WorkerConnection> {
    if (this.authMethod === 'keyboard-interactive')
      throw new SluiceError('USAGE', 'a keyboard-interactive login would ask again for another connection');
    const conn = await this.addConnection(channels);
    this.tell({ type: 'lanes', lanes: Array.from({ length: conn.channels }, (_, channel) => ({ conn, channel })) });
    return conn;
  }

  private tell(change: PoolChange): void {
    if (!this.closing) for (const l of this.poolListeners) l(change);
  }

  private async addConnection(channels = this.settings.channels): Promise<WorkerConnection> {
    const id = this.conns.length;
    const o = this.options;
    const planned =
      id === 0
        ? Math.max(this.settings.connections * this.settings.channels, AUTO_TUNE.connections * this.autoChannels)
        : channels;
    const conn = new WorkerConnection(
      id,
      channels,
      {
        verifyHostKey: (key, hop) => this.verifyHostKey(id, key, hop),
        askPassword: (again, hop) => (hop === undefined ? this.askPassword(again) : this.jump.askPassword(hop)),
        askKeyboard: o.askKeyboard,
        // Every connection logs in alike: the first one's login is told (under -v).
        onAuthNote: (message) => {
          if (id === 0) this.emit({ type: 'log', level: 'info', message });
        },
        onHostKeys: (keys, hop) => {
          const key = this.connectionKeys.get(hop === undefined ? `${id}` : `${id}:${hop}`);
          if (!key) return;
          const { host, port } = hop === undefined ? o : this.jump.hop(hop);
          const policy = this.hostKeysFor(hop);
          policy.learnRotatedKeys(host, port, key, keys).then(
            (learned) => {
              if (learned.length)
                this.emit({ type: 'hostKeysLearned', host, port, keys: learned, file: policy.writePath });
            },
            () => undefined,
          );
        },
        onClosed: (e) => {
          if (this.fatal?.code.startsWith('HOSTKEY')) return;
          this.emit({ type: 'connection', id, state: 'down', reason: e.message });
        },
      },
      this.growth ? Math.max(planned, MAX_CHANNELS_PER_CONNECTION) : planned,
    );
    this.conns.push(conn);
    await conn.connect({
      host: o.host,
      port: o.port,
      username: o.username,
      dataDir: this.leftovers.dataDir,
      auth: { ...o.auth, password: this.password },
      canAskPassword: o.askPassword !== undefined,
      algorithms: o.algorithms,
      requests: this.settings.requests,
      channelWindow: this.channelWindow,
      keepaliveIntervalMs: this.settings.keepaliveIntervalMs,
      keepaliveCountMax: this.settings.keepaliveCountMax,
      readyTimeoutMs: this.settings.readyTimeoutMs,
      autoChannels:
        id === 0 && o.channels === undefined
          ? { minRttMs: AUTO_TUNE.rttMs, earlyRttMs: AUTO_TUNE.earlyRttMs, channels: this.autoChannels }
          : undefined,
      prefetch: id === 0 ? o.prefetch : undefined,
      rateLimits: [globalRateLimit().buffer, this.siteLimit.buffer],
      jump: this.jump.params(),
    });
    this.emit({ type: 'connection', id, state: 'up' });
    return conn;
  }

  /** The policy for the target (`hop` undefined) or a jump host: the hop's own where it has one, else the pool's. */
  private hostKeysFor(hop: number | undefined): HostKeyPolicy {
    return (hop === undefined ? undefined : this.jump.hop(hop).hostKeys) ?? this.options.hostKeys;
  }

  /**
   * Decides on a host key connection `id` was shown, by the target or by jump host `hop`: the pool's one policy; a
   * changed or revoked key stops the whole pool before authenticating; a jump host's refusal names the hop.
   */
  private async verifyHostKey(
    id: number,
    key: Buffer,
    hop?: number,
  ): Promise<{ accept: boolean; error?: SluiceError }> {
    if (this.fatal) return { accept: false, error: this.fatal };
    const o = this.options;
    const server = hop === undefined ? o : this.jump.hop(hop);
    let check: Awaited<ReturnType<HostKeyPolicy['verify']>>;
    try {
      check = await this.hostKeysFor(hop).verify(server.host, server.port, key);
    } catch (e) {
      // The question was interrupted (Ctrl-C): the whole pool stops with that error.
      this.fatal ??= SluiceError.from(e);
      return { accept: false, error: this.fatal };
    }
    if (check.accepted) {
      this.connectionKeys.set(hop === undefined ? `${id}` : `${id}:${hop}`, key);
      return { accept: true };
    }
    const plain = new SluiceError(check.code, check.message);
    const error = hop === undefined ? plain : atJumpHost(this.jump.hop(hop).label, plain);
    if (check.code === 'HOSTKEY_CHANGED' || check.code === 'HOSTKEY_REVOKED') this.fatal ??= error;
    return { accept: false, error };
  }

  /** A job-stopping error seen by any connection (changed or revoked host key), if any. */
  get fatalError(): SluiceError | null {
    return this.fatal;
  }

  /** Live connections. */
  get connections(): WorkerConnection[] {
    return this.conns.filter((c) => !c.closed && c.info);
  }

  /** Every (connection, channel) pair of the live connections. */
  lanes(): Lane[] {
    return this.connections.flatMap((conn) =>
      Array.from({ length: conn.channels }, (_, channel) => ({ conn, channel })).filter(
        (l) => !this.growth?.isParked(l),
      ),
    );
  }

  /** Runs one operation on the first live connection. */
  call<K extends keyof WorkerOps>(op: K, arg: WorkerOps[K][0], options?: CallOptions): Promise<WorkerOps[K][1]> {
    const c = this.connections[0];
    if (!c)
      return Promise.reject(this.fatal ?? new SluiceError('CONNECTION_LOST', 'every connection to the server is gone'));
    return c.call(op, arg, options);
  }

  /** A whole folder (worker list); `long`: with owner, group and the server's `ls -l` lines (RemoteStat). */
  list(path: string, long = false): Promise<RemoteEntry[]> {
    return this.call('list', long ? { path, long } : { path });
  }

  /**
   * Lists a folder, each READDIR answer's names to `onNames` as they come, read on only while it keeps up (worker
   * listEach); `signal` cancels the listing at once (ABORTED). @returns the count of names
   */
  listEach(
    path: string,
    onNames: (names: RemoteEntry[]) => Promise<void> | void,
    signal?: AbortSignal,
  ): Promise<number> {
    return this.call('listEach', { path }, { signal, onItems: (batch) => onNames(batch as RemoteEntry[]) });
  }

  /** SSH_FXP_STAT (follows symlinks); null when the path does not exist. The set-up's answer first, once. */
  stat(path: string): Promise<RemoteStat | null> {
    return this.connections[0]?.takePrefetchedStat(path) ?? this.call('stat', { path });
  }

  /** SSH_FXP_REALPATH: canonical absolute form of a remote path ('.' = login folder). */
  realpath(path: string): Promise<string> {
    return this.call('realpath', { path });
  }

  /** SSH_FXP_READLINK: the target a symbolic link names, as stored in the link. */
  readlink(path: string): Promise<string> {
    return this.call('readlink', { path });
  }

  mkdir(path: string): Promise<'created' | 'exists'> {
    return this.call('mkdir', { path });
  }

  rename(from: string, to: string): Promise<void> {
    return this.call('rename', { from, to, mode: 'no-clobber' });
  }

  /**
   * Sets this site's speed limit for every connection of the pool, now and later, running transfers included
   * (their next request; a waiting one within sftp/rateLimit.ts MAX_WAIT_MS).
   * @param bytesPerSecond bytes per second; 0 = unlimited
   * @throws SluiceError USAGE for a negative or non-finite value
   */
  setRateLimit(bytesPerSecond: number): void {
    this.siteLimit.setRate(bytesPerSecond);
  }

  /** This site's speed limit and its counters (bytes granted while limited, waits, changes). */
  rateLimitStats(): RateLimitStats {
    return this.siteLimit.stats();
  }

  async close(): Promise<void> {
    this.closing = true;
    // Connections still handshaking are included: closing ends their workers, so nothing waits for them.
    await Promise.all(this.conns.map((c) => c.close().catch(() => undefined)));
    await this.growing.catch(() => undefined);
  }
}
