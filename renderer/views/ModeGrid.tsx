/**
 * The Properties dialog's permissions (renderer/state/modeForm.ts): owner / group / others × read / write / execute
 * checkboxes and the octal field beside them, kept in step; for a folder, FileZilla's "Recurse into subfolders" with
 * "all / files only / folders only".
 */
import { CHMOD_SCOPES, type ChmodScope } from '../../app/common/ipc/contract';
import { PERMS, WHO, modeBit, octalError, toggleBit, typeOctal, type ModeForm } from '../state/modeForm';

const SCOPE_LABELS: Record<ChmodScope, string> = {
  all: 'Files and folders',
  files: 'Files only',
  folders: 'Folders only',
};

export interface ModeGridProps {
  form: ModeForm;
  folder: boolean;
  onChange: (f: ModeForm) => void;
}

/** The rwx grid, the octal field and, for a folder, the recursion. */
export function ModeGrid({ form, folder, onChange }: ModeGridProps) {
  const error = octalError(form);
  return (
    <fieldset className="mode-grid">
      <legend>Permissions</legend>
      <table>
        <thead>
          <tr>
            <th />
            {PERMS.map((p) => (
              <th key={p}>{p[0].toUpperCase() + p.slice(1)}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {WHO.map((who) => (
            <tr key={who}>
              <th scope="row">{who[0].toUpperCase() + who.slice(1)}</th>
              {PERMS.map((perm) => (
                <td key={perm}>
                  <input
                    type="checkbox"
                    aria-label={`${who} ${perm}`}
                    checked={(form.mode & modeBit(who, perm)) !== 0}
                    onChange={() => onChange(toggleBit(form, who, perm))}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <label>
        Numeric value{' '}
        <input
          aria-label="Numeric value"
          className="octal"
          value={form.octal}
          size={5}
          aria-invalid={!!error}
          onChange={(e) => onChange(typeOctal(form, e.target.value))}
        />
      </label>
      {error && <span className="error-text full">{error}</span>}
      {folder && <RecurseChoice form={form} onChange={onChange} />}
    </fieldset>
  );
}

/** "Recurse into subfolders" and which kinds it changes. */
function RecurseChoice({ form, onChange }: Omit<ModeGridProps, 'folder'>) {
  return (
    <div className="recurse">
      <label>
        <input
          type="checkbox"
          checked={form.recurse}
          onChange={(e) => onChange({ ...form, recurse: e.target.checked })}
        />
        Recurse into subfolders
      </label>
      {CHMOD_SCOPES.map((scope) => (
        <label key={scope}>
          <input
            type="radio"
            name="chmod-scope"
            disabled={!form.recurse}
            checked={form.scope === scope}
            onChange={() => onChange({ ...form, scope })}
          />
          {SCOPE_LABELS[scope]}
        </label>
      ))}
    </div>
  );
}
