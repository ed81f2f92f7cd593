/**
 * Whether a session's uploads may go in segments: a server may apply writes through several handles at once
 * (draft-ietf-secsh-filexfer-02 §6), but some do not keep out-of-order writes, so the first upload that would be
 * segmented probes it once per session (ssh/worker/probe.ts) and `Session.outOfOrderWrites` keeps the answer.
 */
import type { Session } from '../ssh/session';

/** A probe on its way, per session: every file that asks meanwhile waits for the same answer. */
const probing = new WeakMap<Session, Promise<boolean>>();

/**
 * Whether the server keeps out-of-order writes, probed in `dir` (a folder the upload writes into) on first call.
 * @param session the session whose server is asked
 * @param dir remote folder the probe may create its scratch file in
 * @returns the answer; false when the probe itself failed (not kept: a later upload asks again)
 */
export function keepsOutOfOrderWrites(session: Session, dir: string): Promise<boolean> {
  if (session.outOfOrderWrites !== undefined) return Promise.resolve(session.outOfOrderWrites);
  let probe = probing.get(session);
  if (!probe) {
    probe = session.call('probeOutOfOrder', { dir }).then((ok) => {
      session.outOfOrderWrites = ok;
      session.publish({ type: 'log', level: 'info', message: ok ? 'server accepts out-of-order writes: uploads are segmented' : 'server rejects out-of-order writes: each upload goes through one handle in order' });
      return ok;
    }, () => false).finally(() => probing.delete(session));
    probing.set(session, probe);
  }
  return probe;
}
