/**
 * The conflict stage: what happens to a file whose target may exist, by the job's {@link ConflictRule} or a policy
 * function's answer for that file — overwrite (like `cp`), skip (`--no-clobber`), overwrite only when newer or when
 * the sizes differ, a free name `NAME (1).ext`, or append after a matching prefix (append.ts).
 */
import fs from 'node:fs';
import { SluiceError } from '../errors';
import type { ConnectionPool } from '../ssh/connectionPool';
import { appendDecision, type HashingSide } from './append';
import { nextFreeName } from './fileNames';
import type { FileItem } from './scan';
import type { ConflictPolicy, ConflictRule, FileTimes, TransferRequest } from './types';

/**
 * How the commit treats the target: `overwrite` replaces it; `no-clobber` refuses to (SSH_FXP_RENAME without
 * overwrite, or a local link), so that a target appearing after the check is not lost.
 */
export type CommitMode = 'overwrite' | 'no-clobber';

/**
 * What the conflict stage decided for a file: write it (through a temporary name, committed with `mode`), append
 * to its target in place after `offset` bytes already there, or skip it (`reason` goes into its file event).
 */
export type Resolution =
  | { kind: 'write'; item: FileItem; mode: CommitMode }
  | { kind: 'append'; item: FileItem; offset: number }
  | { kind: 'skip'; reason: string };

/**
 * What the conflict stage needs from its job (a target to STAT, and for `append` both sides to hash); `force`: a
 * get replaces a read-only local target ({@link TransferRequest.force}).
 */
export type ConflictSide = HashingSide & { force?: boolean };

/** The conflict side of a job: its pool and direction, and what its request says. */
export function conflictSideOf(
  pool: HashingSide['pool'],
  put: boolean,
  req: Pick<TransferRequest, 'allowExec' | 'force'>,
  log: HashingSide['log'],
): ConflictSide {
  return { pool, put, allowExec: req.allowExec !== false, force: req.force === true, log };
}

/**
 * A get's check of the local target it is about to replace or append to: a read-only one (no write bit) is refused
 * unless `force`, as cp and sftp refuse it (the commit's rename would replace it, silently, as 0644); appending
 * through a symlink is refused (it would write wherever the link points; a replacement renames over the link itself).
 * @throws SluiceError LOCAL_IO naming the target
 */
async function refuseLocalTarget(side: ConflictSide, dst: string, append: boolean): Promise<void> {
  const st = await fs.promises.lstat(dst).catch(() => null);
  if (!st) return;
  if (append && st.isSymbolicLink()) {
    throw new SluiceError('LOCAL_IO', `${dst}: not appended to, it is a symlink (nothing is written through one)`);
  }
  if (!side.force && st.isFile() && (st.mode & 0o222) === 0) {
    throw new SluiceError('LOCAL_IO', `${dst}: the target is read-only, not replaced (-f replaces it, as cp -f does)`);
  }
}

/** The size and mtime of a target, or null when it does not exist (remote for a put, local for a get). */
export function targetTimes(pool: Pick<ConnectionPool, 'stat'>, put: boolean, p: string): Promise<FileTimes | null> {
  return (put ? pool.stat(p) : fs.promises.lstat(p).catch(() => null)).then((s) =>
    s ? { size: s.size, mtimeMs: s.mtimeMs } : null,
  );
}

/**
 * The rule `newer`: null when the incoming file is newer than the target in whole seconds (SFTP v3 times are
 * seconds, draft-ietf-secsh-filexfer-02 §5, so a finer difference cannot be kept anyway), else why it is skipped.
 */
export function notNewerReason(incoming: FileTimes, existing: FileTimes): string | null {
  const a = Math.floor(incoming.mtimeMs / 1000);
  const b = Math.floor(existing.mtimeMs / 1000);
  if (a > b) return null;
  return a === b ? 'the target is as new (same modification time, to the second)' : 'the target is newer';
}

/**
 * Decides a file's target under `policy` (default overwrite): STATs the target unless the policy is `overwrite`,
 * asks a policy function only when the target exists, and hashes both sides for `append`.
 * @returns the decision; a file renamed by `rename` carries its new target
 * @throws SluiceError from the target's STAT, the hashes of `append`, or the policy function
 */
export async function resolveConflict(
  side: ConflictSide,
  policy: ConflictPolicy | undefined,
  item: FileItem,
): Promise<Resolution> {
  const r = await decide(side, policy, item);
  const replaces = (r.kind === 'write' && r.mode === 'overwrite') || r.kind === 'append';
  if (!side.put && replaces) await refuseLocalTarget(side, r.item.dst, r.kind === 'append');
  return r;
}

async function decide(side: ConflictSide, policy: ConflictPolicy | undefined, item: FileItem): Promise<Resolution> {
  if ((policy ?? 'overwrite') === 'overwrite') return { kind: 'write', item, mode: 'overwrite' };
  const existing = await targetTimes(side.pool, side.put, item.dst);
  if (!existing) return { kind: 'write', item, mode: 'no-clobber' };
  const incoming = { size: item.size, mtimeMs: item.mtimeMs };
  const rule: ConflictRule = typeof policy === 'function' ? await policy(item.dst, { incoming, existing }) : policy!;
  switch (rule) {
    case 'overwrite':
      return { kind: 'write', item, mode: 'overwrite' };
    case 'skip':
      return { kind: 'skip', reason: 'the target exists' };
    case 'newer': {
      const reason = notNewerReason(incoming, existing);
      return reason ? { kind: 'skip', reason } : { kind: 'write', item, mode: 'overwrite' };
    }
    case 'size':
      return existing.size === item.size
        ? { kind: 'skip', reason: `same size (${item.size} bytes)` }
        : { kind: 'write', item, mode: 'overwrite' };
    case 'append': {
      const d = await appendDecision(side, item, existing);
      if (d.kind === 'rewrite') return { kind: 'write', item, mode: 'overwrite' };
      return d.kind === 'skip' ? d : { kind: 'append', item, offset: d.offset };
    }
    case 'rename': {
      const exists = (p: string) => targetTimes(side.pool, side.put, p).then((s) => s !== null);
      return {
        kind: 'write',
        item: { ...item, dst: await nextFreeName(exists, item.dst, side.put) },
        mode: 'no-clobber',
      };
    }
  }
}
