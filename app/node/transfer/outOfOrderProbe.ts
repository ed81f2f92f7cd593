/**
 * Whether a server's uploads may go in segments: a server may apply writes through several handles at once
 * (draft-ietf-secsh-filexfer-02 §6), but some do not keep out-of-order writes, so the first upload that would be
 * segmented probes it once per server record (ssh/worker/probe.ts), and the engine's record of the server
 * (engine/serverTraits.ts, passed to each job as {@link ServerLearnings}) keeps the answer.
 */
import type { ConnectionPool } from '../ssh/connectionPool';
import type { EventSink, ServerLearnings } from './types';

/** A probe on its way, per server record: every file that asks meanwhile waits for the same answer. */
const probing = new WeakMap<ServerLearnings, Promise<boolean>>();

/**
 * Whether the server keeps out-of-order writes, probed in `dir` (a folder the upload writes into) on first call.
 * @param pool the pool whose server is asked
 * @param dir remote folder the probe may create its scratch file in
 * @param server what is known of the server: read first, and the answer is kept there
 * @param events the asking job's event sink (the answer is said as an `info` log line)
 * @returns the answer; false when the probe itself failed (not kept: a later upload asks again)
 */
export function keepsOutOfOrderWrites(
  pool: ConnectionPool,
  dir: string,
  server: ServerLearnings,
  events: EventSink,
): Promise<boolean> {
  if (server.outOfOrderWrites !== undefined) return Promise.resolve(server.outOfOrderWrites);
  let probe = probing.get(server);
  if (!probe) {
    probe = pool
      .call('probeOutOfOrder', { dir })
      .then(
        (ok) => {
          server.outOfOrderWrites = ok;
          events({
            type: 'log',
            level: 'info',
            message: ok
              ? 'server accepts out-of-order writes: uploads are segmented'
              : 'server rejects out-of-order writes: each upload goes through one handle in order',
          });
          return ok;
        },
        () => false,
      )
      .finally(() => probing.delete(server));
    probing.set(server, probe);
  }
  return probe;
}
