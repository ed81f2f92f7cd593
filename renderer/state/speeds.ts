/**
 * The one speed source of the window: every rate the UI shows (queue rows and footer, the status bar, the graph's
 * legend and label) is read here, from the same engine numbers: the running jobs' rates (each run's sliding-window
 * rate, given to its first unsettled job: app/common/queue/runTally.ts) and, per connection, the latest progress
 * sample. Pure, so it is unit-tested under node:test.
 */
import type { PoolStatus } from '../../app/common/ipc/contract';
import type { Job } from '../../app/common/model/job';
import type { QueueState } from '../../app/common/queue/reducer';
import type { RateSeries } from './series';

/** A site's current speed: the total (bytes/s) and each connection's (by its number as text, bytes/s). */
export interface SiteSpeed {
  total: number;
  perConnection: Readonly<Record<string, number>>;
}

/** A job's rate as shown: its engine rate while it runs, else 0 (a finished job's last sample is not a speed). */
export function jobSpeed(job: Pick<Job, 'state' | 'rate'>): number {
  return job.state === 'running' ? job.rate : 0;
}

/**
 * The speed of every running job together, or of one site's (bytes/s): the status bar's and the queue footer's number.
 * @param siteId only this site's jobs; every site when undefined
 */
export function queueSpeed(queue: QueueState, siteId?: string): number {
  let rate = 0;
  for (const job of queue.jobs) if (siteId === undefined || job.siteId === siteId) rate += jobSpeed(job);
  return rate;
}

/**
 * A site's speed for the graph's legend: the total is {@link queueSpeed} of the site (the queue's number); each
 * connection's rate is the latest sample's, while the site has a running job and the connection is up (else 0).
 * @param live the pool's connections up now (their numbers as text); every sampled connection when undefined
 */
export function siteSpeed(
  queue: QueueState,
  siteId: string,
  series: RateSeries,
  live?: ReadonlySet<string>,
): SiteSpeed {
  const total = queueSpeed(queue, siteId);
  const latest = series.samples[series.samples.length - 1];
  const running = queue.jobs.some((j) => j.siteId === siteId && j.state === 'running');
  const perConnection: Record<string, number> = {};
  if (latest)
    for (const [id, rate] of Object.entries(latest.perConnection))
      if (!live || live.has(id)) perConnection[id] = running ? rate : 0;
  return { total, perConnection };
}

/** The numbers (as text, as sample ids) of a pool's connections that are up; undefined without a pool. */
export function liveConnections(pool: PoolStatus | undefined): ReadonlySet<string> | undefined {
  return pool ? new Set(pool.links.filter((l) => l.up).map((l) => String(l.connection))) : undefined;
}
