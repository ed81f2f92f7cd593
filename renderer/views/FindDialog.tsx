/**
 * The remote find (#26 item 5; the remote pane's menu, F3 or Ctrl+F): a name pattern (contains, or a glob over the
 * whole name), case optional, searched from the pane's folder down; the matches listed as they are found (name,
 * folder, size, modified), each with Go to (the pane opens its folder and selects it); Stop ends the search at once.
 * Names and paths are the server's: shown escaped.
 */
import { useState } from 'react';
import type { FindHit, FindNote, FindReport } from '../../app/common/ipc/find';
import { displayText } from '../../app/common/displayText';
import { plural } from '../../app/common/plural';
import { formatBytes, formatDate } from '../format/format';
import { Dialog } from './Dialog';
import { useRemoteFind, type FindQuery } from './useRemoteFind';

export interface FindDialogProps {
  siteId: string;
  /** The folder searched from (the remote pane's). */
  root: string;
  onGoTo: (dir: string, name: string) => void;
  onClose: () => void;
}

/** The status line: searching, or how it ended, with "more not shown" past the cap. */
function statusText(running: boolean, counts: { folders: number; matched: number }, r: FindReport | null): string {
  const found = `${plural(counts.matched, 'match', 'matches')} in ${plural(counts.folders, 'folder')}`;
  if (running) return `Searching… ${found}`;
  if (!r) return '';
  const more = r.matched > r.shown ? `; ${(r.matched - r.shown).toLocaleString()} more not shown` : '';
  const ended =
    r.ended === 'cancelled' ? 'Stopped' : r.ended === 'folderLimit' ? 'Stopped at the limit of folders' : 'Done';
  return `${ended}: ${found}${more}`;
}

function noteText(n: FindNote): string {
  const p = displayText(n.path);
  const d = displayText(n.detail);
  if (n.kind === 'loop') return `${p}: a symlink loop (it leads to ${d}, a folder above it): visited once`;
  if (n.kind === 'seen') return `${p}: a symlink to ${d}, a folder searched already`;
  if (n.kind === 'depth') return `${p}: too deep, not searched`;
  return `${p}: not listed: ${d}`;
}

function FindForm({
  running,
  onFind,
  onStop,
}: {
  running: boolean;
  onFind: (q: FindQuery) => void;
  onStop: () => void;
}) {
  const [pattern, setPattern] = useState('');
  const [match, setMatch] = useState<FindQuery['match']>('substring');
  const [caseSensitive, setCaseSensitive] = useState(false);
  return (
    <form
      className="find-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (pattern.trim() !== '') onFind({ pattern, match, caseSensitive });
      }}
    >
      <select aria-label="Match" value={match} onChange={(e) => setMatch(e.target.value as FindQuery['match'])}>
        <option value="substring">Name contains</option>
        <option value="glob">Name matches (*, ?, [ ])</option>
      </select>
      <input
        data-autofocus
        aria-label="Find name"
        value={pattern}
        spellCheck={false}
        autoComplete="off"
        placeholder={match === 'glob' ? '*.log' : 'part of a name'}
        onChange={(e) => setPattern(e.target.value)}
      />
      <label>
        <input type="checkbox" checked={caseSensitive} onChange={(e) => setCaseSensitive(e.target.checked)} /> Match
        case
      </label>
      {running ? (
        <button type="button" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" className="primary" disabled={pattern.trim() === ''}>
          Find
        </button>
      )}
    </form>
  );
}

function Results({ hits, onGoTo }: { hits: FindHit[]; onGoTo: (h: FindHit) => void }) {
  return (
    <div className="find-results">
      <table aria-label="Find results">
        <thead>
          <tr>
            <th>Name</th>
            <th>Folder</th>
            <th>Size</th>
            <th>Modified</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {hits.map((h, i) => (
            <tr key={i} aria-label={displayText(h.name)}>
              <td>{displayText(h.name)}</td>
              <td>{displayText(h.dir)}</td>
              <td>{h.type === 'dir' ? 'folder' : formatBytes(h.size)}</td>
              <td>{formatDate(h.mtimeMs)}</td>
              <td>
                <button type="button" onClick={() => onGoTo(h)}>
                  Go to
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The dialog. */
export function FindDialog({ siteId, root, onGoTo, onClose }: FindDialogProps) {
  const f = useRemoteFind(siteId, root);
  const status = f.error ? `Find failed: ${f.error}` : statusText(f.running, f.counts, f.report);
  return (
    <Dialog title="Find remote files" onCancel={onClose} className="find-dialog">
      <p className="muted">In {displayText(root)} and every folder below it</p>
      <FindForm running={f.running} onFind={(q) => void f.start(q)} onStop={f.stop} />
      <p role="status" aria-label="Find status" className={f.error ? 'error-text' : undefined}>
        {status}
      </p>
      {f.hits.length > 0 && <Results hits={f.hits} onGoTo={(h) => onGoTo(h.dir, h.name)} />}
      {f.notes.length > 0 && (
        <ul aria-label="Find notes" className="find-notes muted">
          {f.notes.map((n, i) => (
            <li key={i}>{noteText(n)}</li>
          ))}
        </ul>
      )}
      <div className="buttons">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
