/**
 * A compact, dismissable banner under the toolbar: one line (cut with an ellipsis), an optional Details
 * button opening the full text in a dialog, and a close button. Errors are `role="alert"`; neutral notices
 * are `role="status"`. Long engine texts (OpenSSH's host-key warnings) belong in Details and the log panel,
 * never in the layout.
 */
import { useState } from 'react';
import { Dialog } from './Dialog';

export interface BannerProps {
  level: 'error' | 'info';
  /** One short line. */
  text: string;
  /** Full text for the Details dialog (shown verbatim, scrollable). */
  details?: string;
  /** Title of the Details dialog. */
  detailsTitle?: string;
  /** Accessible name of the banner, e.g. `Connection error`. */
  label: string;
  onDismiss: () => void;
}

/** One banner. */
export function Banner({ level, text, details, detailsTitle, label, onDismiss }: BannerProps) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <div className={`banner banner-${level}`} role={level === 'error' ? 'alert' : 'status'} aria-label={label}>
        <span className="banner-text" title={text}>
          {text}
        </span>
        {details && (
          <button type="button" onClick={() => setOpen(true)}>
            Details
          </button>
        )}
        <button
          type="button"
          className="banner-close"
          aria-label={`Dismiss: ${label}`}
          title="Dismiss"
          onClick={onDismiss}
        >
          ✕
        </button>
      </div>
      {open && details && (
        <Dialog title={detailsTitle ?? label} onCancel={() => setOpen(false)} className="details-dialog">
          <pre className="details-text" aria-label="Details" tabIndex={0}>
            {details}
          </pre>
          <div className="buttons">
            <button type="button" className="primary" data-autofocus onClick={() => setOpen(false)}>
              Close
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}
