/**
 * Pure queue reducer: the engine applies these events to its own copy of the queue, and the renderer
 * replays the same events (received as `queue.snapshot` / `queue.delta`) to mirror it.
 */
import { canTransition, type Job, type JobState } from '../model/job';

/** Fields an `updated` event may change; identity fields (id, batchId, siteId, direction, source, dest) never change. */
export type JobPatch = Partial<Omit<Job, 'id' | 'batchId' | 'siteId' | 'direction' | 'source' | 'dest' | 'createdAt'>>;

export type QueueEvent =
  | { type: 'snapshot'; jobs: Job[] }
  | { type: 'added'; jobs: Job[] }
  | { type: 'updated'; id: string; patch: JobPatch }
  | { type: 'removed'; ids: string[] };

export interface QueueState {
  /** Job ids in queue order (oldest first). */
  readonly order: readonly string[];
  readonly byId: Readonly<Record<string, Job>>;
}

export const emptyQueue: QueueState = { order: [], byId: {} };

/** Applies one event; returns the same object when nothing changed (cheap equality for React). */
export function reduceQueue(state: QueueState, event: QueueEvent): QueueState {
  return applyQueueEvents(state, [event]);
}

/**
 * Applies a batch of events copying the state at most once, so a batch of many progress updates
 * over 10,000 jobs costs O(jobs + events), not O(jobs × events).
 * Illegal state transitions (see `canTransition`) and updates of unknown ids are ignored.
 */
export function applyQueueEvents(state: QueueState, events: readonly QueueEvent[]): QueueState {
  let order: string[] | undefined;
  let byId: Record<string, Job> | undefined;
  const mutable = (): [string[], Record<string, Job>] => {
    if (!order || !byId) {
      order = [...state.order];
      byId = { ...state.byId };
    }
    return [order, byId];
  };
  const current = (): Readonly<Record<string, Job>> => byId ?? state.byId;

  for (const event of events) {
    switch (event.type) {
      case 'snapshot': {
        order = event.jobs.map((j) => j.id);
        byId = {};
        for (const job of event.jobs) byId[job.id] = job;
        break;
      }
      case 'added': {
        const fresh = event.jobs.filter((j) => !(j.id in current()));
        if (fresh.length === 0) break;
        const [o, b] = mutable();
        for (const job of fresh) {
          o.push(job.id);
          b[job.id] = job;
        }
        break;
      }
      case 'updated': {
        const job = current()[event.id];
        if (!job) break;
        const next = patchJob(job, event.patch);
        if (next === job) break;
        const [, b] = mutable();
        b[event.id] = next;
        break;
      }
      case 'removed': {
        const gone = new Set(event.ids.filter((id) => id in current()));
        if (gone.size === 0) break;
        const [o, b] = mutable();
        for (const id of gone) delete b[id];
        order = o.filter((id) => !gone.has(id));
        break;
      }
    }
  }
  return order && byId ? { order, byId } : state;
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

/** Jobs in queue order. */
export function jobsInOrder(state: QueueState): Job[] {
  return state.order.map((id) => state.byId[id]);
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
  for (const id of state.order) {
    const job = state.byId[id];
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
