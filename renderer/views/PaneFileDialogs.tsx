/**
 * The file operations' dialogs (#26 item 6): New file (a name: `/`, NUL, and on Windows `\` refused before anything is
 * sent; an existing name refused), New symlink (its target, stored as typed, and its name), and the question a move
 * asks when its target exists: Overwrite, Skip or Cancel.
 */
import { useId, useState } from 'react';
import { nameProblem } from '../../app/common/ipc/fileOps';
import { Dialog, PromptDialog } from './Dialog';
import type { MoveConflictChoice } from './paneModal';

/** Why `name` cannot be created here, or null. */
export function newNameProblem(name: string, sep: '/' | '\\', names: readonly string[]): string | null {
  return nameProblem(name, sep) ?? (names.includes(name) ? 'A file or folder with this name exists' : null);
}

/** New file: its name. */
export function NewFileDialog(p: {
  side: string;
  sep: '/' | '\\';
  names: readonly string[];
  onCancel: () => void;
  onSubmit: (name: string) => void;
}) {
  return (
    <PromptDialog
      title={`New ${p.side} file`}
      label="File name"
      submitLabel="Create"
      validate={(v) => newNameProblem(v, p.sep, p.names)}
      onCancel={p.onCancel}
      onSubmit={p.onSubmit}
    />
  );
}

/** New symlink: the path it names (relative to its folder, or absolute) and its own name. */
export function NewSymlinkDialog(p: {
  side: string;
  sep: '/' | '\\';
  names: readonly string[];
  onCancel: () => void;
  onSubmit: (target: string, name: string) => void;
}) {
  const targetId = useId();
  const nameId = useId();
  const errId = useId();
  const [target, setTarget] = useState('');
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const error =
    target.trim() === ''
      ? 'The target is required'
      : target.includes('\0')
        ? 'The target cannot contain a NUL character'
        : newNameProblem(name, p.sep, p.names);
  return (
    <Dialog title={`New ${p.side} symlink`} onCancel={p.onCancel}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setTouched(true);
          if (!error) p.onSubmit(target, name);
        }}
      >
        <div className="form-grid">
          <label htmlFor={targetId}>Target</label>
          <input
            id={targetId}
            value={target}
            data-autofocus
            autoComplete="off"
            onChange={(e) => {
              setTarget(e.target.value);
              if (name === '' || name === baseOf(target)) setName(baseOf(e.target.value));
            }}
          />
          <label htmlFor={nameId}>Link name</label>
          <input
            id={nameId}
            value={name}
            autoComplete="off"
            aria-invalid={touched && !!error}
            aria-describedby={touched && error ? errId : undefined}
            onChange={(e) => {
              setName(e.target.value);
              setTouched(true);
            }}
          />
          {touched && error && (
            <span id={errId} className="error-text full" role="alert">
              {error}
            </span>
          )}
        </div>
        <div className="buttons">
          <button type="button" onClick={p.onCancel}>
            Cancel
          </button>
          <button type="submit" className="primary">
            Create
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The last name of a typed target (`../docs/a.txt` → `a.txt`). */
function baseOf(target: string): string {
  return (
    target
      .replace(/[/\\]+$/, '')
      .split(/[/\\]/)
      .pop() ?? ''
  );
}

/** A move's target exists: Overwrite, Skip (this one) or Cancel (the rest). */
export function MoveConflictDialog(p: { from: string; to: string; answer: (c: MoveConflictChoice) => void }) {
  const msgId = useId();
  return (
    <Dialog title="The target exists" onCancel={() => p.answer('cancel')} describedBy={msgId} alert>
      <p id={msgId}>
        Moving <strong>{p.from}</strong>: <strong>{p.to}</strong> exists. Replace it?
      </p>
      <div className="buttons">
        <button type="button" onClick={() => p.answer('cancel')}>
          Cancel
        </button>
        <button type="button" onClick={() => p.answer('skip')} data-autofocus>
          Skip
        </button>
        <button type="button" className="danger" onClick={() => p.answer('overwrite')}>
          Overwrite
        </button>
      </div>
    </Dialog>
  );
}
