/**
 * Keep remote up to date… (#27; WinSCP's "Keep remote directory up to date"): the local pane's folder watched by the
 * service and each change uploaded to the remote pane's folder as it settles. The options: delete on the server what
 * is deleted here (a rename is then a rename there), include/exclude globs as in Synchronize…, and whether to first
 * make the remote folder like the local one. Start answers once the folder is watched; its state is then in the status
 * bar (views/KeepUpStatus.tsx) with Stop.
 */
import { useState } from 'react';
import { displayText } from '../../app/common/displayText';
import { useBridge } from '../state/react';
import { Dialog } from './Dialog';
import { DEFAULT_SYNC_OPTIONS, filterRules } from './useSyncPreview';

export interface KeepUpDialogProps {
  siteId: string;
  localPath: string;
  remotePath: string;
  onClose: () => void;
  /** A line for the log once it started. */
  onStarted: (message: string) => void;
}

export function KeepUpDialog(props: KeepUpDialogProps) {
  const bridge = useBridge();
  const [del, setDel] = useState(false);
  const [syncFirst, setSyncFirst] = useState(true);
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = async () => {
    setStarting(true);
    setError(null);
    const r = await bridge.keepUpStart({
      siteId: props.siteId,
      localPath: props.localPath,
      remotePath: props.remotePath,
      delete: del,
      rules: filterRules({ ...DEFAULT_SYNC_OPTIONS, include, exclude }),
      syncFirst,
    });
    setStarting(false);
    if (!r.ok) {
      setError(displayText(r.error.message));
      return;
    }
    props.onStarted(`Keeping ${displayText(r.value.remoteRoot)} up to date with ${displayText(r.value.localRoot)}`);
    props.onClose();
  };
  return (
    <Dialog title="Keep remote up to date" onCancel={props.onClose} className="sync-dialog keepup-dialog">
      <p className="muted">
        Watch {displayText(props.localPath, 200)} and upload each change to {displayText(props.remotePath, 200)} as it
        settles, until stopped in the status bar.
      </p>
      <div className="sync-options">
        <label>
          <input type="checkbox" checked={del} onChange={(e) => setDel(e.target.checked)} /> Delete on the server what
          is deleted here
        </label>
        <label>
          <input type="checkbox" checked={syncFirst} onChange={(e) => setSyncFirst(e.target.checked)} /> First
          synchronize (upload what differs{del ? ', delete what is only on the server' : ''})
        </label>
        <label>
          Include (one glob a line)
          <textarea rows={2} value={include} onChange={(e) => setInclude(e.target.value)} />
        </label>
        <label>
          Exclude (one glob a line)
          <textarea rows={2} value={exclude} onChange={(e) => setExclude(e.target.value)} />
        </label>
      </div>
      {error && (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
      {starting && <p role="status">Starting…</p>}
      <div className="buttons">
        <button type="button" data-autofocus disabled={starting} onClick={() => void start()}>
          Start
        </button>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
