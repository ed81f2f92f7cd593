/**
 * Settings: Transfers (TransferSettings.tsx, issue #23 item 22), Editing (EditorSetting.tsx: the editor command), then
 * Ciphers (issue #15): this machine's cipher measurement (`algorithms.measurement`) as a table, fastest per core first,
 * the cipher and MAC orders new connections offer by default and where they come from, and "Measure"
 * (`algorithms.measure`, a few seconds), after which the defaults follow the new figures.
 */
import { useCallback, useEffect, useState } from 'react';
import { combinationName, formatMBps, type AlgorithmsMeasurementView } from '../../app/common/model/cipherSpeed';
import { useAppState, useBridge } from '../state/react';
import { TransferSettings } from './TransferSettings';
import { EditorSetting } from './EditorSetting';
import { formatDate } from '../format/format';
import { Dialog } from './Dialog';

export interface SettingsDialogProps {
  onClose: () => void;
  /** Reports a failed read or measurement (to the log). */
  onError: (message: string) => void;
}

/** Where the default order comes from, in words. */
export function orderSourceText(v: AlgorithmsMeasurementView): string {
  if (v.defaults.source === 'measurement' && v.measurement) {
    return `from the measurement of ${formatDate(v.measurement.measuredAt)}, fastest per core first`;
  }
  const aes =
    v.facts.aes === null
      ? 'unknown AES support (treated as present)'
      : v.facts.aes
        ? 'this CPU has AES instructions'
        : 'this CPU has no AES instructions';
  return `no measurement yet: the AES rule (${aes}), ${v.facts.aes === false ? 'chacha20-poly1305' : 'aes128-gcm'} first`;
}

/** The measurement table, fastest per core first; the first cipher of the default order is marked. */
function SpeedTable({ view }: { view: AlgorithmsMeasurementView }) {
  const m = view.measurement;
  if (!m) return <p>No measurement on this machine yet. Measure to time every cipher here.</p>;
  const rows = [...m.rows].sort((a, b) => b.perCoreMBps - a.perCoreMBps);
  return (
    <div className="known-hosts-scroll">
      <table aria-label="Cipher speed">
        <thead>
          <tr>
            <th>Cipher (+ MAC)</th>
            <th className="num">MB/s per core</th>
            <th className="num">Encrypt</th>
            <th className="num">Decrypt</th>
            <th className="num">Wall MB/s</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={combinationName(r)}
              className={
                r.cipher === view.defaults.cipher[0] && (r.mac === null || r.mac === view.defaults.hmac[0])
                  ? 'first'
                  : undefined
              }
            >
              <td className="mono">{combinationName(r)}</td>
              <td className="num">{formatMBps(r.perCoreMBps)}</td>
              <td className="num">{formatMBps(r.encryptMBps)}</td>
              <td className="num">{formatMBps(r.decryptMBps)}</td>
              <td className="num">{formatMBps(r.wallMBps)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The settings dialog's cipher section. */
export function SettingsDialog({ onClose, onError }: SettingsDialogProps) {
  const bridge = useBridge();
  const settings = useAppState((s) => s.settings);
  const [view, setView] = useState<AlgorithmsMeasurementView | null>(null);
  const [measuring, setMeasuring] = useState(false);

  const load = useCallback(async () => {
    const r = await bridge.algorithmsMeasurement();
    if (r.ok) setView(r.value);
    else onError(`Reading the cipher measurement failed: ${r.error.message}`);
  }, [bridge, onError]);
  useEffect(() => {
    void load();
  }, [load]);

  const measure = async () => {
    setMeasuring(true);
    const r = await bridge.algorithmsMeasure({});
    setMeasuring(false);
    if (r.ok) setView(r.value);
    else onError(`Measuring cipher speed failed: ${r.error.code}: ${r.error.message}`);
  };

  const f = view?.facts;
  return (
    <Dialog title="Settings" onCancel={onClose} className="known-hosts settings">
      <h3>Transfers</h3>
      {settings ? <TransferSettings settings={settings} /> : <p>Loading…</p>}
      <h3>Editing</h3>
      {settings && <EditorSetting settings={settings} />}
      <h3>Ciphers, measured on this machine</h3>
      <p className="note">
        Each cipher (and each CTR cipher with each MAC) moves 32 KiB SSH packets through the engine&apos;s own packet
        code, encrypting and decrypting on one core. MB/s per core = bytes / CPU seconds; MB = 10⁶ bytes. The command
        line does the same: <span className="mono">sluice bench-ciphers</span>.
      </p>
      {view === null ? <p>Loading…</p> : <SpeedTable view={view} />}
      {f && (
        <p className="note" aria-label="Machine">
          {f.cpuModel}, {f.cores} cores, AES instructions {f.aes === null ? 'unknown' : f.aes ? 'yes' : 'no'}; Node{' '}
          {f.node}, OpenSSL {f.openssl}, ssh2 {f.ssh2}
        </p>
      )}
      {view?.note && (
        <p className="note" role="status">
          {view.note}
        </p>
      )}
      {view && (
        <dl aria-label="Default order">
          <dt>Default ciphers</dt>
          <dd className="mono">{view.defaults.cipher.join(', ')}</dd>
          <dt>Default MACs</dt>
          <dd className="mono">{view.defaults.hmac.join(', ')}</dd>
          <dt>Chosen</dt>
          <dd>{orderSourceText(view)}</dd>
        </dl>
      )}
      <div className="buttons">
        <button type="button" className="primary" disabled={measuring || view === null} onClick={() => void measure()}>
          {measuring ? 'Measuring… (about 5 s)' : 'Measure'}
        </button>
        <button type="button" data-autofocus onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
