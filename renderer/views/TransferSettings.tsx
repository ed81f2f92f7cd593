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
  ask: 'Ask',
  overwrite: 'Overwrite',
  skip: 'Skip',
  newer: 'Overwrite if the source is newer',
  size: 'Overwrite if the size differs',
  rename: 'Keep both (rename the new one)',
};

type Message = { error: boolean; text: string } | null;

/** The form's state: the defaults being edited, the speed limit's text, and the last save's message. */
function useTransferSettingsForm(settings: Settings) {
  const bridge = useBridge();
  const store = useStore();
  const [form, setForm] = useState<TransferDefaults>(settings.transfers);
  const [limit, setLimitText] = useState(limitText(settings.speedLimit));
  const [message, setMessage] = useState<Message>(null);
  const set = <K extends keyof TransferDefaults>(k: K, v: TransferDefaults[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    setMessage(null);
  };
  const setLimit = (text: string) => {
    setLimitText(text);
    setMessage(null);
  };
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
  return { form, set, limit, setLimit, parsedLimit, message, save };
}

type FormState = ReturnType<typeof useTransferSettingsForm>;

/** A pool number (connections or channels): Auto, or 1 to `max`. */
function CountSelect({
  uid,
  field,
  label,
  max,
  f,
}: {
  uid: string;
  field: 'connections' | 'channels';
  label: string;
  max: number;
  f: FormState;
}) {
  return (
    <>
      <label htmlFor={`${uid}-${field}`}>{label}</label>
      <select
        id={`${uid}-${field}`}
        value={f.form[field] ?? ''}
        onChange={(e) => f.set(field, e.target.value === '' ? null : Number(e.target.value))}
      >
        <option value="">Auto (from the round-trip time)</option>
        {Array.from({ length: max }, (_, i) => (
          <option key={i + 1} value={i + 1}>
            {i + 1}
          </option>
        ))}
      </select>
    </>
  );
}

/** What happens when a target exists, and how each file is verified. */
function ConflictAndVerify({ uid, f }: { uid: string; f: FormState }) {
  return (
    <>
      <label htmlFor={`${uid}-conflict`}>When a file exists</label>
      <select
        id={`${uid}-conflict`}
        value={f.form.conflict}
        onChange={(e) => f.set('conflict', e.target.value as ConflictDefault)}
      >
        {(Object.keys(CONFLICT_LABELS) as ConflictDefault[]).map((c) => (
          <option key={c} value={c}>
            {CONFLICT_LABELS[c]}
          </option>
        ))}
      </select>
      <label htmlFor={`${uid}-verify`}>Verify each file</label>
      <select
        id={`${uid}-verify`}
        value={f.form.verify}
        onChange={(e) => f.set('verify', e.target.value as TransferDefaults['verify'])}
      >
        <option value="size">By size</option>
        <option value="sha256">By SHA-256 of both sides</option>
      </select>
    </>
  );
}

/** The speed limit of all transfers together, in MiB/s, with its error. */
function LimitField({ uid, f }: { uid: string; f: FormState }) {
  const { parsedLimit } = f;
  return (
    <>
      <label htmlFor={`${uid}-limit`}>Speed limit (MiB/s)</label>
      <div>
        <input
          id={`${uid}-limit`}
          value={f.limit}
          inputMode="decimal"
          placeholder="none"
          aria-invalid={!parsedLimit.ok}
          aria-describedby={parsedLimit.ok ? undefined : `${uid}-limit-err`}
          onChange={(e) => f.setLimit(e.target.value)}
        />
        {!parsedLimit.ok && (
          <div id={`${uid}-limit-err`} className="error-text" role="alert">
            {parsedLimit.error}
          </div>
        )}
      </div>
    </>
  );
}

/** Whether targets keep their source's modification times and permission bits. */
function KeepBoxes({ f }: { f: FormState }) {
  return (
    <>
      <label className="full">
        <input
          type="checkbox"
          checked={f.form.preserveTimes}
          onChange={(e) => f.set('preserveTimes', e.target.checked)}
        />{' '}
        Keep modification times
      </label>
      <label className="full">
        <input
          type="checkbox"
          checked={f.form.preservePermissions}
          onChange={(e) => f.set('preservePermissions', e.target.checked)}
        />{' '}
        Keep permissions (otherwise the receiving side&apos;s umask applies)
      </label>
    </>
  );
}

/** The Transfers section of the Settings dialog. */
export function TransferSettings({ settings }: { settings: Settings }) {
  const uid = useId();
  const f = useTransferSettingsForm(settings);
  const { message } = f;
  return (
    <form className="transfer-settings" aria-label="Transfer defaults" onSubmit={(e) => void f.save(e)} noValidate>
      <div className="form-grid">
        <CountSelect uid={uid} field="connections" label="Connections per site" max={16} f={f} />
        <CountSelect uid={uid} field="channels" label="Channels per connection" max={8} f={f} />
        <ConflictAndVerify uid={uid} f={f} />
        <LimitField uid={uid} f={f} />
        <KeepBoxes f={f} />
      </div>
      <div className="buttons">
        {message && (
          <span className={message.error ? 'error-text' : 'note'} role="status">
            {message.text}
          </span>
        )}
        <button type="submit" className="primary" disabled={!f.parsedLimit.ok}>
          Save transfer defaults
        </button>
      </div>
    </form>
  );
}
