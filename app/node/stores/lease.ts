/**
 * Runner leases (issue #14): the app and `sluice queue run` (or two CLI runs) share `queue.db`, and a job must
 * never be worked by two of them at once. A runner holds a lease on each job it works — a `leases` row naming its
 * process (pid, host, start time) and a random token — and renews it with a heartbeat. A lease is stale, and taken
 * over by the next runner that asks, when its owner is on this host and its pid is gone (`process.kill(pid, 0)`),
 * when the pid is the asker's own but with another start time (a reused pid, e.g. a restarted container), or when
 * its heartbeat is older than `staleAfterMs` (the owner is on another host, hung, or its pid was reused).
 *
 * Per job rather than queue-wide: runners then work different jobs of the one queue side by side (the app its
 * queue, a CLI run its own batch), a crashed runner strands only its own jobs, and claiming the next job and its
 * lease is one transaction (jobClaim.ts). Hosts are compared by machine ID where there is one (a Mac's host name
 * changes with its network: sys/machineId.ts), else by name, and heartbeats by the writers' clocks: runners on several
 * hosts sharing one database file (a network home folder) rely on the heartbeat timeout alone.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { JobState } from '../../common/model/job';
import { SluiceError } from '../errors';
import type { QueueDb } from './queueDb';
import { nodeTimers, type StoreTimers } from './storeTimers';
import { hostLabel, sameHost } from '../sys/machineId';

/** Who holds a lease: a process, named by pid, host name and start time (ms since the epoch). */
export interface LeaseOwner {
  pid: number;
  host: string;
  startedAt: number;
}

/** A lease as others see it. Times are ms since the epoch. */
export interface LeaseHolder {
  jobId: string;
  owner: LeaseOwner;
  acquiredAt: number;
  heartbeatAt: number;
}

/** A held lease: the token proves it on heartbeat and release. */
export interface Lease extends LeaseHolder {
  token: string;
}

/** What {@link LeaseStore.acquire} answers. */
export type AcquireResult = { ok: true; lease: Lease; tookOverFrom?: LeaseHolder } | { ok: false; holder: LeaseHolder };

/** A heartbeat's answer: whether the lease is still ours, and the job's state (a user may have paused it). */
export interface HeartbeatResult {
  held: boolean;
  state?: JobState;
}

/** A heartbeat older than this (ms) makes a lease stale. */
export const DEFAULT_STALE_AFTER_MS = 30_000;
/** How often {@link keepLease} renews a lease (ms). */
export const DEFAULT_HEARTBEAT_MS = 5_000;

/** Options of a {@link LeaseStore}; all injectable for tests. */
export interface LeaseOptions {
  staleAfterMs?: number;
  /** ms since the epoch. */
  now?: () => number;
  /** This host's label (default sys/machineId.ts hostLabel(): `name [machine id]`). */
  hostname?: string;
  /** Whether a pid of this host is running (default {@link pidAlive}). */
  isAlive?: (pid: number) => boolean;
}

interface LeaseRow {
  job_id: string;
  token: string;
  pid: number;
  host: string;
  started_at: number;
  acquired_at: number;
  heartbeat_at: number;
}

function holderOf(r: LeaseRow): LeaseHolder {
  return {
    jobId: r.job_id,
    owner: { pid: r.pid, host: r.host, startedAt: r.started_at },
    acquiredAt: r.acquired_at,
    heartbeatAt: r.heartbeat_at,
  };
}

/** True when a process with this pid exists on this host (EPERM: it exists but belongs to another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The calling process as a lease owner. */
export function currentOwner(): LeaseOwner {
  return { pid: process.pid, host: hostLabel(), startedAt: Math.round(performance.timeOrigin) };
}

/** The leases of `queue.db`. Synchronous; one instance per open {@link QueueDb}. */
export class LeaseStore {
  private readonly staleAfterMs: number;
  private readonly now: () => number;
  private readonly hostname: string;
  private readonly isAlive: (pid: number) => boolean;

  constructor(
    private readonly q: QueueDb,
    opts: LeaseOptions = {},
  ) {
    this.staleAfterMs = opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.now = opts.now ?? Date.now;
    this.hostname = opts.hostname ?? hostLabel();
    this.isAlive = opts.isAlive ?? pidAlive;
  }

  /** The current holder of a job's lease (stale or not), or undefined. */
  holder(jobId: string): LeaseHolder | undefined {
    const row = this.q.stmt('SELECT * FROM leases WHERE job_id = ?').get(jobId) as LeaseRow | undefined;
    return row ? holderOf(row) : undefined;
  }

  /**
   * True when `holder` may be taken over (see the module comment). `asker` is the process asking: a holder with
   * the asker's host and pid but another start time is a dead predecessor.
   */
  isStale(holder: LeaseHolder, asker?: LeaseOwner): boolean {
    const o = holder.owner;
    if (sameHost(o.host, this.hostname) && !this.isAlive(o.pid)) return true;
    if (asker && sameHost(o.host, asker.host) && o.pid === asker.pid && o.startedAt !== asker.startedAt) return true;
    return this.now() - holder.heartbeatAt > this.staleAfterMs;
  }

  /**
   * Takes a job's lease for `owner` (the calling process, see {@link currentOwner}) when it is free or stale.
   * @throws SluiceError NOT_FOUND when the job does not exist
   */
  acquire(jobId: string, owner: LeaseOwner): AcquireResult {
    return this.q.write(() => this.acquireInTransaction(jobId, owner));
  }

  /** {@link acquire} for a caller already inside a write transaction (jobClaim.ts). */
  acquireInTransaction(jobId: string, owner: LeaseOwner): AcquireResult {
    if (!this.q.stmt('SELECT 1 FROM jobs WHERE id = ?').get(jobId))
      throw new SluiceError('NOT_FOUND', `No queued job ${jobId}`);
    const current = this.holder(jobId);
    if (current && !this.isStale(current, owner)) return { ok: false, holder: current };
    const now = this.now();
    const lease: Lease = { jobId, token: randomUUID(), owner, acquiredAt: now, heartbeatAt: now };
    this.q
      .stmt(
        `INSERT INTO leases (job_id, token, pid, host, started_at, acquired_at, heartbeat_at)
      VALUES (@jobId, @token, @pid, @host, @startedAt, @now, @now)
      ON CONFLICT (job_id) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host,
        started_at = excluded.started_at, acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
      )
      .run({ jobId, token: lease.token, ...owner, now });
    return current ? { ok: true, lease, tookOverFrom: current } : { ok: true, lease };
  }

  /** Renews a lease (one statement); `held: false` when it was taken over or released. */
  heartbeat(lease: Lease): HeartbeatResult {
    return this.q.write(() => {
      const now = this.now();
      const held =
        this.q
          .stmt('UPDATE leases SET heartbeat_at = ? WHERE job_id = ? AND token = ?')
          .run(now, lease.jobId, lease.token).changes > 0;
      if (held) lease.heartbeatAt = now;
      const row = this.q.stmt('SELECT state FROM jobs WHERE id = ?').get(lease.jobId) as
        { state: JobState } | undefined;
      return row ? { held, state: row.state } : { held };
    });
  }

  /** Gives a lease up; false when it was no longer held. */
  release(lease: Lease): boolean {
    return this.q.write(
      () => this.q.stmt('DELETE FROM leases WHERE job_id = ? AND token = ?').run(lease.jobId, lease.token).changes > 0,
    );
  }

  /** True while `lease` is the job's current lease. Call inside a transaction to act on it atomically. */
  holds(lease: Lease): boolean {
    return (
      this.q.stmt('SELECT 1 FROM leases WHERE job_id = ? AND token = ?').get(lease.jobId, lease.token) !== undefined
    );
  }
}

/** Options of {@link keepLease}. */
export interface KeepLeaseOptions {
  /** ms between heartbeats (default {@link DEFAULT_HEARTBEAT_MS}; keep well under the stale timeout). */
  intervalMs?: number;
  timers?: StoreTimers;
  /** After each heartbeat (e.g. to stop when the job's state is no longer `running`). */
  onBeat?: (result: HeartbeatResult) => void;
  /** The lease was taken over or released: stop working the job. Heartbeats stop. */
  onLost: () => void;
  /** A heartbeat failed (database busy beyond its timeout, disk full); the next one is tried as usual. */
  onError?: (e: unknown) => void;
}

/**
 * Renews a lease every `intervalMs` until stopped or lost.
 * @returns `stop()`, which ends the heartbeats (it does not release the lease)
 */
export function keepLease(leases: LeaseStore, lease: Lease, opts: KeepLeaseOptions): { stop(): void } {
  const timers = opts.timers ?? nodeTimers;
  const interval = opts.intervalMs ?? DEFAULT_HEARTBEAT_MS;
  let handle: unknown;
  let stopped = false;
  const beat = (): void => {
    handle = undefined;
    if (stopped) return;
    let result: HeartbeatResult | undefined;
    try {
      result = leases.heartbeat(lease);
    } catch (e) {
      opts.onError?.(e);
    }
    if (result && !result.held) {
      stopped = true;
      opts.onLost();
      return;
    }
    if (result) opts.onBeat?.(result);
    if (!stopped) handle = timers.setTimeout(beat, interval);
  };
  handle = timers.setTimeout(beat, interval);
  return {
    stop: () => {
      stopped = true;
      if (handle !== undefined) timers.clearTimeout(handle);
      handle = undefined;
    },
  };
}
