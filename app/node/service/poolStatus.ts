/**
 * The status bar's pool (contract `PoolStatus`) from the engine's own layout (`Engine.pool`, engine/engine.ts):
 * the connections and channels planPool decided (ssh/poolPlan.ts; an auto-sized pool grows in the background), and
 * which planned connection is up with how many SFTP channels open. Not a guess from the site's settings.
 */
import type { PoolStatus } from '../../common/ipc/contract';
import type { PoolLayout } from '../engine/engine';

/**
 * The pool status of an engine's layout.
 * @param layout `Engine.pool`: planned connections and channels, the live connections (numbered from 1) with their
 * channels
 * @returns every planned connection (and any live one beyond the plan) by number, up or down, in number order
 */
export function poolStatus(layout: PoolLayout): PoolStatus {
  const up = new Map(layout.up.map((u) => [u.connection, u.channels]));
  const numbers = new Set<number>(layout.up.map((u) => u.connection));
  for (let n = 1; n <= layout.connections; n++) numbers.add(n);
  const links = [...numbers]
    .sort((a, b) => a - b)
    .map((connection) => {
      const channels = up.get(connection);
      return { connection, up: channels !== undefined, channels: channels ?? 0 };
    });
  return {
    connections: layout.connections,
    channels: layout.channels,
    links,
    ...(layout.rttMs !== undefined ? { rttMs: Math.round(layout.rttMs * 10) / 10 } : {}),
  };
}

/** True when two pool statuses show the same (so the service sends no new status for an unchanged pool). */
export function samePool(a: PoolStatus | undefined, b: PoolStatus | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (
    a.connections !== b.connections ||
    a.channels !== b.channels ||
    a.rttMs !== b.rttMs ||
    a.links.length !== b.links.length
  )
    return false;
  return a.links.every(
    (l, i) => l.connection === b.links[i].connection && l.up === b.links[i].up && l.channels === b.links[i].channels,
  );
}

/** How many planned connections are up (the status bar's `up/planned`). */
export function linksUp(pool: PoolStatus): number {
  return pool.links.filter((l) => l.up).length;
}
