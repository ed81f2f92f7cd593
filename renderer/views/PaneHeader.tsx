/**
 * A file pane's header: its title and breadcrumbs, and the action bar (up, refresh, Upload or Download, new folder,
 * rename, delete, the item count and the hidden-files toggle). Every button has a name and, where it has one, its key.
 */
import type { FsEntry } from '../../app/common/ipc/contract';
import { isDrivesPath } from '../../app/common/localPaths';
import { breadcrumbs, plural } from '../format/format';
import type { PaneKeyLabels } from '../format/paneKeys';
import { Icon } from './Icon';
import type { PaneTransfer } from './paneMenu';

export interface PaneHeaderProps {
  title: string;
  /** The folder shown, or null when the pane has none. */
  cwd: string | null;
  sep: '/' | '\\';
  /** The keys the buttons name (macOS: ⌘↑, ⌘⌫). */
  keys: PaneKeyLabels;
  /** Entries listed (shown), or null before the first listing. */
  count: number | null;
  selected: readonly FsEntry[];
  showHidden: boolean;
  transfer?: PaneTransfer;
  onNavigate: (path: string) => void;
  onUp: () => void;
  onRefresh: () => void;
  onTransfer: () => void;
  onMkdir: () => void;
  onRename: (entry: FsEntry) => void;
  onDelete: (entries: FsEntry[]) => void;
  onShowHidden: (show: boolean) => void;
}

/** The header of a pane. */
export function PaneHeader(p: PaneHeaderProps) {
  const { title, cwd, selected } = p;
  const crumbs = cwd === null ? [] : breadcrumbs(cwd, p.sep);
  const none = cwd === null;
  // Windows' top level lists drives and shares: nothing to create, rename or delete there.
  const top = isDrivesPath(cwd);
  const count = p.count !== null ? `${plural(p.count, 'item')}${selected.length ? `, ${selected.length} selected` : ''}` : '';
  return (
    <header>
      <div className="pane-title">
        <h2>{title}</h2>
        <nav className="crumbs" aria-label={`${title} path`}>
          <ol>
            {crumbs.map((c, i) => (
              <li key={c.path}>
                <button type="button" onClick={() => p.onNavigate(c.path)} aria-current={i === crumbs.length - 1 ? 'location' : undefined}>
                  {c.label}
                </button>
              </li>
            ))}
          </ol>
        </nav>
      </div>
      <div className="pane-actions" role="toolbar" aria-label={`${title} actions`}>
        <button type="button" aria-label={`${title}: up one folder`} title={`Up one folder (${p.keys.up})`} disabled={none} onClick={p.onUp}>
          <Icon name="up" />
        </button>
        <button type="button" aria-label={`${title}: refresh`} title={`Refresh (${p.keys.refresh})`} disabled={none} onClick={p.onRefresh}>
          ⟳
        </button>
        {p.transfer && (
          <button
            type="button"
            aria-label={`${title}: ${p.transfer.label.toLowerCase()}`}
            title={`${p.transfer.label} the selection (${p.transfer.shortcut})`}
            disabled={selected.length === 0 || !p.transfer.run}
            onClick={p.onTransfer}
          >
            <Icon name={p.transfer.label === 'Upload' ? 'toRemote' : 'toLocal'} />
            <span className="label">{p.transfer.label}</span>
          </button>
        )}
        <button type="button" aria-label={`${title}: new folder`} title="New folder" disabled={none || top} onClick={p.onMkdir}>
          <Icon name="newFolder" />
          <span className="label">New folder</span>
        </button>
        <button type="button" aria-label={`${title}: rename`} title="Rename (F2)" disabled={selected.length !== 1 || top} onClick={() => p.onRename(selected[0])}>
          <Icon name="rename" />
          <span className="label">Rename</span>
        </button>
        <button type="button" aria-label={`${title}: delete`} title={`Delete (${p.keys.deleteShort})`} disabled={selected.length === 0 || top} onClick={() => p.onDelete([...selected])}>
          <Icon name="trash" />
          <span className="label">Delete</span>
        </button>
        <span className="count muted" aria-live="polite" title={count}>
          {count}
        </span>
        <label title="Show hidden files">
          <input type="checkbox" checked={p.showHidden} onChange={(e) => p.onShowHidden(e.target.checked)} aria-label={`${title}: show hidden files`} />
          <span className="label"> Hidden</span>
        </label>
      </div>
    </header>
  );
}
