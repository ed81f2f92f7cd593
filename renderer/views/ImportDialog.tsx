/**
 * Import sites (issue #15): choose a format and a file (a path field; empty means the format's usual place), preview
 * what the source holds — a table with a checkbox per site, duplicates unticked, and the notes of what is not imported
 * — then import the ticked sites, optionally under a folder and with the passwords the source holds (they go to the
 * secret store; the preview never shows them).
 */
import { useId, useState } from 'react';
import type { Settings } from '../../app/common/ipc/contract';
import {
  IMPORT_FORMATS,
  IMPORT_FORMAT_LABELS,
  type ImportFormat,
  type ImportPreview,
  type ImportResult,
} from '../../app/common/model/siteImport';
import { useBridge } from '../state/react';
import { PATH_PLACEHOLDERS, defaultPicks, pickedPasswords, rowNotes, serverOf, toggled } from '../state/importPicks';
import { Dialog } from './Dialog';
import { plural } from '../format/format';

export interface ImportDialogProps {
  settings: Settings | null;
  /** Called after an import saved sites (to refresh the tree). */
  onImported: () => void;
  onClose: () => void;
}

/** The preview table: one row per candidate with its checkbox. */
function PreviewTable({
  preview,
  picks,
  setPicks,
}: {
  preview: ImportPreview;
  picks: Set<number>;
  setPicks: (p: Set<number>) => void;
}) {
  return (
    <div className="import-table-wrap">
      <table className="import-table" aria-label="Sites found">
        <thead>
          <tr>
            <th>Import</th>
            <th>Name</th>
            <th>Folder</th>
            <th>Server</th>
            <th>Login</th>
            <th>Notes</th>
          </tr>
        </thead>
        <tbody>
          {preview.candidates.map((c) => (
            <tr key={c.index} className={c.duplicateOf ? 'duplicate' : undefined}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Import ${c.site.name}`}
                  checked={picks.has(c.index)}
                  onChange={(e) => setPicks(toggled(picks, c.index, e.target.checked))}
                />
              </td>
              <td>{c.site.name}</td>
              <td>{c.site.folder}</td>
              <td className="mono">{serverOf(c)}</td>
              <td>
                {c.site.authMethod === 'key' ? `key ${c.site.keyPath ?? ''}` : c.site.authMethod}
                {c.hasPassword ? ' (stored in the file)' : ''}
              </td>
              <td>
                {rowNotes(c).map((n) => (
                  <div key={n} className="muted">
                    {n}
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What an import did, with its notes (passwords not stored). */
function ResultView({ result, onClose }: { result: ImportResult; onClose: () => void }) {
  return (
    <div role="status" aria-label="Import result">
      <p>
        Imported {plural(result.imported.length, 'site')}
        {result.passwordsStored ? `, ${plural(result.passwordsStored, 'password')} stored` : ''}.
      </p>
      {result.notes.map((n) => (
        <p key={n} className="muted">
          {n}
        </p>
      ))}
      <div className="buttons">
        <button type="button" className="primary" onClick={onClose} data-autofocus>
          Close
        </button>
      </div>
    </div>
  );
}

/** Under the table: the source's notes, the folder to import into, and whether to store the passwords. */
function ImportOptions({
  preview,
  picks,
  into,
  setInto,
  passwords,
  setPasswords,
  settings,
}: {
  preview: ImportPreview;
  picks: Set<number>;
  into: string;
  setInto: (v: string) => void;
  passwords: boolean;
  setPasswords: (v: boolean) => void;
  settings: Settings | null;
}) {
  const uid = useId();
  const withPasswords = pickedPasswords(preview, picks);
  const insecure = settings !== null && !settings.secretStorage.secure && !settings.allowInsecureSecretStorage;
  return (
    <>
      {preview.notes.length > 0 && (
        <ul className="import-notes" aria-label="Not imported">
          {preview.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      <div className="form-grid">
        <label htmlFor={`${uid}-into`}>Into folder</label>
        <input
          id={`${uid}-into`}
          value={into}
          placeholder="top level"
          onChange={(e) => setInto(e.target.value)}
          autoComplete="off"
        />
        {withPasswords > 0 && (
          <label className="full">
            <input type="checkbox" checked={passwords} onChange={(e) => setPasswords(e.target.checked)} /> Store the{' '}
            {withPasswords} password(s) the file holds
            {insecure
              ? ` (refused: this system stores passwords without encryption (${settings?.secretStorage.backend}); agree in Settings first)`
              : ''}
          </label>
        )}
      </div>
    </>
  );
}

/** The dialog's state: the source, its preview and picks, the options, and Preview and Import. */
function useSiteImport(onImported: () => void) {
  const bridge = useBridge();
  const [format, setFormat] = useState<ImportFormat>('openssh');
  const [path, setPath] = useState('');
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [picks, setPicks] = useState<Set<number>>(new Set());
  const [into, setInto] = useState('');
  const [passwords, setPasswords] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const source = () => ({ format, ...(path.trim() ? { path: path.trim() } : {}) });

  const load = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const r = await bridge.sitesImportPreview(source());
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    setPreview(r.value);
    setPicks(defaultPicks(r.value));
  };

  const run = async () => {
    if (!preview) return;
    setBusy(true);
    setError(null);
    const r = await bridge.sitesImport({
      ...source(),
      digest: preview.digest,
      pick: [...picks],
      passwords,
      ...(into.trim() ? { intoFolder: into.trim() } : {}),
    });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    setResult(r.value);
    onImported();
  };
  /** A changed format or file makes the preview stale. */
  const changeFormat = (f: ImportFormat) => {
    setFormat(f);
    setPreview(null);
  };
  const changePath = (p: string) => {
    setPath(p);
    setPreview(null);
  };
  return {
    format,
    changeFormat,
    path,
    changePath,
    preview,
    picks,
    setPicks,
    into,
    setInto,
    passwords,
    setPasswords,
    busy,
    error,
    result,
    load,
    run,
  };
}

type SiteImport = ReturnType<typeof useSiteImport>;

/** Where the sites come from: the format and the file (empty: the format's usual place), and Preview. */
function SourceForm({ im }: { im: SiteImport }) {
  const uid = useId();
  return (
    <form onSubmit={im.load} className="form-grid" aria-label="Source">
      <label htmlFor={`${uid}-format`}>Format</label>
      <select
        id={`${uid}-format`}
        value={im.format}
        onChange={(e) => im.changeFormat(e.target.value as ImportFormat)}
        data-autofocus
      >
        {IMPORT_FORMATS.map((f) => (
          <option key={f} value={f}>
            {IMPORT_FORMAT_LABELS[f]}
          </option>
        ))}
      </select>
      <label htmlFor={`${uid}-path`}>File</label>
      <div className="row-with-button">
        <input
          id={`${uid}-path`}
          value={im.path}
          placeholder={PATH_PLACEHOLDERS[im.format]}
          autoComplete="off"
          onChange={(e) => im.changePath(e.target.value)}
        />
        <button type="submit" disabled={im.busy}>
          Preview
        </button>
      </div>
    </form>
  );
}

/** The import dialog. */
export function ImportDialog({ settings, onImported, onClose }: ImportDialogProps) {
  const im = useSiteImport(onImported);
  const { preview, picks, result, error } = im;
  return (
    <Dialog title="Import sites" onCancel={onClose} className="import-dialog">
      {result ? (
        <ResultView result={result} onClose={onClose} />
      ) : (
        <>
          <SourceForm im={im} />
          {error && (
            <p className="error-text" role="alert">
              {error}
            </p>
          )}
          {preview && (
            <section aria-label="Preview">
              <p className="muted">
                {preview.source}: {plural(preview.candidates.length, 'site')}, {picks.size} ticked.
              </p>
              <PreviewTable preview={preview} picks={picks} setPicks={im.setPicks} />
              <ImportOptions
                preview={preview}
                picks={picks}
                into={im.into}
                setInto={im.setInto}
                passwords={im.passwords}
                setPasswords={im.setPasswords}
                settings={settings}
              />
            </section>
          )}
          <div className="buttons">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button
              type="button"
              className="primary"
              disabled={!preview || picks.size === 0 || im.busy}
              onClick={() => void im.run()}
            >
              Import {plural(picks.size, 'site')}
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}
