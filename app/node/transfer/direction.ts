/**
 * The one place a job's direction is read: a put reads local files and writes remote ones, a get the reverse
 * (endpoints.ts). A remote-to-remote copy or a sync would add a pair here, not a branch in the job.
 */
import type { ConnectionPool } from '../ssh/connectionPool';
import { conflictSideOf, type ConflictSide } from './conflict';
import { Endpoints } from './endpoints';
import { LocalDestination, LocalSource } from './localEndpoint';
import { RemoteDestination, RemoteSource } from './remoteEndpoint';
import type { RunFeedback, TransferRequest } from './types';

/** The source and destination endpoints of a job; `feedback` takes their log lines and the server's answers. */
export function endpointsFor(
  pool: ConnectionPool,
  req: Pick<TransferRequest, 'direction'>,
  feedback: RunFeedback,
): Endpoints {
  return req.direction === 'put'
    ? new Endpoints(new LocalSource(feedback.events), new RemoteDestination(pool, feedback))
    : new Endpoints(new RemoteSource(pool), new LocalDestination());
}

/** The conflict stage's view of a job (conflict.ts): the destination it checks, and both sides `append` hashes. */
export function conflictSideFor(
  pool: ConnectionPool,
  req: Pick<TransferRequest, 'direction' | 'allowExec' | 'force'>,
  log: ConflictSide['log'],
): ConflictSide {
  return conflictSideOf(pool, req.direction === 'put', req, log);
}
