/** The remote operations the leftovers clean-up (stores/leftovers.ts) needs, on a session. */
import type { Session } from '../ssh/session';
import type { LeftoverRemote } from '../stores/leftovers';

/** Leftovers' exists / remove / rename (no-clobber) through the session's pool. */
export function leftoverRemote(session: Session): LeftoverRemote {
  return {
    exists: async (p) => (await session.call('stat', { path: p, follow: false })) !== null,
    remove: (p) => session.call('remove', { path: p }),
    rename: (from, to) => session.call('rename', { from, to, mode: 'no-clobber' }),
  };
}
