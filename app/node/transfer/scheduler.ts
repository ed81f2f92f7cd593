/**
 * Leases lanes (connection × SFTP channel) to tasks by work stealing: every lane runs up to
 * `perLane` tasks at once and takes the next queued task as soon as one finishes, so fast lanes do more.
 * A task that fails because its connection died goes back to the queue (bounded retries); when every
 * connection is gone, queued tasks fail at once.
 */
import { SluiceError } from '../errors';
import type { Lane } from '../ssh/connectionPool';

export interface Task {
  /** Lower runs first among queued tasks (e.g. finish what is started before starting more). */
  priority?: number;
  /**
   * A big transfer (a segment or a large file) fills a channel's request budget on its own: a lane runs
   * at most HEAVY_PER_LANE at a time, so that such work spreads over every lane instead of queueing on the first.
   */
  heavy?: boolean;
  run(lane: Lane): Promise<void>;
  /** Called once when the task fails for good. */
  fail(e: SluiceError): void;
  attempts?: number;
}

/**
 * Heavy tasks a lane runs at once: two, so that the next segment's open and first requests overlap the
 * previous segment's last replies instead of leaving the channel idle for those round trips.
 */
export const HEAVY_PER_LANE = 2;

const CONNECTION_ERRORS = new Set(['CONNECTION_LOST', 'CONNECTION_STALLED', 'TIMEOUT']);

const laneKey = (l: Lane) => `${l.conn.id}:${l.channel}`;

export class Scheduler {
  private readonly queue: Task[] = [];
  private readonly idle: Array<() => void> = [];
  /** Producers waiting for the queue to shrink ({@link room}). */
  private readonly roomWaiters: Array<{ limit: number; resolve: () => void }> = [];
  private active = 0;
  private ended = false;
  private deadLanes = 0;
  private readonly deadConns = new Set<Lane['conn']>();
  private stopped: SluiceError | null = null;
  /** Why a connection last failed a task (stalled, reset…), so the final error can say so. */
  private lastConnectionError: SluiceError | null = null;
  private drainedResolve!: () => void;
  /** Resolves when end() was called and every task has finished or failed. */
  readonly drained = new Promise<void>((r) => {
    this.drainedResolve = r;
  });

  /**
   * @param lanes the lanes to run on
   * @param perLane tasks in flight per lane
   * @param maxAttempts tries per task across connection losses
   */
  private readonly lanes: Lane[] = [];
  /** Heavy tasks running per lane. */
  private readonly heavyRunning = new Map<Lane, number>();
  /** Lanes told to start no new task (the adaptive pool shed them), by {@link laneKey}, and their waiting loops. */
  private readonly parked = new Set<string>();
  private readonly parkedLoops: Array<() => void> = [];

  constructor(
    lanes: Lane[],
    private readonly perLane: number,
    private readonly maxAttempts = 3,
  ) {
    if (!lanes.length) throw new SluiceError('CONNECTION_LOST', 'no live connection to run the transfer on');
    this.addLanes(lanes);
  }

  /** Starts work on more lanes (a connection that came up during the job). */
  addLanes(lanes: Lane[]): void {
    if (this.stopped) return;
    // A parked lane's loops are still there, waiting: they take work again.
    const fresh = lanes.filter((l) => !this.parked.delete(laneKey(l)));
    if (fresh.length < lanes.length) this.wakeParked();
    this.lanes.push(...fresh);
    // Idle loops are woken in creation order: spread the first tasks over every connection, then every
    // channel, before any lane gets a second one (a lone big file's segments must not pile onto connection 0).
    const spread = [...fresh].sort((a, b) => a.channel - b.channel);
    for (let i = 0; i < this.perLane; i++) for (const lane of spread) void this.loop(lane);
  }

  /**
   * Starts no new task on these lanes (the adaptive pool shed them; ssh/poolGrowth.ts): their running tasks finish,
   * their loops wait until {@link addLanes} gives them back. At least one lane always stays unparked.
   */
  parkLanes(lanes: Lane[]): void {
    for (const l of lanes) {
      if (this.lanes.filter((x) => !this.parked.has(laneKey(x))).length <= 1) break;
      this.parked.add(laneKey(l));
    }
  }

  private wakeParked(): void {
    for (const wake of this.parkedLoops.splice(0)) wake();
  }

  /** Adds a task. */
  push(task: Task): void {
    if (this.stopped) {
      task.fail(this.stopped);
      return;
    }
    this.insert(task);
    this.idle.shift()?.();
  }

  private insert(task: Task): void {
    const p = task.priority ?? 0;
    let i = this.queue.length;
    while (i > 0 && (this.queue[i - 1].priority ?? 0) > p) i--;
    this.queue.splice(i, 0, task);
  }

  /**
   * Resolves once fewer than `limit` tasks are queued (at once when already so, or when stopped): the folder scan
   * waits here, so a tree of 10,000 files holds a bounded number of queued files, not all of them.
   */
  room(limit: number): Promise<void> {
    if (this.queue.length < limit || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push({ limit, resolve }));
  }

  private wakeProducers(): void {
    for (let i = this.roomWaiters.length - 1; i >= 0; i--) {
      const w = this.roomWaiters[i];
      if (this.queue.length < w.limit || this.stopped) {
        this.roomWaiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  /** No more tasks will be pushed. */
  end(): void {
    this.ended = true;
    this.checkDrained();
    for (const wake of this.idle.splice(0)) wake();
  }

  /** Fails every queued task with `e` and refuses new ones (tasks running now finish or fail on their own). */
  stop(e: SluiceError): void {
    this.stopped ??= e;
    for (const t of this.queue.splice(0)) t.fail(e);
    this.wakeProducers();
    this.checkDrained();
    for (const wake of this.idle.splice(0)) wake();
    this.wakeParked();
  }

  private checkDrained(): void {
    if ((this.ended || this.stopped) && this.active === 0 && this.queue.length === 0) {
      this.drainedResolve();
      for (const wake of this.idle.splice(0)) wake();
      this.wakeParked();
    }
  }

  /** The lane's connection is gone, or one of its calls failed with a connection error. */
  private isDead(lane: Lane): boolean {
    return lane.conn.closed || this.deadConns.has(lane.conn);
  }

  /**
   * Next task for `lane`, or null when the lane is dead or the scheduler is finished. Loops stay while tasks
   * are running even after end(): a running task may still be re-queued by a connection loss.
   */
  private async take(lane: Lane): Promise<Task | null> {
    for (;;) {
      if (this.isDead(lane)) return null;
      if (this.parked.has(laneKey(lane))) {
        if (this.stopped || (this.ended && this.active === 0)) return null;
        // This loop may have been woken for a task it cannot run: pass the wake-up on.
        if (this.queue.length) this.idle.shift()?.();
        await new Promise<void>((r) => this.parkedLoops.push(r));
        continue;
      }
      const busy = (this.heavyRunning.get(lane) ?? 0) >= HEAVY_PER_LANE;
      const i = busy ? this.queue.findIndex((q) => !q.heavy) : 0;
      const t = i >= 0 ? this.queue.splice(i, 1)[0] : undefined;
      if (t) {
        // Counted at once, so loops woken in the same tick do not see an idle, ended scheduler and exit.
        this.active++;
        if (t.heavy) this.heavyRunning.set(lane, (this.heavyRunning.get(lane) ?? 0) + 1);
        if (this.roomWaiters.length) this.wakeProducers();
        return t;
      }
      if (this.stopped || (this.ended && this.active === 0)) return null;
      await new Promise<void>((r) => this.idle.push(r));
    }
  }

  private async loop(lane: Lane): Promise<void> {
    for (;;) {
      const task = await this.take(lane);
      if (!task) {
        if (this.isDead(lane)) {
          // This loop may have been woken for a task it cannot run: pass the wake-up on.
          this.idle.shift()?.();
          this.laneDied();
        }
        this.checkDrained();
        return;
      }
      try {
        await task.run(lane);
      } catch (e) {
        const se = SluiceError.from(e);
        task.attempts = (task.attempts ?? 0) + 1;
        const connectionLost = CONNECTION_ERRORS.has(se.code);
        if (connectionLost) this.lastConnectionError = se;
        // The worker may report the loss before the coordinator has seen the connection close: trust the error.
        if (connectionLost) this.deadConns.add(lane.conn);
        if (connectionLost && task.attempts < this.maxAttempts && !this.stopped) {
          this.insert(task);
          this.idle.shift()?.();
        } else {
          task.fail(se);
        }
      } finally {
        this.active--;
        if (task.heavy) {
          this.heavyRunning.set(lane, (this.heavyRunning.get(lane) ?? 1) - 1);
          // Loops that passed over heavy work while this lane was busy may take it now.
          if (this.queue.some((q) => q.heavy)) for (const wake of this.idle.splice(0)) wake();
        }
        this.checkDrained();
      }
    }
  }

  private laneDied(): void {
    this.deadLanes++;
    // Parked loops look again: those of a dead connection end (and are counted) too.
    this.wakeParked();
    if (this.deadLanes === this.lanes.length * this.perLane) {
      const last = this.lastConnectionError;
      this.stop(
        new SluiceError(
          last?.code ?? 'CONNECTION_LOST',
          `every connection to the server was lost${last ? ` (${last.message})` : ''}; the transfer stopped`,
        ),
      );
    }
  }
}
