/**
 * Settings → Transfers (issue #23 item 22): the defaults every transfer the app starts uses (connections and channels
 * for a site without its own, what happens when a target exists, verification, times and permission bits kept) and the
 * speed limit of all transfers together (the same setting as the status bar's). Saved with `settings.set`; a new
 * connection takes the pool numbers, the next transfer the rest.
 */
import { useId, useState } from 'react';
import type { Settings } from '../../app/common/ipc/contract';
import type { ConflictDefault, TransferDefaults } from '../../app/common/model/transferDefaults';
import { limitText, parseLimitMiB } from '../state/transferForm';
import { useBridge, useStore } from '../state/react';

const CONFLICT_LABELS: Record<ConflictDefault, string> = {
  ask: 'Ask', overwrite: 'Overwrite', skip: 'Skip', newer: 'Overwrite if the source is newer', size: 'Overwrite if the size differs',
  rename: 'Keep both (rename the new one)',
};

/** The Transfers section of the Settings dialog. */
export function TransferSettings({ settings }: { settings: Settings }) {
  const bridge = useBridge();
  const store = useStore();
  const uid = useId();
  const [form, setForm] = useState<TransferDefaults>(settings.transfers);
  const [limit, setLimit] = useState(limitText(settings.speedLimit));
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const set = <K extends keyof TransferDefaults>(k: K, v: TransferDefaults[K]) => { setForm((f) => ({ ...f, [k]: v })); setMessage(null); };
  const parsedLimit = parseLimitMiB(limit);

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!parsedLimit.ok) return;
    const r = await bridge.settingsSet({ transfers: form, speedLimit: parsedLimit.bytesPerSecond });
    if (!r.ok) {
      setMessage({ error: true, text: `Saving failed: ${r.error.message}` });
      return;
    }
    store.dispatch({ type: 'settings', settings: r.value });
    setMessage({ error: false, text: 'Saved: new connections and the next transfers use them.' });
  };
  const count = (key: 'connections' | 'channels', label: string, max: number) => (
    <>
      <label htmlFor={`${uid}-${key}`}>{label}</label>
      <select id={`${uid}-${key}`} value={form[key] ?? ''} onChange={(e) => set(key, e.target.value === '' ? null : Number(e.target.value))}>
        <option value="">Auto (from the round-trip time)</option>
        {Array.from({ length: max }, (_, i) => <option key={i + 1} value={i + 1}>{i + 1}</option>)}
      </select>
    </>
  );

  return (
    <form className="transfer-settings" aria-label="Transfer defaults" onSubmit={(e) => void save(e)} noValidate>
      <div className="form-grid">
        {count('connections', 'Connections per site', 16)}
        {count('channels', 'Channels per connection', 8)}
        <label htmlFor={`${uid}-conflict`}>When a file exists</label>
        <select id={`${uid}-conflict`} value={form.conflict} onChange={(e) => set('conflict', e.target.value as ConflictDefault)}>
          {(Object.keys(CONFLICT_LABELS) as ConflictDefault[]).map((c) => <option key={c} value={c}>{CONFLICT_LABELS[c]}</option>)}
        </select>
        <label htmlFor={`${uid}-verify`}>Verify each file</label>
        <select id={`${uid}-verify`} value={form.verify} onChange={(e) => set('verify', e.target.value as TransferDefaults['verify'])}>
          <option value="size">By size</option>
          <option value="sha256">By SHA-256 of both sides</option>
        </select>
        <label htmlFor={`${uid}-limit`}>Speed limit (MiB/s)</label>
        <div>
          <input id={`${uid}-limit`} value={limit} inputMode="decimal" placeholder="none" aria-invalid={!parsedLimit.ok}
            aria-describedby={parsedLimit.ok ? undefined : `${uid}-limit-err`} onChange={(e) => { setLimit(e.target.value); setMessage(null); }} />
          {!parsedLimit.ok && <div id={`${uid}-limit-err`} className="error-text" role="alert">{parsedLimit.error}</div>}
        </div>
        <label className="full">
          <input type="checkbox" checked={form.preserveTimes} onChange={(e) => set('preserveTimes', e.target.checked)} /> Keep modification times
        </label>
        <label className="full">
          <input type="checkbox" checked={form.preservePermissions} onChange={(e) => set('preservePermissions', e.target.checked)} /> Keep permissions
          (otherwise the receiving side&apos;s umask applies)
        </label>
      </div>
      <div className="buttons">
        {message && <span className={message.error ? 'error-text' : 'note'} role="status">{message.text}</span>}
        <button type="submit" className="primary" disabled={!parsedLimit.ok}>Save transfer defaults</button>
      </div>
    </form>
  );
}
