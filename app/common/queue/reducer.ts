/**
 * Pure queue reducer: the engine applies these events to its own copy of the queue, and the renderer
 * replays the same events (received as `queue.snapshot` / `queue.delta`) to mirror it.
 */
import { canTransition, type Job, type JobState } from '../model/job';

/**
 * Fields an `updated` event may change; identity fields (id, batchId, siteId, direction, source, dest) never change.
 */
export type JobPatch = Partial<Omit<Job, 'id' | 'batchId' | 'siteId' | 'direction' | 'source' | 'dest' | 'createdAt'>>;

export type QueueEvent =
  | { type: 'snapshot'; jobs: Job[] }
  | { type: 'added'; jobs: Job[] }
  | { type: 'updated'; id: string; patch: JobPatch }
  | { type: 'removed'; ids: string[] }
  /** Moves jobs as one block (in the order given) to the top, the bottom, or just before another job. */
  | { type: 'moved'; ids: string[]; to: MoveTarget };

/** Where a `moved` event puts its jobs. */
export type MoveTarget = 'top' | 'bottom' | { before: string };

export interface QueueState {
  /** Job ids in queue order (oldest first). */
  readonly order: readonly string[];
  /** Jobs in queue order (`jobs[i].id === order[i]`). */
  readonly jobs: readonly Job[];
  /** Position of each id in `order` / `jobs`. */
  readonly index: ReadonlyMap<string, number>;
  /**
   * Read-only view `byId[id] -> Job` (a Proxy over `index` and `jobs`, so an update costs one array copy
   * instead of copying a 10,000-key object). Enumerable in queue order; writes are refused.
   */
  readonly byId: Readonly<Record<string, Job>>;
}

function makeState(order: readonly string[], jobs: readonly Job[], index: ReadonlyMap<string, number>): QueueState {
  const byId = new Proxy(Object.create(null) as Record<string, Job>, {
    get: (_t, key) => {
      const i = typeof key === 'string' ? index.get(key) : undefined;
      return i === undefined ? undefined : jobs[i];
    },
    has: (_t, key) => typeof key === 'string' && index.has(key),
    ownKeys: () => [...order],
    getOwnPropertyDescriptor: (_t, key) => {
      const i = typeof key === 'string' ? index.get(key) : undefined;
      return i === undefined ? undefined : { value: jobs[i], enumerable: true, configurable: true, writable: false };
    },
    set: () => false,
    deleteProperty: () => false,
    defineProperty: () => false,
  });
  return { order, jobs, index, byId };
}

function indexOf(order: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  order.forEach((id, i) => index.set(id, i));
  return index;
}

export const emptyQueue: QueueState = makeState([], [], new Map());

/** The job with this id, or undefined. */
export function getJob(state: QueueState, id: string): Job | undefined {
  const i = state.index.get(id);
  return i === undefined ? undefined : state.jobs[i];
}

/** Applies one event; returns the same object when nothing changed (cheap equality for React). */
export function reduceQueue(state: QueueState, event: QueueEvent): QueueState {
  return applyQueueEvents(state, [event]);
}

/**
 * Applies a batch of events copying the state at most once: a batch of progress updates over 10,000 jobs
 * costs one array copy plus O(events); adds and removals also rebuild the id index.
 * Illegal state transitions (see `canTransition`) and updates of unknown ids are ignored.
 */
export function applyQueueEvents(state: QueueState, events: readonly QueueEvent[]): QueueState {
  let jobs: Job[] | undefined;
  let order: string[] | undefined;
  let index: Map<string, number> | undefined;
  const curJobs = (): readonly Job[] => jobs ?? state.jobs;
  const curIndex = (): ReadonlyMap<string, number> => index ?? state.index;
  const structure = (): [string[], Job[], Map<string, number>] => {
    jobs ??= [...state.jobs];
    order ??= [...state.order];
    index ??= new Map(state.index);
    return [order, jobs, index];
  };

  for (const event of events) {
    switch (event.type) {
      case 'snapshot': {
        jobs = [...event.jobs];
        order = jobs.map((j) => j.id);
        index = indexOf(order);
        break;
      }
      case 'added': {
        const seen = new Set<string>();
        const fresh = event.jobs.filter((j) => !curIndex().has(j.id) && !seen.has(j.id) && seen.add(j.id));
        if (fresh.length === 0) break;
        const [o, js, ix] = structure();
        for (const job of fresh) {
          ix.set(job.id, o.length);
          o.push(job.id);
          js.push(job);
        }
        break;
      }
      case 'updated': {
        const i = curIndex().get(event.id);
        if (i === undefined) break;
        const job = curJobs()[i];
        const next = patchJob(job, event.patch);
        if (next === job) break;
        jobs ??= [...state.jobs];
        jobs[i] = next;
        break;
      }
      case 'moved': {
        const next = movedOrder(order ?? state.order, event.ids, event.to);
        if (!next) break;
        const byId = new Map(curJobs().map((j) => [j.id, j]));
        order = next;
        jobs = next.map((id) => byId.get(id)!);
        index = indexOf(order);
        break;
      }
      case 'removed': {
        const gone = new Set(event.ids.filter((id) => curIndex().has(id)));
        if (gone.size === 0) break;
        const js = curJobs().filter((j) => !gone.has(j.id));
        jobs = js;
        order = js.map((j) => j.id);
        index = indexOf(order);
        break;
      }
    }
  }
  if (!jobs && !order && !index) return state;
  return makeState(order ?? state.order, jobs ?? state.jobs, index ?? state.index);
}

/**
 * `order` with `ids` moved as one block (in the given order) to `to`; undefined when that changes nothing, when an
 * id is unknown, or when the job to go before is unknown or one of those moved.
 */
export function movedOrder(order: readonly string[], ids: readonly string[], to: MoveTarget): string[] | undefined {
  const moving = new Set(ids);
  const known = new Set(order);
  if (ids.length === 0 || moving.size !== ids.length || ids.some((id) => !known.has(id))) return undefined;
  if (typeof to === 'object' && moving.has(to.before)) return undefined;
  const rest = order.filter((id) => !moving.has(id));
  const at = to === 'top' ? 0 : to === 'bottom' ? rest.length : rest.indexOf(to.before);
  if (at < 0) return undefined;
  const next = [...rest.slice(0, at), ...ids, ...rest.slice(at)];
  return next.every((id, i) => id === order[i]) ? undefined : next;
}

/** Returns the patched job, or the same object when the patch changes nothing or is an illegal transition. */
function patchJob(job: Job, patch: JobPatch): Job {
  if (patch.state !== undefined && !canTransition(job.state, patch.state)) return job;
  let changed = false;
  for (const key of Object.keys(patch) as Array<keyof JobPatch>) {
    if (patch[key] !== job[key]) {
      changed = true;
      break;
    }
  }
  return changed ? { ...job, ...patch } : job;
}

/** Jobs in queue order (a copy). */
export function jobsInOrder(state: QueueState): Job[] {
  return [...state.jobs];
}

export interface QueueTotals {
  count: Record<JobState, number>;
  bytesDone: number;
  bytesTotal: number;
  /** Sum of running jobs' rates, bytes/s. */
  rate: number;
}

/** Counts per state, bytes and aggregate rate over the whole queue. */
export function queueTotals(state: QueueState): QueueTotals {
  const count: Record<JobState, number> = { queued: 0, running: 0, paused: 0, done: 0, failed: 0, cancelled: 0 };
  let bytesDone = 0;
  let bytesTotal = 0;
  let rate = 0;
  for (const job of state.jobs) {
    count[job.state]++;
    bytesDone += job.bytesDone;
    bytesTotal += job.bytesTotal;
    if (job.state === 'running') rate += job.rate;
  }
  return { count, bytesDone, bytesTotal, rate };
}

/**
 * Merges a run of events into an equivalent shorter one: consecutive `updated` events of the same job
 * fold into one patch (used by main to coalesce engine events to ~10/s). State patches are kept in order,
 * so folding never skips a transition the reducer would have rejected.
 */
export function compactQueueEvents(events: readonly QueueEvent[]): QueueEvent[] {
  const out: QueueEvent[] = [];
  // Index in `out` of the latest pending `updated` per job id, valid until a non-update event intervenes.
  let pending = new Map<string, number>();
  for (const event of events) {
    if (event.type !== 'updated') {
      if (event.type === 'snapshot') out.length = 0;
      out.push(event);
      pending = new Map();
      continue;
    }
    const at = pending.get(event.id);
    const prev = at === undefined ? undefined : out[at];
    // Two state changes cannot be folded: the reducer validates each transition separately.
    if (prev && prev.type === 'updated' && !(prev.patch.state !== undefined && event.patch.state !== undefined)) {
      out[at!] = { type: 'updated', id: event.id, patch: { ...prev.patch, ...event.patch } };
    } else {
      pending.set(event.id, out.length);
      out.push(event);
    }
  }
  return out;
}
