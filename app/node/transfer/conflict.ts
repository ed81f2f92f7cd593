/**
 * The conflict stage: what happens to a file whose target may exist (overwrite like `cp`, skip like `--no-clobber`,
 * or the answer of a policy function: overwrite, skip, or a free name `NAME (1).ext`).
 */
import fs from 'node:fs';
import type { Session } from '../ssh/session';
import { nextFreeName } from './fileNames';
import type { FileItem } from './scan';
import type { ConflictAnswer, ConflictPolicy, FileTimes } from './types';

/**
 * How the commit treats the target: `overwrite` replaces it; `no-clobber` refuses to (SSH_FXP_RENAME without
 * overwrite, or a local link), so that a target appearing after the check is not lost.
 */
export type CommitMode = 'overwrite' | 'no-clobber';

/** The size and mtime of a target, or null when it does not exist (remote for a put, local for a get). */
export function targetTimes(session: Pick<Session, 'stat'>, put: boolean, p: string): Promise<FileTimes | null> {
  return (put ? session.stat(p) : fs.promises.lstat(p).catch(() => null))
    .then((s) => (s ? { size: s.size, mtimeMs: s.mtimeMs } : null));
}

/**
 * Decides a file's target and commit mode under `policy` (default overwrite).
 * @returns the item (renamed for the answer "rename") and its commit mode, or null when the file is skipped
 * @throws SluiceError from the target's STAT or from the policy function
 */
export async function resolveConflict(
  session: Pick<Session, 'stat'>, put: boolean, policy: ConflictPolicy | undefined, item: FileItem,
): Promise<{ item: FileItem; mode: CommitMode } | null> {
  if ((policy ?? 'overwrite') === 'overwrite') return { item, mode: 'overwrite' };
  const existing = await targetTimes(session, put, item.dst);
  if (!existing) return { item, mode: 'no-clobber' };
  const answer: ConflictAnswer = policy === 'skip' ? 'skip' : await (policy as Exclude<ConflictPolicy, string>)(item.dst, {
    incoming: { size: item.size, mtimeMs: item.mtimeMs }, existing,
  });
  if (answer === 'skip') return null;
  if (answer === 'overwrite') return { item, mode: 'overwrite' };
  const exists = (p: string) => targetTimes(session, put, p).then((s) => s !== null);
  return { item: { ...item, dst: await nextFreeName(exists, item.dst, put) }, mode: 'no-clobber' };
}
