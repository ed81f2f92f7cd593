/**
 * Carries the adaptive pool's decisions (poolAdapt.ts) out on an auto-sized pool while one transfer at a time feeds
 * it: growing takes back parked lanes first, then opens SFTP channels on the live connections up to the server's
 * session limit (a refused channel open is that limit: remembered for the host, sessionLimits.ts, never an error),
 * then opens connections; shedding parks the newest lanes (their running tasks finish, no new ones start: the
 * channels stay open for a later step). Every decision is one `-v` line.
 */
import type { WorkerConnection } from './connection';
import { ADAPT_TUNE, PoolAdapter, type AdaptReading } from './poolAdapt';
import { rememberSessionLimit, sessionLimitOf } from './sessionLimits';

/** One SFTP channel of one connection (connectionPool.ts Lane). */
export interface GrowthLane {
  conn: WorkerConnection;
  channel: number;
}

/**
 * Channels a connection may grow to before a limit is known: past OpenSSH's default MaxSessions (10), so that a server
 * allowing more is used; the first refusal sets the real figure.
 */
export const MAX_CHANNELS_PER_CONNECTION = 16;

/** Connections an adaptive pool may reach (each its own worker thread and SSH handshake). */
export const MAX_CONNECTIONS = 4;

/** What the driver needs of the pool (connectionPool.ts). */
export interface GrowablePool {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** Lanes the plan gave the pool (connections × channels): CPU never sheds below them. */
  plannedLanes(): number;
  /** Live connections, in the order they were opened. */
  liveConnections(): WorkerConnection[];
  /** Opens one more connection with `channels` SFTP channels; its lanes are announced by the pool. */
  openConnection(channels: number): Promise<WorkerConnection>;
  /** Tells running transfers these lanes are theirs to use (new, or taken back from parking). */
  announce(lanes: GrowthLane[]): void;
  /** Tells running transfers to start no new task on these lanes. */
  park(lanes: GrowthLane[]): void;
  log(message: string): void;
}

export interface GrowthOptions {
  /** Connections the pool may reach (1 where each new one would ask the user again: keyboard-interactive). */
  maxConnections: number;
  /** Keep one session per connection free for an exec (`--verify sha256`). */
  reserveExecChannel: boolean;
}

const keyOf = (l: GrowthLane) => `${l.conn.id}:${l.channel}`;

export class PoolGrowth {
  private adapter: PoolAdapter | undefined;
  private owner: object | undefined;
  private busy = false;
  /** The clock of the latest sample (the adapter's time). */
  private lastT = 0;
  private readonly parked: GrowthLane[] = [];

  constructor(
    private readonly pool: GrowablePool,
    private readonly o: GrowthOptions,
  ) {}

  /** Whether `lane` is parked (the pool's lanes() leaves it out). */
  isParked(lane: GrowthLane): boolean {
    const k = keyOf(lane);
    return this.parked.some((p) => keyOf(p) === k);
  }

  /** Lanes in use: every channel of the live connections, less the parked ones. */
  activeLanes(): number {
    const live = new Set(this.pool.liveConnections());
    const all = this.pool.liveConnections().reduce((a, c) => a + c.channels, 0);
    return all - this.parked.filter((l) => live.has(l.conn)).length;
  }

  /** SFTP channels one connection may hold: the server's known limit, else {@link MAX_CHANNELS_PER_CONNECTION}. */
  channelCap(): number {
    const limit = sessionLimitOf(this.pool.dataDir, this.pool.host, this.pool.port) ?? MAX_CHANNELS_PER_CONNECTION;
    return Math.max(1, limit - (this.o.reserveExecChannel ? 1 : 0));
  }

  /**
   * A progress sample of the transfer `owner`: the first transfer to report owns the adaptation until it
   * {@link release}s it (others running at once are not measured: their bytes are not in the owner's rate).
   */
  observe(owner: object, r: AdaptReading): void {
    if (this.owner !== undefined && this.owner !== owner) return;
    if (this.owner === undefined) {
      this.owner = owner;
      const conns = this.pool.liveConnections();
      const perConnection =
        conns.length < this.o.maxConnections ? Math.min(conns[0]?.channels ?? 1, this.channelCap()) : 0;
      this.adapter = new PoolAdapter(
        this.activeLanes(),
        Math.min(ADAPT_TUNE.maxLanes, this.mostLanes()),
        perConnection,
        this.pool.plannedLanes(),
      );
    }
    this.lastT = r.t;
    if (this.busy) return this.adapter!.record(r);
    const d = this.adapter!.observe(r);
    if (!d) return;
    this.pool.log(`adaptive pool: ${d.why}`);
    if (d.kind === 'keep') return;
    const adapter = this.adapter!;
    this.busy = true;
    void this.moveTo(d.to, d.via === 'connection')
      .then(
        (lanes) => adapter.applied(lanes, this.lastT),
        (e: unknown) => this.pool.log(`adaptive pool: step failed: ${(e as Error).message}`),
      )
      .finally(() => {
        this.busy = false;
      });
  }

  /** The transfer `owner` ended: parked lanes go back to the pool, and the next transfer adapts afresh. */
  release(owner: object): void {
    if (owner !== this.owner) return;
    this.owner = undefined;
    this.adapter = undefined;
    const back = this.parked.splice(0);
    if (back.length) this.pool.announce(back);
  }

  private mostLanes(): number {
    return Math.max(this.o.maxConnections, this.pool.liveConnections().length) * this.channelCap();
  }

  /**
   * Takes the pool to `target` lanes as far as it can (`viaConnection`: by opening connections only).
   * @returns the lanes in use after
   */
  private async moveTo(target: number, viaConnection = false): Promise<number> {
    const active = this.activeLanes();
    if (target < active) {
      const inUse = this.pool
        .liveConnections()
        .flatMap((conn) =>
          Array.from({ length: conn.channels }, (_, channel) => ({ conn, channel })).filter((l) => !this.isParked(l)),
        );
      const drop = inUse.slice(Math.max(1, target));
      this.parked.push(...drop);
      this.pool.park(drop);
      return this.activeLanes();
    }
    let need = target - active;
    if (!viaConnection) {
      const back = this.parked.splice(Math.max(0, this.parked.length - need));
      if (back.length) this.pool.announce(back);
      need -= back.length;
      for (const conn of this.pool.liveConnections()) {
        if (need <= 0) break;
        need -= await this.widen(conn, need);
      }
    }
    // The step's connections open side by side (each a handshake of several round trips), each announced as it is up.
    const room = this.o.maxConnections - this.pool.liveConnections().length;
    const sizes: number[] = [];
    for (let i = 0; i < room && need > 0; i++) {
      sizes.push(Math.min(this.channelCap(), need));
      need -= sizes[i];
    }
    const opened = await Promise.allSettled(sizes.map((n) => this.pool.openConnection(n)));
    const refused = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (refused) {
      this.pool.log(`adaptive pool: no connection added: ${(refused.reason as Error).message}`);
      this.adapter?.limit(this.activeLanes());
    }
    return this.activeLanes();
  }

  /** Opens up to `need` more channels on `conn` within the cap; a refusal is the server's limit. @returns opened */
  private async widen(conn: WorkerConnection, need: number): Promise<number> {
    const ask = Math.min(this.channelCap() - conn.channels, need);
    if (ask <= 0) return 0;
    const before = conn.channels;
    try {
      await conn.addChannels(ask);
    } catch {
      // Every one refused: the limit is the channels open (below).
    }
    const got = conn.channels - before;
    if (got > 0) this.pool.announce(Array.from({ length: got }, (_, i) => ({ conn, channel: before + i })));
    if (got < ask && !conn.closed) {
      const limit = conn.channels;
      rememberSessionLimit(this.pool.dataDir, this.pool.host, this.pool.port, limit);
      this.adapter?.limit(this.mostLanes());
      this.pool.log(
        `adaptive pool: the server refused SFTP channel ${conn.channels + 1} on connection ${conn.id + 1}: its session limit is ${limit} per connection (remembered for ${this.pool.host}:${this.pool.port})`,
      );
    }
    return got;
  }
}
