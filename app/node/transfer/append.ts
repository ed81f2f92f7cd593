/**
 * The conflict rule `append` (issue #14): resume a partial copy that Sluice did not make (an earlier `sftp`, `scp`
 * or browser download cut short). The target's bytes and the source's prefix of the same length are hashed
 * (SHA-256) where they lie: a remote side by the server where it can (check-file-name, `sha256sum` over exec,
 * ssh/remoteHash.ts), else read back over SFTP; a local side here. When they match, only the rest of the source is
 * sent, written into the target in place after its last byte (no temporary name: transferFile.ts `inPlace`); when
 * they do not, the file is sent whole, through a temporary name as usual, and the job says why.
 *
 * A crash or a lost connection in the middle of an append leaves the target longer than before but still a prefix
 * of the source: the next `append` hashes that longer prefix and goes on from its end.
 */
import type { HashMethod } from '../ssh/remoteHash';
import type { ConnectionPool } from '../ssh/connectionPool';
import type { FileItem } from './scan';
import type { FileTimes } from './types';

/** What `append` needs from its job: the worker calls that hash, and where to say what it decided. */
export interface HashingSide {
  pool: Pick<ConnectionPool, 'stat' | 'call'>;
  /** An upload: the target is remote and the source local (else the reverse). */
  put: boolean;
  /** The remote side may be hashed over an exec channel (`sha256sum`); else check-file-name or a re-read. */
  allowExec: boolean;
  log: (level: 'info' | 'warn', message: string) => void;
}

/**
 * What `append` does with a file whose target exists: send the bytes after `offset` into the target, skip it (the
 * target already is the whole source), or `rewrite` it whole (the target is longer, or its bytes differ).
 */
export type AppendDecision =
  { kind: 'append'; offset: number } | { kind: 'skip'; reason: string } | { kind: 'rewrite' };

const HOW: Readonly<Record<HashMethod, string>> = {
  'check-file': 'by the server (check-file-name)',
  exec: 'by the server (sha256sum)',
  reread: 'read back over SFTP',
};

/**
 * SHA-256 of the target (all of its `length` bytes) and of the source's first `length` bytes.
 * @returns both hex digests and how the remote one was made
 * @throws SluiceError of the local read, or of the remote hash's SFTP requests
 */
async function hashBoth(
  side: HashingSide,
  item: FileItem,
  length: number,
): Promise<{ target: string; source: string; how: string }> {
  const { pool: session, put, allowExec } = side;
  // The remote side of an upload is the whole target: the server's whole-file hash works there (check-file-name,
  // sha256sum); a download's remote side is a prefix of the source.
  const remote = session.call(
    'hashRemote',
    put ? { path: item.dst, size: length, allowExec } : { path: item.src, size: length, length, allowExec },
  );
  const local = session.call('hashLocal', { path: put ? item.src : item.dst, length });
  const [r, l] = await Promise.all([remote, local]);
  return put
    ? { target: r.sha256, source: l, how: HOW[r.method] }
    : { target: l, source: r.sha256, how: HOW[r.method] };
}

/**
 * Decides `append` for `item`, whose target exists with `existing` size: a longer target is rewritten; an empty
 * one is appended to at once; otherwise both sides are hashed and compared (see the module comment).
 * @returns the decision (a rewrite is explained to the user through `side.log`)
 * @throws SluiceError from the hashes (the file then fails)
 */
export async function appendDecision(side: HashingSide, item: FileItem, existing: FileTimes): Promise<AppendDecision> {
  const n = existing.size;
  if (n > item.size) {
    side.log(
      'warn',
      `${item.dst}: not appending: the target (${n} bytes) is longer than the source (${item.size} bytes); overwriting it`,
    );
    return { kind: 'rewrite' };
  }
  if (n === 0) return { kind: 'append', offset: 0 };
  const h = await hashBoth(side, item, n);
  if (h.target !== h.source) {
    side.log(
      'warn',
      `${item.dst}: not appending: its ${n} bytes differ from the source's first ${n} (SHA-256, remote side hashed ${h.how}); overwriting it from the start`,
    );
    return { kind: 'rewrite' };
  }
  if (n === item.size) return { kind: 'skip', reason: 'the target is complete (same size and SHA-256)' };
  side.log(
    'info',
    `${item.dst}: appending ${item.size - n} bytes after the ${n} already there (SHA-256 matches, remote side hashed ${h.how})`,
  );
  return { kind: 'append', offset: n };
}
