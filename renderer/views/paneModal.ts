/** The pane's dialogs as data: which one is open, and what a move's conflict question answers. */
import type { FsEntry } from '../../app/common/ipc/contract';

/** The answer to "the target exists". */
export type MoveConflictChoice = 'overwrite' | 'skip' | 'cancel';

/** Which dialog a pane shows. */
export type PaneModal =
  | { kind: 'mkdir' }
  | { kind: 'rename'; entry: FsEntry }
  | { kind: 'delete'; entries: FsEntry[] }
  | { kind: 'newFile' }
  | { kind: 'newSymlink' }
  | { kind: 'moveConflict'; from: string; to: string; answer: (c: MoveConflictChoice) => void }
  | null;
