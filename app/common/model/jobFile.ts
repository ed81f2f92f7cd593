/**
 * One file of a queue job (a folder job has many, a file job one) and its lifecycle in the persistent queue
 * (issue #14):
 * ```
 * planned   -> moving | skipped | failed
 * moving    -> verifying | failed | planned      (planned: started over from byte 0, its journal cleared)
 * verifying -> committed | failed | moving        (moving: the check failed and the bytes are sent again)
 * failed    -> planned                            (retry)
 * committed, skipped: terminal
 * ```
 */
export type FileState = 'planned' | 'moving' | 'verifying' | 'committed' | 'skipped' | 'failed';

export const FILE_STATES: readonly FileState[] = ['planned', 'moving', 'verifying', 'committed', 'skipped', 'failed'];

const FILE_TRANSITIONS: Readonly<Record<FileState, readonly FileState[]>> = {
  planned: ['moving', 'skipped', 'failed'],
  moving: ['verifying', 'failed', 'planned'],
  verifying: ['committed', 'failed', 'moving'],
  failed: ['planned'],
  committed: [],
  skipped: [],
};

/** True when a file may move from `from` to `to` (the same state counts as legal: a no-op). */
export function canFileTransition(from: FileState, to: FileState): boolean {
  return from === to || FILE_TRANSITIONS[from].includes(to);
}

/** True for a file the job has nothing left to do for (`committed` or `skipped`). */
export function isFileSettled(state: FileState): boolean {
  return state === 'committed' || state === 'skipped';
}
