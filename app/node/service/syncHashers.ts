/**
 * Synchronize…'s "Checksum" (#27): each side's SHA-256 of a file for sync/checksum.ts, the server's by the worker's
 * hashRemote (check-file-name, else `sha256sum` over exec: ssh/remoteHash.ts; a server offering neither would be read
 * back, which checksumPlan refuses and the dialog shows), the local one by hashLocal; as [SRC, DEST]. The CLI's
 * `--checksum` hashes the same way (cli/syncCommand.ts).
 */
import path from 'node:path';
import { PoolEngine, type Engine } from '../engine/engine';
import { SluiceError } from '../errors';
import type { SideHasher } from '../sync/checksum';

/** @throws SluiceError USAGE for an engine without a connection pool (the service's are pools) */
export function hashersOf(
  engine: Engine,
  direction: 'upload' | 'download',
  localRoot: string,
  remoteRoot: string,
): [SideHasher, SideHasher] {
  if (!(engine instanceof PoolEngine)) throw new SluiceError('USAGE', 'comparing by checksum needs a connection pool');
  const pool = engine.connectionPool;
  const remote: SideHasher = async (rel, size) => {
    const h = await pool.call('hashRemote', { path: path.posix.join(remoteRoot, rel), size, allowExec: true });
    return { sha256: h.sha256, reread: h.method === 'reread', why: h.why };
  };
  const local: SideHasher = async (rel) => ({
    sha256: await pool.call('hashLocal', { path: path.join(localRoot, ...rel.split('/')) }),
    reread: false,
  });
  return direction === 'upload' ? [local, remote] : [remote, local];
}
