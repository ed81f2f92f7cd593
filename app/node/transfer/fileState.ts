/**
 * The life of one file in a transfer job, as one explicit state instead of flags:
 *
 * ```
 * planned   -> moving | skipped | failed           (skipped: an earlier run of the job committed it)
 * moving    -> moving | verifying | failed             (moving again: a segmented upload falls back to one handle)
 * verifying -> verifying | moving | committed | skipped | failed
 *              (a connection lost while verifying: the task is retried; a whole file moves again, segments only verify
 *               again; skipped: a no-clobber target appeared before the rename)
 * committed, skipped, failed: final
 * ```
 *
 * Only `committed` means the file is under its final name; a journal (issue "persistent queue") records these states.
 */
export type FilePhase = 'planned' | 'moving' | 'verifying' | 'committed' | 'skipped' | 'failed';

const NEXT: Readonly<Record<FilePhase, readonly FilePhase[]>> = {
  planned: ['moving', 'skipped', 'failed'],
  moving: ['moving', 'verifying', 'failed'],
  verifying: ['verifying', 'moving', 'committed', 'skipped', 'failed'],
  committed: [],
  skipped: [],
  failed: [],
};

/** True once a file will not change state again (committed, skipped or failed). */
export function isFinalPhase(p: FilePhase): boolean {
  return NEXT[p].length === 0;
}

/** True when a file may go from `from` to `to`. */
export function canAdvance(from: FilePhase, to: FilePhase): boolean {
  return NEXT[from].includes(to);
}

/**
 * The next state of a file.
 * @throws Error (not a SluiceError) on an illegal transition: a bug in the transfer layer, never the server's doing
 */
export function advance(from: FilePhase, to: FilePhase): FilePhase {
  if (!canAdvance(from, to)) throw new Error(`internal error: a file cannot go from ${from} to ${to}`);
  return to;
}
