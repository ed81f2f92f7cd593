/**
 * "Target exists" dialog: overwrite, overwrite if newer, overwrite if the size differs, rename or skip, optionally
 * for every conflict of the same batch ("if newer" and "if size differs" are decided by the engine per file, and
 * skip the others). Skip has the initial focus: the choice that loses nothing.
 */
import { useId, useState } from 'react';
import type { ConflictChoice, ConflictPrompt } from '../../app/common/ipc/contract';
import { formatBytes, formatDate } from '../format/format';
import { Dialog } from './Dialog';

export interface ConflictDialogProps {
  prompt: ConflictPrompt;
  /**
   * How many more conflict dialogs (of other batches) are waiting after this one; its own batch's are `prompt.waiting`.
   */
  pending: number;
  onAnswer: (choice: ConflictChoice, forAll: boolean) => void;
}

/** The conflict dialog for one prompt. */
export function ConflictDialog({ prompt, pending, onAnswer }: ConflictDialogProps) {
  const [forAll, setForAll] = useState(false);
  const waiting = (prompt.waiting ?? 0) + pending;
  const checkId = useId();
  const describe = (f?: { size: number; mtimeMs: number }) =>
    f ? `${formatBytes(f.size)}, modified ${formatDate(f.mtimeMs)}` : 'unknown';
  return (
    <Dialog title="File already exists" onCancel={() => onAnswer('skip', false)}>
      <p>
        The {prompt.direction === 'upload' ? 'remote' : 'local'} target already exists:
        <br />
        <output className="mono" aria-label="Conflicting target">
          {prompt.target}
        </output>
      </p>
      <dl>
        <dt>Existing</dt>
        <dd>{describe(prompt.existing)}</dd>
        {prompt.incoming && (
          <>
            <dt>Incoming</dt>
            <dd>{describe(prompt.incoming)}</dd>
          </>
        )}
      </dl>
      <label htmlFor={checkId}>
        <input id={checkId} type="checkbox" checked={forAll} onChange={(e) => setForAll(e.target.checked)} /> Apply to
        all conflicts in this transfer
      </label>
      {waiting > 0 && (
        <p className="muted" aria-label="Conflicts waiting">
          {waiting} more like this
        </p>
      )}
      <div className="buttons">
        <button type="button" onClick={() => onAnswer('overwrite', forAll)}>
          Overwrite
        </button>
        <button
          type="button"
          title="Overwrite when the incoming file is newer (to the second), else skip"
          onClick={() => onAnswer('newer', forAll)}
        >
          If newer
        </button>
        <button
          type="button"
          title="Overwrite when the sizes differ, else skip"
          onClick={() => onAnswer('size', forAll)}
        >
          If size differs
        </button>
        <button type="button" onClick={() => onAnswer('rename', forAll)}>
          Rename
        </button>
        <button type="button" className="primary" data-autofocus onClick={() => onAnswer('skip', forAll)}>
          Skip
        </button>
      </div>
    </Dialog>
  );
}
