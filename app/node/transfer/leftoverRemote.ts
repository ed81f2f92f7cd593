/** The remote operations the leftovers clean-up (stores/leftovers.ts) needs, on a session. */
import type { ConnectionPool } from '../ssh/connectionPool';
import type { LeftoverRemote } from '../stores/leftovers';

/** Leftovers' exists / remove / rename (no-clobber) through the site's pool. */
export function leftoverRemote(pool: ConnectionPool): LeftoverRemote {
  return {
    exists: async (p) => (await pool.call('stat', { path: p, follow: false })) !== null,
    remove: (p) => pool.call('remove', { path: p }),
    rename: (from, to) => pool.call('rename', { from, to, mode: 'no-clobber' }),
  };
}
