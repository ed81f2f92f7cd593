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
    return (
      <ConfirmDialog
        title="Remove host key"
        danger
        message={`Remove the ${keyTypeLabel(removing.keyType)} key ${removing.fingerprint} of ${hostText(removing)} (${removing.file}:${removing.line})? The next connection to that host will ask about its key again.`}
        confirmLabel="Remove"
        onCancel={() => setRemoving(null)}
        onConfirm={async () => {
          const e = removing;
          setRemoving(null);
          const r = await bridge.knownHostsRemove({ file: e.file, line: e.line, fingerprint: e.fingerprint });
          if (!r.ok) onError(`Removing ${e.file}:${e.line} failed: ${r.error.message}`);
          await load();
        }}
      />
    );
  }

  return (
    <Dialog title="Known hosts" onCancel={onClose} className="known-hosts">
      <p className="note">
        Keys in {writePath || 'known_hosts'} can be removed here; other files are shown read-only. First seen is unknown for keys Sluice did not save.
      </p>
      {entries === null ? (
        <p>Loading…</p>
      ) : entries.length === 0 ? (
        <p>No host keys are saved.</p>
      ) : (
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
                      <button type="button" aria-label={`Remove ${hostText(e)} ${keyTypeLabel(e.keyType)}`} onClick={() => setRemoving(e)}>
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="buttons">
        <button type="button" data-autofocus onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
