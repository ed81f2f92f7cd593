/**
 * The app's remote finds (`remote.find`, `remote.findCancel`; the walk: engine/remoteFind.ts): one per caller id, on
 * the site's session, matches sent as `find.hits` events, cancelled at once by its id.
 */
import type { FindHits, FindReport } from '../../common/ipc/find';
import type { InvokeRequests } from '../../common/ipc/contract';
import { remoteFilesOf } from '../engine/engine';
import { findRemote } from '../engine/remoteFind';
import { SluiceError } from '../errors';
import type { SiteSessions } from './sessions';

type FindRequest = InvokeRequests['remote.find'];

/** The finds running, by the caller's id. */
export class RemoteFinds {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly sessions: Pick<SiteSessions, 'engineFor'>,
    private readonly send: (batch: FindHits) => void,
  ) {}

  /** Ends a running find at once; false when none has that id. */
  cancel(findId: string): boolean {
    const run = this.running.get(findId);
    run?.abort();
    return run !== undefined;
  }

  /**
   * Runs a find to its end (all folders listed, the folder bound, or a cancel).
   * @throws SluiceError INVALID_STATE for an id already running; NOT_CONNECTED; the server's message when the root
   *   itself cannot be resolved
   */
  async find(req: FindRequest): Promise<FindReport> {
    if (this.running.has(req.findId)) throw new SluiceError('INVALID_STATE', `Find ${req.findId} is running already`);
    const ac = new AbortController();
    this.running.set(req.findId, ac);
    try {
      const files = remoteFilesOf(await this.sessions.engineFor(req.siteId));
      return await findRemote(files, req, ac.signal, this.send);
    } finally {
      this.running.delete(req.findId);
    }
  }
}
