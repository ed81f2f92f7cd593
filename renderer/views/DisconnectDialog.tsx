/**
 * Asked before a Disconnect that would stop transfers (#29.3): pause them (they resume when the site is connected
 * again), cancel them (partial files removed), or stay connected (the default: Enter changes nothing).
 */
import { useId } from 'react';
import { plural } from '../format/format';
import { Dialog } from './Dialog';

export interface DisconnectDialogProps {
  siteName: string;
  /** The site's running and queued jobs. */
  jobs: number;
  onAnswer: (answer: 'pause' | 'cancel' | 'stay') => void;
}

/** The question and its three answers. */
export function DisconnectDialog({ siteName, jobs, onAnswer }: DisconnectDialogProps) {
  const msgId = useId();
  return (
    <Dialog title={`Disconnect from ${siteName}?`} onCancel={() => onAnswer('stay')} describedBy={msgId}>
      <p id={msgId}>
        {plural(jobs, 'transfer')} of {siteName} {jobs === 1 ? 'is' : 'are'} running or waiting. Paused transfers resume
        where they stopped when you connect again; cancelled ones remove their partial files.
      </p>
      <div className="buttons">
        <button type="button" onClick={() => onAnswer('stay')} data-autofocus>
          Stay connected
        </button>
        <button type="button" onClick={() => onAnswer('cancel')}>
          Cancel transfers and disconnect
        </button>
        <button type="button" className="primary" onClick={() => onAnswer('pause')}>
          Pause and disconnect
        </button>
      </div>
    </Dialog>
  );
}
