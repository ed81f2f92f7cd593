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
import { Dialog } from './Dialog';
import { AdvancedFields, AuthFields, fieldKit } from './siteFormFields';
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

/** Browse…: the system's open dialog (main process), starting in the typed key's folder. */
function useBrowseKey(keyPath: string, setKeyPath: (path: string) => void) {
  const bridge = useBridge();
  const [browseError, setBrowseError] = useState<string | null>(null);
  const browseKey = async () => {
    const typed = keyPath.trim();
    const dir = typed.includes('/') ? typed.slice(0, typed.lastIndexOf('/')) || '/' : undefined;
    const r = await bridge.dialogOpenFile(dir ? { purpose: 'keyFile', defaultPath: dir } : { purpose: 'keyFile' });
    if (!r.ok) setBrowseError(r.error.message);
    else {
      setBrowseError(null);
      if (r.value !== null) setKeyPath(r.value);
    }
  };
  return { browseError, browseKey };
}

/**
 * The form's state, its validation (errors shown once submitted), Save (refused while a password would be stored in
 * plain text without the user's consent) and Test connection.
 */
function useSiteFormState(p: SiteFormDialogProps) {
  const [form, setForm] = useState<SiteForm>(p.initial);
  const [submitted, setSubmitted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [allowInsecure, setAllowInsecure] = useState(false);
  const test = useSiteTest();
  const result = validateSiteForm(form);
  const errors = submitted && !result.ok ? result.errors : {};
  const insecure = p.settings !== null && !p.settings.secretStorage.secure && !p.settings.allowInsecureSecretStorage;
  const wantsPassword = form.authMethod === 'password' && form.password !== '' && !form.forgetPassword;

  const set = <K extends SiteFormField>(key: K, value: SiteForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    // A result is about the settings it was made with.
    test.clearResult();
  };

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
      setSaveError(
        'Passwords can only be stored in plain text on this system: tick the box to agree, or leave the ' +
          'password empty.',
      );
      return;
    }
    setSaving(true);
    const error = await p.onSave(result.site, result.password, allowInsecure);
    setSaving(false);
    setSaveError(error);
  };
  return {
    form,
    set,
    errors,
    saving,
    saveError,
    allowInsecure,
    setAllowInsecure,
    askInsecure: insecure && wantsPassword,
    test,
    testConnection,
    submit,
  };
}

/** Test connection (Cancel test while it runs), Cancel, Save. */
function FormButtons(p: {
  running: boolean;
  onTest: () => void;
  onCancelTest: () => void;
  onCancel: () => void;
  saving: boolean;
}) {
  return (
    <div className="buttons">
      {p.running ? (
        <button type="button" className="test-button" onClick={p.onCancelTest}>
          Cancel test
        </button>
      ) : (
        <button type="button" className="test-button" onClick={p.onTest}>
          Test connection
        </button>
      )}
      <button type="button" onClick={p.onCancel}>
        Cancel
      </button>
      <button type="submit" className="primary" disabled={p.saving}>
        Save
      </button>
    </div>
  );
}

/** The site editor dialog. */
export function SiteFormDialog(props: SiteFormDialogProps) {
  const { initial, folders, onCancel } = props;
  const s = useSiteFormState(props);
  const { form, errors, test } = s;
  const testState = test.state;
  /** The lists a site has its own order for start open. */
  const [openAtStart] = useState(() => ALGORITHM_FAMILIES.filter((f) => initial[SITE_ALGORITHM_FIELDS[f]] !== null));
  const uid = useId();
  const [advancedOpen, setAdvancedOpen] = useState(() => hasAdvanced(initial));
  const advancedError = ADVANCED_FIELDS.some((f) => errors[f] !== undefined);
  const { browseError, browseKey } = useBrowseKey(form.keyPath, (path) => s.set('keyPath', path));
  const kit = fieldKit(uid, form, errors, s.set);
  const { text } = kit;

  return (
    <Dialog title={form.id ? `Edit site ${initial.name}` : 'New site'} onCancel={onCancel} className="site-form">
      <form onSubmit={s.submit} aria-label="Site" noValidate>
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
          <AuthFields
            kit={kit}
            hasPassword={props.hasPassword}
            settings={props.settings}
            askInsecure={s.askInsecure}
            allowInsecure={s.allowInsecure}
            onAllowInsecure={s.setAllowInsecure}
            browseError={browseError}
            onBrowse={() => void browseKey()}
          />
          {text('localDir', 'Local folder')}
          {text('remoteDir', 'Remote folder')}
        </div>
        <AdvancedFields
          kit={kit}
          open={advancedOpen || advancedError}
          onToggle={setAdvancedOpen}
          initiallyOpen={openAtStart}
        />
        {testState && <SiteTestResult state={testState} />}
        {s.saveError && (
          <p className="error-text" role="alert">
            {s.saveError}
          </p>
        )}
        <FormButtons
          running={testState?.kind === 'running'}
          onTest={() => void s.testConnection()}
          onCancelTest={test.cancel}
          onCancel={onCancel}
          saving={s.saving}
        />
      </form>
    </Dialog>
  );
}
