/**
 * The quick-connect bar (issue #23 item 19): `user@host:port`, an `sftp://` URL or a `~/.ssh/config` alias connects
 * at once without a saved site. The engine reads the text (`sites.quick`: the CLI's URL grammar and ssh_config) and
 * answers an unsaved site that the shell connects as any other; "Save as site" opens the site form filled from it.
 */
import { useId, useState } from 'react';
import type { QuickSite } from '../../app/common/ipc/contract';
import { useBridge } from '../state/react';

export interface QuickConnectProps {
  /** The quick site of the current session, if the session is one. */
  current: QuickSite | undefined;
  /** Connects the resolved site (the shell's connect: status, host-key and login dialogs, panes). */
  onConnect: (site: QuickSite) => void;
  /** "Save as site": the site form filled from the quick site. */
  onSave: (site: QuickSite) => void;
}

/** One row under the toolbar: the target field, Connect and Save as site. */
export function QuickConnectBar({ current, onConnect, onSave }: QuickConnectProps) {
  const bridge = useBridge();
  const uid = useId();
  const [target, setTarget] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (target.trim() === '') {
      setError('Type user@host:port, an sftp:// URL or a ~/.ssh/config alias');
      return;
    }
    setBusy(true);
    const r = await bridge.sitesQuick({ target: target.trim() });
    setBusy(false);
    if (!r.ok) {
      setError(r.error.message);
      return;
    }
    setError(null);
    onConnect(r.value);
  };

  return (
    <form className="quickbar" role="search" aria-label="Quick connect" onSubmit={(e) => void submit(e)} noValidate>
      <label htmlFor={`${uid}-target`}>Quick connect</label>
      <input
        id={`${uid}-target`}
        value={target}
        onChange={(e) => {
          setTarget(e.target.value);
          setError(null);
        }}
        placeholder="user@host:port, sftp://host/path or a ~/.ssh/config alias"
        aria-invalid={error !== null}
        aria-describedby={error ? `${uid}-err` : undefined}
        autoComplete="off"
        spellCheck={false}
      />
      <button type="submit" disabled={busy}>
        Connect
      </button>
      <button
        type="button"
        disabled={!current}
        onClick={() => current && onSave(current)}
        title={current ? `Save ${current.name} as a site` : 'Connect with quick connect first'}
      >
        Save as site
      </button>
      {current?.resolvedHost && (
        <span className="muted quick-resolved">
          {current.host} → {current.resolvedHost}
        </span>
      )}
      {error && (
        <span id={`${uid}-err`} className="error-text" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}
