/**
 * Create / edit a site: validated fields (errors shown beside each field, announced via role="alert"),
 * authentication method (a key file typed or chosen with Browse…: the system's dialog through `dialog.openFile`; a
 * password kept in the secret store, never in the site), default folders, and folded under "Advanced" (open when the
 * site has such settings or one is wrong) the connections, channels, speed limit, jump hosts and the algorithm lists
 * (AlgorithmEditor.tsx); "Test connection" with the form's settings (SiteTestResult.tsx). The buttons stay in view.
 */
import { useId, useState } from 'react';
import { ALGORITHM_FAMILIES, SITE_ALGORITHM_FIELDS } from '../../app/common/algorithms';
import type { Settings } from '../../app/common/ipc/contract';
import { hasAdvanced, validateSiteForm, ADVANCED_FIELDS, type SiteForm, type SiteFormField } from '../state/siteForm';
import { useBridge } from '../state/react';
import type { SiteInput } from '../../app/common/model/site';
import { TRANSFER_LIMITS } from '../../app/common/transferLimits';
import { AlgorithmEditor, useAlgorithmCatalog } from './AlgorithmEditor';
import { Dialog } from './Dialog';
import { SiteTestResult } from './SiteTestResult';
import { useSiteTest } from './useSiteTest';

export interface SiteFormDialogProps {
  initial: SiteForm;
  folders: string[];
  /** Whether a password is already stored for the edited site. */
  hasPassword: boolean;
  settings: Settings | null;
  /** Saves; resolves to an error message to show, or null on success. */
  onSave: (site: SiteInput, password: string | null | undefined, allowInsecure: boolean) => Promise<string | null>;
  onCancel: () => void;
}

/** The site editor dialog. */
export function SiteFormDialog({ initial, folders, hasPassword, settings, onSave, onCancel }: SiteFormDialogProps) {
  const [form, setForm] = useState<SiteForm>(initial);
  const [submitted, setSubmitted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [allowInsecure, setAllowInsecure] = useState(false);
  const { catalog, catalogError } = useAlgorithmCatalog();
  const test = useSiteTest();
  const testState = test.state;
  /** The lists a site has its own order for start open. */
  const [openAtStart] = useState(() => ALGORITHM_FAMILIES.filter((f) => initial[SITE_ALGORITHM_FIELDS[f]] !== null));
  const uid = useId();
  const bridge = useBridge();
  const result = validateSiteForm(form);
  const errors = submitted && !result.ok ? result.errors : {};
  const [advancedOpen, setAdvancedOpen] = useState(() => hasAdvanced(initial));
  const advancedError = ADVANCED_FIELDS.some((f) => errors[f] !== undefined);
  const [browseError, setBrowseError] = useState<string | null>(null);
  const insecure = settings !== null && !settings.secretStorage.secure && !settings.allowInsecureSecretStorage;
  const wantsPassword = form.authMethod === 'password' && form.password !== '' && !form.forgetPassword;

  const set = <K extends SiteFormField>(key: K, value: SiteForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    // A result is about the settings it was made with.
    test.clearResult();
  };

  /** Browse…: the system's open dialog (main process), starting in the typed key's folder. */
  const browseKey = async () => {
    const typed = form.keyPath.trim();
    const dir = typed.includes('/') ? typed.slice(0, typed.lastIndexOf('/')) || '/' : undefined;
    const r = await bridge.dialogOpenFile(dir ? { purpose: 'keyFile', defaultPath: dir } : { purpose: 'keyFile' });
    if (!r.ok) setBrowseError(r.error.message);
    else {
      setBrowseError(null);
      if (r.value !== null) set('keyPath', r.value);
    }
  };

  const field = (key: SiteFormField, label: string, input: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => React.ReactNode) => {
    const id = `${uid}-${key}`;
    const errId = `${id}-err`;
    const error = errors[key];
    return (
      <>
        <label htmlFor={id}>{label}</label>
        <div>
          {input({ id, 'aria-invalid': !!error, 'aria-describedby': error ? errId : undefined })}
          {error && (
            <div id={errId} className="error-text" role="alert">
              {error}
            </div>
          )}
        </div>
      </>
    );
  };
  const text = (key: 'name' | 'folder' | 'host' | 'port' | 'user' | 'keyPath' | 'localDir' | 'remoteDir' | 'connections' | 'channels' | 'speedLimit' | 'jumpHost', label: string, extra: Record<string, unknown> = {}) =>
    field(key, label, (p) => <input {...p} {...extra} value={form[key]} onChange={(e) => set(key, e.target.value)} autoComplete="off" />);

  /** Connects once with the form as it is (a name is not needed for that), and shows what was found. */
  const testConnection = async () => {
    const checked = validateSiteForm({ ...form, name: form.name.trim() || form.host.trim() || 'test' });
    if (!checked.ok) {
      setSubmitted(true);
      return;
    }
    const password = form.authMethod === 'password' && form.password !== '' ? form.password : undefined;
    await test.start(checked.site, password);
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (!result.ok) return;
    if (insecure && wantsPassword && !allowInsecure) {
      setSaveError('Passwords can only be stored in plain text on this system: tick the box to agree, or leave the password empty.');
      return;
    }
    setSaving(true);
    const error = await onSave(result.site, result.password, allowInsecure);
    setSaving(false);
    setSaveError(error);
  };

  return (
    <Dialog title={form.id ? `Edit site ${initial.name}` : 'New site'} onCancel={onCancel} className="site-form">
      <form onSubmit={submit} aria-label="Site" noValidate>
        <div className="form-grid">
          {text('name', 'Name', { 'data-autofocus': true })}
          {text('folder', 'Folder', { list: `${uid}-folders`, placeholder: 'e.g. Work/Prod' })}
          <datalist id={`${uid}-folders`}>
            {folders.map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
          {text('host', 'Host')}
          {text('port', 'Port', { inputMode: 'numeric' })}
          {text('user', 'User')}
          {field('authMethod', 'Authentication', (p) => (
            <select {...p} value={form.authMethod} onChange={(e) => set('authMethod', e.target.value as SiteForm['authMethod'])}>
              <option value="agent">SSH agent</option>
              <option value="key">Key file</option>
              <option value="password">Password</option>
            </select>
          ))}
          {form.authMethod === 'key' &&
            field('keyPath', 'Key file', (p) => (
              <div className="key-file">
                <input {...p} value={form.keyPath} onChange={(e) => set('keyPath', e.target.value)} autoComplete="off" placeholder="/home/me/.ssh/id_ed25519" />
                <button type="button" onClick={() => void browseKey()}>Browse…</button>
              </div>
            ))}
          {form.authMethod === 'key' && browseError && <p className="full error-text" role="alert">{browseError}</p>}
          {form.authMethod === 'password' &&
            field('password', 'Password', (p) => (
              <input
                {...p}
                type="password"
                value={form.password}
                placeholder={hasPassword ? 'stored (leave empty to keep)' : 'ask when connecting if empty'}
                onChange={(e) => set('password', e.target.value)}
                autoComplete="new-password"
              />
            ))}
          {form.authMethod === 'password' && hasPassword && (
            <label className="full">
              <input type="checkbox" checked={form.forgetPassword} onChange={(e) => set('forgetPassword', e.target.checked)} /> Forget the stored
              password
            </label>
          )}
          {insecure && wantsPassword && (
            <label className="full error-text">
              <input type="checkbox" checked={allowInsecure} onChange={(e) => setAllowInsecure(e.target.checked)} /> This system has no secure
              password store ({settings?.secretStorage.backend}). Store the password in plain text anyway
            </label>
          )}
          {text('localDir', 'Local folder')}
          {text('remoteDir', 'Remote folder')}
        </div>
        <details className="advanced" open={advancedOpen || advancedError} onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}>
          <summary>Advanced</summary>
        <fieldset>
          <legend>Connection</legend>
          <div className="form-grid">
            {text('connections', 'Connections', { inputMode: 'numeric', placeholder: `auto (${TRANSFER_LIMITS.connections.min}–${TRANSFER_LIMITS.connections.max})` })}
            {text('channels', 'Channels per connection', { inputMode: 'numeric', placeholder: `auto (${TRANSFER_LIMITS.channels.min}–${TRANSFER_LIMITS.channels.max})` })}
            {text('speedLimit', 'Speed limit (MiB/s)', { inputMode: 'decimal', placeholder: 'none' })}
            {text('jumpHost', 'Jump host', { placeholder: 'as ~/.ssh/config says (e.g. user@bastion:22)' })}
          </div>
        </fieldset>
        <fieldset>
          <legend>Algorithms</legend>
          <p className="note">Most preferred first; the server picks the first one it also accepts. Weak ones are off unless enabled here.</p>
          <AlgorithmEditor
            catalog={catalog}
            catalogError={catalogError}
            choices={form}
            errors={errors}
            onChange={(f, choice) => set(f, choice)}
            initiallyOpen={openAtStart}
          />
        </fieldset>
        </details>
        {testState && <SiteTestResult state={testState} />}
        {saveError && (
          <p className="error-text" role="alert">
            {saveError}
          </p>
        )}
        <div className="buttons">
          {testState?.kind === 'running' ? (
            <button type="button" className="test-button" onClick={test.cancel}>
              Cancel test
            </button>
          ) : (
            <button type="button" className="test-button" onClick={() => void testConnection()}>
              Test connection
            </button>
          )}
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}
