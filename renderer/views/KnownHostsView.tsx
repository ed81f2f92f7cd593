/**
 * The known-hosts manager: every key line of the known_hosts files the engine reads (`knownHosts.list`), with its
 * host field (or "hashed" and the saved sites it matches), file:line, key type, SHA256 fingerprint and first/last
 * seen; lines of the file Sluice writes can be removed after a confirmation (`knownHosts.remove`).
 */
import { useCallback, useEffect, useState } from 'react';
import type { KnownHostEntry } from '../../app/common/ipc/contract';
import { keyTypeLabel } from '../../app/common/model/hostKey';
import { seenText } from '../state/hostKeyModel';
import { useBridge } from '../state/react';
import { ConfirmDialog, Dialog } from './Dialog';

export interface KnownHostsViewProps {
  onClose: () => void;
  /** Reports a failed list or remove (to the log). */
  onError: (message: string) => void;
}

/** What the Host column shows: the patterns, or that the name is hashed (and which saved sites match it). */
export function hostText(e: KnownHostEntry): string {
  const marker = e.marker === 'none' ? '' : `@${e.marker} `;
  if (!e.hashed) return marker + e.hosts;
  return `${marker}hashed${e.sites.length ? ` (${e.sites.join(', ')})` : ''}`;
}

/** The table of key lines; a line of the file Sluice writes has a Remove button. */
function KnownHostsTable({ entries, onRemove }: { entries: KnownHostEntry[]; onRemove: (e: KnownHostEntry) => void }) {
  return (
    <div className="known-hosts-scroll">
      <table aria-label="Known hosts">
        <thead>
          <tr>
            <th>Host</th>
            <th>File:line</th>
            <th>Type</th>
            <th>Fingerprint</th>
            <th>First seen</th>
            <th>Last seen</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={`${e.file}:${e.line}`}>
              <td className="mono">{hostText(e)}</td>
              <td className="mono">{`${e.file}:${e.line}`}</td>
              <td>{keyTypeLabel(e.keyType)}</td>
              <td className="mono">{e.fingerprint}</td>
              <td>{seenText(e.firstSeen)}</td>
              <td>{seenText(e.lastSeen)}</td>
              <td>
                {e.editable && (
                  <button
                    type="button"
                    aria-label={`Remove ${hostText(e)} ${keyTypeLabel(e.keyType)}`}
                    onClick={() => onRemove(e)}
                  >
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Asks before removing `entry`'s line, then removes it and lists again. */
function RemoveDialog(p: {
  entry: KnownHostEntry;
  onDone: () => void;
  onError: (m: string) => void;
  reload: () => Promise<void>;
}) {
  const bridge = useBridge();
  const { entry: e } = p;
  return (
    <ConfirmDialog
      title="Remove host key"
      danger
      message={
        `Remove the ${keyTypeLabel(e.keyType)} key ${e.fingerprint} of ${hostText(e)} (${e.file}:${e.line})? ` +
        'The next connection to that host will ask about its key again.'
      }
      confirmLabel="Remove"
      onCancel={p.onDone}
      onConfirm={async () => {
        p.onDone();
        const r = await bridge.knownHostsRemove({ file: e.file, line: e.line, fingerprint: e.fingerprint });
        if (!r.ok) p.onError(`Removing ${e.file}:${e.line} failed: ${r.error.message}`);
        await p.reload();
      }}
    />
  );
}

/** The manager dialog. */
export function KnownHostsView({ onClose, onError }: KnownHostsViewProps) {
  const bridge = useBridge();
  const [entries, setEntries] = useState<KnownHostEntry[] | null>(null);
  const [writePath, setWritePath] = useState('');
  const [removing, setRemoving] = useState<KnownHostEntry | null>(null);

  const load = useCallback(async () => {
    const r = await bridge.knownHostsList();
    if (!r.ok) {
      onError(`Listing known hosts failed: ${r.error.message}`);
      setEntries([]);
      return;
    }
    setEntries(r.value.entries);
    setWritePath(r.value.writePath);
  }, [bridge, onError]);

  useEffect(() => {
    void load();
  }, [load]);

  if (removing) {
    return <RemoveDialog entry={removing} onDone={() => setRemoving(null)} onError={onError} reload={load} />;
  }

  return (
    <Dialog title="Known hosts" onCancel={onClose} className="known-hosts">
      <p className="note">
        Keys in {writePath || 'known_hosts'} can be removed here; other files are shown read-only. First seen is unknown
        for keys Sluice did not save.
      </p>
      {entries === null ? (
        <p>Loading…</p>
      ) : entries.length === 0 ? (
        <p>No host keys are saved.</p>
      ) : (
        <KnownHostsTable entries={entries} onRemove={setRemoving} />
      )}
      <div className="buttons">
        <button type="button" data-autofocus onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
