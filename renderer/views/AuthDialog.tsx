/**
 * The login dialog (see state/authModel.ts for its states): a site's password, a keyboard-interactive round (each
 * prompt a field, hidden unless the server's echo flag is set) or an encrypted key's passphrase, with "wrong …, try
 * again" after a refusal and, for passphrases, a Remember box. Cancel (or Escape) answers nothing: the connect fails.
 */
import { useId, useState } from 'react';
import type { AuthPrompt } from '../../app/common/ipc/contract';
import { authView } from '../state/authModel';
import { Dialog } from './Dialog';

export interface AuthDialogProps {
  prompt: AuthPrompt;
  /** The answers (one per field), or null for Cancel; `remember` is the Remember box. */
  onAnswer: (answers: string[] | null, remember: boolean) => void;
}

/** The login dialog for one prompt; keyed by prompt id by its parent, so its fields start empty. */
export function AuthDialog({ prompt, onAnswer }: AuthDialogProps) {
  const view = authView(prompt);
  const [values, setValues] = useState<string[]>(() => view.fields.map(() => ''));
  const [remember, setRemember] = useState(false);
  const baseId = useId();
  const explId = `${baseId}-expl`;
  return (
    <Dialog title={view.title} onCancel={() => onAnswer(null, false)} describedBy={explId} className="auth">
      <form
        data-auth-kind={prompt.kind}
        onSubmit={(e) => {
          e.preventDefault();
          onAnswer(values, remember);
        }}
      >
        {view.retryText && (
          <p className="error-text" role="alert">
            {view.retryText}
          </p>
        )}
        <p id={explId} className="server-text">
          {view.explanation}
        </p>
        <div className="form-grid">
          {view.fields.map((f, i) => (
            <FieldRow
              key={i}
              id={`${baseId}-f${i}`}
              label={f.label}
              type={f.type}
              value={values[i]}
              autoFocus={i === 0}
              onChange={(v) => setValues((old) => old.map((x, k) => (k === i ? v : x)))}
            />
          ))}
        </div>
        {view.remember && (
          <label>
            <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} /> Remember the
            passphrase (in the system's secret store)
          </label>
        )}
        <div className="buttons">
          <button type="button" onClick={() => onAnswer(null, false)}>
            Cancel
          </button>
          <button type="submit" className="primary">
            {view.submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function FieldRow(p: {
  id: string;
  label: string;
  type: 'password' | 'text';
  value: string;
  autoFocus: boolean;
  onChange: (v: string) => void;
}) {
  return (
    <>
      <label htmlFor={p.id}>{p.label}</label>
      <input
        id={p.id}
        type={p.type}
        value={p.value}
        autoComplete="off"
        spellCheck={false}
        data-autofocus={p.autoFocus ? true : undefined}
        onChange={(e) => p.onChange(e.target.value)}
      />
    </>
  );
}
