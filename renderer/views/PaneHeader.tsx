/**
 * A file pane's header: its title and folder (views/PanePath.tsx: breadcrumbs or the typed path), and the action bar
 * (back, forward, up, refresh, Upload or Download, new folder, rename, delete, the filter field of PaneFilter.tsx, the
 * item count and the hidden-files toggle). Every button has a name and, where it has one, its key.
 */
import type { FsEntry } from '../../app/common/ipc/contract';
import { isDrivesPath } from '../../app/common/localPaths';
import { paneCountText } from '../format/paneFilter';
import type { PaneKeyLabels } from '../format/paneKeys';
import { Icon } from './Icon';
import type { PaneTransfer } from './paneMenu';
import { HistoryButtons, PaneTitle } from './PanePath';
import type { PaneNavigation } from './usePaneNavigation';
import { PaneFilter } from './PaneFilter';
import type { PaneFilterState } from './usePaneFilter';

export interface PaneHeaderProps {
  title: string;
  /** The folder shown, or null when the pane has none. */
  cwd: string | null;
  sep: '/' | '\\';
  /** The keys the buttons name (macOS: ⌘↑, ⌘⌫). */
  keys: PaneKeyLabels;
  /** Entries listed (shown), or null before the first listing. */
  count: number | null;
  /** Entries listed before the filter. */
  total: number;
  filter: PaneFilterState;
  selected: readonly FsEntry[];
  showHidden: boolean;
  transfer?: PaneTransfer;
  /** Back/Forward and the typed path. */
  nav: PaneNavigation;
  onNavigate: (path: string) => void;
  onUp: () => void;
  onRefresh: () => void;
  onTransfer: () => void;
  onMkdir: () => void;
  onRename: (entry: FsEntry) => void;
  onDelete: (entries: FsEntry[]) => void;
  onShowHidden: (show: boolean) => void;
  /** The owner's controls after Refresh (bookmarks, synchronized browsing, find). */
  tools?: React.ReactNode;
}

/** Upload or Download of the selection, when the pane has a transfer. */
function TransferButton({
  title,
  transfer,
  selected,
  onTransfer,
}: Pick<PaneHeaderProps, 'title' | 'selected' | 'onTransfer'> & {
  transfer: PaneTransfer;
}) {
  return (
    <button
      type="button"
      aria-label={`${title}: ${transfer.label.toLowerCase()}`}
      title={`${transfer.label} the selection (${transfer.shortcut})`}
      disabled={selected.length === 0 || !transfer.run}
      onClick={onTransfer}
    >
      <Icon name={transfer.label === 'Upload' ? 'toRemote' : 'toLocal'} />
      <span className="label">{transfer.label}</span>
    </button>
  );
}

/** New folder, Rename and Delete; `readOnly` (Windows' drives) or no folder disables them. */
function EditButtons(p: PaneHeaderProps & { noFolder: boolean; readOnly: boolean }) {
  const { title, selected, readOnly } = p;
  return (
    <>
      <button
        type="button"
        aria-label={`${title}: new folder`}
        title="New folder"
        disabled={p.noFolder || readOnly}
        onClick={p.onMkdir}
      >
        <Icon name="newFolder" />
        <span className="label">New folder</span>
      </button>
      <button
        type="button"
        aria-label={`${title}: rename`}
        title="Rename (F2)"
        disabled={selected.length !== 1 || readOnly}
        onClick={() => p.onRename(selected[0])}
      >
        <Icon name="rename" />
        <span className="label">Rename</span>
      </button>
      <button
        type="button"
        aria-label={`${title}: delete`}
        title={`Delete (${p.keys.deleteShort})`}
        disabled={selected.length === 0 || readOnly}
        onClick={() => p.onDelete([...selected])}
      >
        <Icon name="trash" />
        <span className="label">Delete</span>
      </button>
    </>
  );
}

/** The header of a pane. */
export function PaneHeader(p: PaneHeaderProps) {
  const { title, cwd, selected } = p;
  const none = cwd === null;
  // Windows' top level lists drives and shares: nothing to create, rename or delete there.
  const top = isDrivesPath(cwd);
  const count =
    p.count !== null
      ? paneCountText(p.count, p.total, selected.length, p.filter.text.trim() !== '' || p.count !== p.total)
      : '';
  return (
    <header>
      <PaneTitle title={title} cwd={cwd} sep={p.sep} nav={p.nav} keys={p.keys} onNavigate={p.onNavigate} />
      <div className="pane-actions" role="toolbar" aria-label={`${title} actions`}>
        <HistoryButtons title={title} nav={p.nav} keys={p.keys} />
        <button
          type="button"
          aria-label={`${title}: up one folder`}
          title={`Up one folder (${p.keys.up})`}
          disabled={none}
          onClick={p.onUp}
        >
          <Icon name="up" />
        </button>
        <button
          type="button"
          aria-label={`${title}: refresh`}
          title={`Refresh (${p.keys.refresh})`}
          disabled={none}
          onClick={p.onRefresh}
        >
          ⟳
        </button>
        {p.tools}
        {p.transfer && (
          <TransferButton title={title} transfer={p.transfer} selected={selected} onTransfer={p.onTransfer} />
        )}
        <EditButtons {...p} noFolder={none} readOnly={top} />
        <PaneFilter title={title} filter={p.filter} />
        <span className="count muted" aria-live="polite" title={count}>
          {count}
        </span>
        <label title="Show hidden files">
          <input
            type="checkbox"
            checked={p.showHidden}
            onChange={(e) => p.onShowHidden(e.target.checked)}
            aria-label={`${title}: show hidden files`}
          />
          <span className="label"> Hidden</span>
        </label>
      </div>
    </header>
  );
}
