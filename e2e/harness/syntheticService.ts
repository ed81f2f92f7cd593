/**
 * TEST ONLY: a scripted stand-in for the service that produces load the real engine cannot produce cheaply:
 * 10,000 queued jobs with a few hundred of them progressing at once, and per-connection throughput samples.
 * Used only by the queue performance spec; every other spec drives the real engine.
 */
import type { EventName, EventPayloads, InvokeChannel, SessionStatus } from '../../app/common/ipc/contract';
import { err, ok, type Result } from '../../app/common/ipc/result';
import type { Job } from '../../app/common/model/job';
import type { SiteView } from '../../app/common/model/site';
import {
  applyQueueEvents,
  emptyQueue,
  jobsInOrder,
  type QueueEvent,
  type QueueState,
} from '../../app/common/queue/reducer';
import type { HarnessService } from './server';

type Listener = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

export interface SyntheticService extends HarnessService {
  /** Starts emitting progress every `tickMs` for the running jobs. */
  start(tickMs?: number): void;
  stop(): void;
  /** How many `queue.delta` events were emitted so far. */
  readonly deltasEmitted: number;
}

/** Creates the scripted service with `jobCount` jobs, `running` of them progressing at a time. */
export function createSyntheticService(jobCount = 10_000, running = 200): SyntheticService {
  const now = Date.now();
  const site: SiteView = {
    id: 'synthetic',
    name: 'Synthetic load',
    folder: '',
    host: 'load.invalid',
    port: 22,
    user: 'load',
    authMethod: 'agent',
    connections: 4,
    createdAt: now,
    updatedAt: now,
    hasPassword: false,
  };
  let status: SessionStatus = {
    siteId: site.id,
    siteName: site.name,
    state: 'disconnected',
    connectionsUp: 0,
    connections: 4,
  };
  const jobs: Job[] = Array.from({ length: jobCount }, (_, i) => ({
    id: `job-${i}`,
    // One drop each: 10,000 rows.
    batchId: `batch-${i}`,
    siteId: site.id,
    direction: i % 7 === 0 ? 'download' : 'upload',
    source: `/data/file-${String(i).padStart(5, '0')}.bin`,
    dest: '/upload',
    name: `file-${String(i).padStart(5, '0')}.bin`,
    state: 'queued',
    bytesDone: 0,
    bytesTotal: 1_000_000 + (i % 100) * 10_000,
    filesDone: 0,
    filesTotal: 1,
    rate: 0,
    createdAt: now,
  }));
  let queue: QueueState = applyQueueEvents(emptyQueue, [{ type: 'snapshot', jobs }]);
  const listeners = new Set<Listener>();
  let timer: NodeJS.Timeout | undefined;
  let next = 0;
  let deltasEmitted = 0;
  const emit: Listener = (event, payload) => {
    for (const l of listeners) l(event, payload);
  };
  const apply = (events: QueueEvent[]) => {
    queue = applyQueueEvents(queue, events);
    deltasEmitted++;
    emit('queue.delta', { events });
  };

  const tick = () => {
    const events: QueueEvent[] = [];
    let active = 0;
    for (const id of queue.order) {
      const j = queue.byId[id];
      if (j.state !== 'running') continue;
      active++;
      const bytesDone = Math.min(j.bytesTotal, j.bytesDone + 150_000);
      events.push(
        bytesDone >= j.bytesTotal
          ? { type: 'updated', id, patch: { state: 'done', bytesDone, rate: 0, filesDone: 1, finishedAt: Date.now() } }
          : { type: 'updated', id, patch: { bytesDone, rate: 3_000_000 } },
      );
    }
    while (active < running && next < queue.order.length) {
      events.push({ type: 'updated', id: queue.order[next++], patch: { state: 'running', startedAt: Date.now() } });
      active++;
    }
    if (events.length) apply(events);
    const rate = active * 3_000_000;
    emit('progress', {
      samples: [
        {
          siteId: site.id,
          t: Date.now(),
          rate,
          connections: [1, 2, 3, 4].map((id) => ({ id, rate: (rate / 4) * (0.8 + 0.1 * id) })),
        },
      ],
    });
  };

  const handlers: Partial<Record<InvokeChannel, (req: unknown) => unknown>> = {
    'sites.list': () => ({ folders: [], sites: [site] }),
    'settings.get': () => ({
      theme: 'system',
      allowInsecureSecretStorage: false,
      secretStorage: { backend: 'memory', secure: true },
    }),
    'session.list': () => [status],
    'session.connect': () => {
      status = {
        ...status,
        state: 'connected',
        connectionsUp: 4,
        cipher: 'aes128-gcm@openssh.com',
        kex: 'curve25519-sha256',
        home: '/upload',
      };
      emit('session.status', status);
      return status;
    },
    'queue.snapshot': () => ({ jobs: jobsInOrder(queue) }),
    'local.home': () => '/data',
    'local.list': () => ({ path: '/data', entries: [] }),
    'remote.list': () => ({ path: '/upload', entries: [] }),
  };

  return {
    get deltasEmitted() {
      return deltasEmitted;
    },
    async invoke(channel: string, payload: unknown): Promise<Result<unknown>> {
      const h = handlers[channel as InvokeChannel];
      return h ? ok(h(payload)) : err('UNKNOWN_CHANNEL', `synthetic service does not implement ${channel}`);
    },
    subscribe(listener) {
      listeners.add(listener as Listener);
      return () => listeners.delete(listener as Listener);
    },
    start(tickMs = 50) {
      timer ??= setInterval(tick, tickMs);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
