/**
 * The window's top: the toolbar (whom the window talks to, Known hosts, Settings, Disconnect, the theme) and the
 * banners below it (the active session's failure until closed, the engine's notices).
 */
import { useState } from 'react';
import type { SessionStatus, Theme } from '../../app/common/ipc/contract';
import { summarizeError } from '../format/format';
import { useAppState, useBridge, useStore } from '../state/react';
import { Banner } from './Banner';

export interface AppToolbarProps {
  /** The toolbar's line (App's sessionTitle). */
  title: string;
  theme: Theme;
  /** Disconnect applies (the session holds or is getting a connection). */
  canDisconnect: boolean;
  onKnownHosts: () => void;
  onSettings: () => void;
  onDisconnect: () => void;
}

/** The main toolbar. */
export function AppToolbar(p: AppToolbarProps) {
  const store = useStore();
  const bridge = useBridge();
  return (
    <div className="toolbar" role="toolbar" aria-label="Main toolbar">
      <h1>Sluice</h1>
      <span className="muted" aria-label="Session">
        {p.title}
      </span>
      <span className="spacer" />
      <button type="button" onClick={p.onKnownHosts}>
        Known hosts
      </button>
      <button type="button" onClick={p.onSettings}>
        Settings
      </button>
      <button type="button" disabled={!p.canDisconnect} onClick={p.onDisconnect}>
        Disconnect
      </button>
      <label>
        Theme{' '}
        <select
          aria-label="Theme"
          value={p.theme}
          onChange={async (e) => {
            const r = await bridge.settingsSet({ theme: e.target.value as Theme });
            if (r.ok) store.dispatch({ type: 'settings', settings: r.value });
          }}
        >
          <option value="system">System</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
    </div>
  );
}

/** The banners: the active session's failure (a new failure is a new object and shows again) and the notices. */
export function AppNotices({ status }: { status: SessionStatus | undefined }) {
  const store = useStore();
  const notices = useAppState((s) => s.notices);
  /** The failed session status whose banner the user closed. */
  const [dismissedFailure, setDismissedFailure] = useState<SessionStatus | null>(null);
  return (
    <div className="notices">
      {status?.state === 'failed' && status.error && status !== dismissedFailure && (
        <Banner
          level="error"
          label="Connection error"
          text={`${status.siteName}: ${summarizeError(status.error.code, status.error.message)} (${status.error.code})`}
          details={status.error.message}
          detailsTitle={`Connecting to ${status.siteName} failed`}
          onDismiss={() => setDismissedFailure(status)}
        />
      )}
      {notices.map((n) => (
        <Banner
          key={n.id}
          level="info"
          label="Notice"
          text={n.text}
          details={n.details}
          detailsTitle={n.title}
          onDismiss={() => store.dispatch({ type: 'noticeDismissed', id: n.id })}
        />
      ))}
    </div>
  );
}
