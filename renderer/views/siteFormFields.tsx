/**
 * The site form's fields: a labelled input with its error beside it (announced via role="alert"), the text fields,
 * the authentication block (method, key file with Browse…, password, forgetting or storing it in plain text) and the
 * folded "Advanced" block (connections, channels, speed limit, jump host, algorithm lists).
 */
import type { ReactNode } from 'react';
import type { SiteFormField, SiteForm } from '../state/siteForm';
import type { Settings } from '../../app/common/ipc/contract';
import type { AlgorithmFamilyName } from '../../app/common/algorithms';
import { TRANSFER_LIMITS } from '../../app/common/transferLimits';
import { AlgorithmEditor, useAlgorithmCatalog } from './AlgorithmEditor';

/** The attributes a field's input gets from its label and error. */
export type FieldInputProps = { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string };

/** The fields typed as text. */
export type TextField =
  | 'name'
  | 'folder'
  | 'host'
  | 'port'
  | 'user'
  | 'keyPath'
  | 'localDir'
  | 'remoteDir'
  | 'connections'
  | 'channels'
  | 'speedLimit'
  | 'jumpHost';

/** Draws the form's fields over its state. */
export interface FieldKit {
  form: SiteForm;
  errors: Partial<Record<SiteFormField, string>>;
  set: <K extends SiteFormField>(key: K, value: SiteForm[K]) => void;
  field: (key: SiteFormField, label: string, input: (props: FieldInputProps) => ReactNode) => ReactNode;
  text: (key: TextField, label: string, extra?: Record<string, unknown>) => ReactNode;
}

/** The kit for one form: `uid` makes the ids unique, `errors` are shown once the form was submitted. */
export function fieldKit(
  uid: string,
  form: SiteForm,
  errors: Partial<Record<SiteFormField, string>>,
  set: FieldKit['set'],
): FieldKit {
  const field: FieldKit['field'] = (key, label, input) => {
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
  const text: FieldKit['text'] = (key, label, extra = {}) =>
    field(key, label, (p) => (
      <input {...p} {...extra} value={form[key]} onChange={(e) => set(key, e.target.value)} autoComplete="off" />
    ));
  return { form, errors, set, field, text };
}

export interface AuthFieldsProps {
  kit: FieldKit;
  hasPassword: boolean;
  settings: Settings | null;
  /** The secret store is not secure and the user did not allow plain text yet, and a password is to be stored. */
  askInsecure: boolean;
  allowInsecure: boolean;
  onAllowInsecure: (allow: boolean) => void;
  browseError: string | null;
  onBrowse: () => void;
}

/** Authentication: the method, then the key file or the password. */
export function AuthFields(p: AuthFieldsProps) {
  const { form, set, field } = p.kit;
  return (
    <>
      {field('authMethod', 'Authentication', (a) => (
        <select
          {...a}
          value={form.authMethod}
          onChange={(e) => set('authMethod', e.target.value as SiteForm['authMethod'])}
        >
          <option value="agent">SSH agent</option>
          <option value="key">Key file</option>
          <option value="password">Password</option>
        </select>
      ))}
      {form.authMethod === 'key' &&
        field('keyPath', 'Key file', (a) => (
          <div className="key-file">
            <input
              {...a}
              value={form.keyPath}
              onChange={(e) => set('keyPath', e.target.value)}
              autoComplete="off"
              placeholder="/home/me/.ssh/id_ed25519"
            />
            <button type="button" onClick={p.onBrowse}>
              Browse…
            </button>
          </div>
        ))}
      {form.authMethod === 'key' && p.browseError && (
        <p className="full error-text" role="alert">
          {p.browseError}
        </p>
      )}
      {form.authMethod === 'password' &&
        field('password', 'Password', (a) => (
          <input
            {...a}
            type="password"
            value={form.password}
            placeholder={p.hasPassword ? 'stored (leave empty to keep)' : 'ask when connecting if empty'}
            onChange={(e) => set('password', e.target.value)}
            autoComplete="new-password"
          />
        ))}
      {form.authMethod === 'password' && p.hasPassword && (
        <label className="full">
          <input
            type="checkbox"
            checked={form.forgetPassword}
            onChange={(e) => set('forgetPassword', e.target.checked)}
          />{' '}
          Forget the stored password
        </label>
      )}
      {p.askInsecure && (
        <label className="full error-text">
          <input type="checkbox" checked={p.allowInsecure} onChange={(e) => p.onAllowInsecure(e.target.checked)} /> This
          system has no secure password store ({p.settings?.secretStorage.backend}). Store the password in plain text
          anyway
        </label>
      )}
    </>
  );
}

export interface AdvancedFieldsProps {
  kit: FieldKit;
  open: boolean;
  onToggle: (open: boolean) => void;
  /** The algorithm lists open at the start (those the site has its own order for). */
  initiallyOpen: AlgorithmFamilyName[];
}

/** "Advanced": the connection's numbers and jump host, and the algorithm lists. */
export function AdvancedFields(p: AdvancedFieldsProps) {
  const { form, errors, set, text } = p.kit;
  const { catalog, catalogError } = useAlgorithmCatalog();
  const { connections, channels } = TRANSFER_LIMITS;
  return (
    <details className="advanced" open={p.open} onToggle={(e) => p.onToggle(e.currentTarget.open)}>
      <summary>Advanced</summary>
      <fieldset>
        <legend>Connection</legend>
        <div className="form-grid">
          {text('connections', 'Connections', {
            inputMode: 'numeric',
            placeholder: `auto (${connections.min}–${connections.max})`,
          })}
          {text('channels', 'Channels per connection', {
            inputMode: 'numeric',
            placeholder: `auto (${channels.min}–${channels.max})`,
          })}
          {text('speedLimit', 'Speed limit (MiB/s)', { inputMode: 'decimal', placeholder: 'none' })}
          {text('jumpHost', 'Jump host', { placeholder: 'as ~/.ssh/config says (e.g. user@bastion:22)' })}
        </div>
      </fieldset>
      <fieldset>
        <legend>Algorithms</legend>
        <p className="note">
          Most preferred first; the server picks the first one it also accepts. Weak ones are off unless enabled here.
        </p>
        <AlgorithmEditor
          catalog={catalog}
          catalogError={catalogError}
          choices={form}
          errors={errors}
          onChange={(f, choice) => set(f, choice)}
          initiallyOpen={p.initiallyOpen}
        />
      </fieldset>
    </details>
  );
}
