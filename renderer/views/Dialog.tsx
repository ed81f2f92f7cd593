/**
 * Modal dialog shell: role="dialog", aria-modal, labelled by its title, Escape = cancel,
 * focus moved to the element marked `data-autofocus` (or the first control) and kept inside.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

export interface DialogProps {
  title: string;
  /** Called on Escape (and by the caller's Cancel button). */
  onCancel: () => void;
  children: ReactNode;
  /** Extra class, e.g. `changed` for the red host-key dialog. */
  className?: string;
  /** Use role="alertdialog" (for dangerous decisions). */
  alert?: boolean;
  describedBy?: string;
}

/** A centred modal dialog over a dimmed backdrop. */
export function Dialog({ title, onCancel, children, className, alert, describedBy }: DialogProps) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const target =
      el.querySelector<HTMLElement>('[data-autofocus]') ?? el.querySelector<HTMLElement>('input, select, button');
    target?.focus();
  }, []);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onCancel();
      return;
    }
    if (e.key !== 'Tab' || !ref.current) return;
    const focusable = [
      ...ref.current.querySelectorAll<HTMLElement>('input, select, textarea, button:not(:disabled), [tabindex="0"]'),
    ];
    if (focusable.length === 0) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="backdrop">
      <div
        ref={ref}
        className={`dialog ${className ?? ''}`}
        role={alert ? 'alertdialog' : 'dialog'}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId}>{title}</h2>
        {children}
      </div>
    </div>
  );
}

/** Props of {@link ConfirmDialog}. */
export interface ConfirmDialogProps {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Yes/no confirmation; Cancel has the focus so Enter never destroys anything by accident. */
export function ConfirmDialog({ title, message, confirmLabel, danger, onConfirm, onCancel }: ConfirmDialogProps) {
  const msgId = useId();
  return (
    <Dialog title={title} onCancel={onCancel} describedBy={msgId} alert={danger}>
      <p id={msgId}>{message}</p>
      <div className="buttons">
        <button type="button" onClick={onCancel} data-autofocus>
          Cancel
        </button>
        <button type="button" className={danger ? 'danger' : 'primary'} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

/** Props of {@link PromptDialog}. */
export interface PromptDialogProps {
  title: string;
  label: string;
  initial?: string;
  submitLabel: string;
  /** Returns an error message, or null when the value is acceptable. */
  validate: (value: string) => string | null;
  onSubmit: (value: string) => void;
  onCancel: () => void;
  type?: 'text' | 'password';
}

/** One validated text field (new folder, rename, password). */
export function PromptDialog({
  title,
  label,
  initial = '',
  submitLabel,
  validate,
  onSubmit,
  onCancel,
  type = 'text',
}: PromptDialogProps) {
  const inputId = useId();
  const errId = useId();
  const ref = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState(initial);
  const [touched, setTouched] = useState(false);
  const error = validate(value);
  useEffect(() => {
    ref.current?.select();
  }, []);
  return (
    <Dialog title={title} onCancel={onCancel}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setTouched(true);
          if (!error) onSubmit(value);
        }}
      >
        <div className="form-grid">
          <label htmlFor={inputId}>{label}</label>
          <input
            id={inputId}
            ref={ref}
            type={type}
            value={value}
            data-autofocus
            autoComplete="off"
            aria-invalid={touched && !!error}
            aria-describedby={touched && error ? errId : undefined}
            onChange={(e) => {
              setValue(e.target.value);
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
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="primary">
            {submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
