/**
 * Export the saved sites as Sluice JSON into a file (issue #15). Passwords go into the file only when ticked (the file
 * is then readable by its owner only, and holds them in plain text); an existing file is replaced only when ticked.
 */
import { useId, useState } from 'react';
import type { ExportResult } from '../../app/common/model/siteImport';
import { useBridge } from '../state/react';
import { Dialog } from './Dialog';
import { plural } from '../format/format';

export interface ExportDialogProps {
  onClose: () => void;
}

/** The export dialog. */
export function ExportDialog({ onClose }: ExportDialogProps) {
  const bridge = useBridge();
  const uid = useId();
  const [path, setPath] = useState('~/sluice-sites.json');
  const [withPasswords, setWithPasswords] = useState(false);
  const [overwrite, setOverwrite] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<ExportResult | null>(null);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    if (path.trim() === '') return setError('Give the file to write');
    const r = await bridge.sitesExport({ path: path.trim(), withPasswords, overwrite });
    if (!r.ok) return setError(r.error.message);
    setDone(r.value);
  };

  return (
    <Dialog title="Export sites" onCancel={onClose}>
      {done ? (
        <div role="status" aria-label="Export result">
          <p>
            Exported {plural(done.sites, 'site')}
            {done.passwords ? ` with ${plural(done.passwords, 'password')}` : ''} to {done.path}.
          </p>
          <div className="buttons">
            <button type="button" className="primary" onClick={onClose} data-autofocus>
              Close
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit}>
          <div className="form-grid">
            <label htmlFor={`${uid}-path`}>File</label>
            <input
              id={`${uid}-path`}
              value={path}
              onChange={(e) => setPath(e.target.value)}
              autoComplete="off"
              data-autofocus
            />
            <label className="full">
              <input type="checkbox" checked={withPasswords} onChange={(e) => setWithPasswords(e.target.checked)} />{' '}
              Include the stored passwords
            </label>
            {withPasswords && (
              <p className="full error-text">The file will hold the passwords in plain text (readable by you only).</p>
            )}
            <label className="full">
              <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} /> Replace the
              file if it exists
            </label>
          </div>
          {error && (
            <p className="error-text" role="alert">
              {error}
            </p>
          )}
          <div className="buttons">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="primary">
              Export
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
