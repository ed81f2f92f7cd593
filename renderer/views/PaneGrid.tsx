/**
 * A file pane's body: the placeholder when the pane shows nothing, else the sortable grid (name, size, modified; in the
 * remote pane permissions and owner) with
 * its virtualized rows (views/FileRows.tsx) and the empty-folder line. A right-click on the background clears the
 * selection and opens the folder's menu.
 */
import type { RefObject } from 'react';
import type { FsEntry } from '../../app/common/ipc/contract';
import type { CompareStatus } from '../../app/common/folderCompare';
import { toggleSort, type Selection, type SortKey, type SortState } from '../format/entries';
import { FileRows, type RowHandlers } from './FileRows';

export interface PaneGridProps {
  /** Nothing to show (remote not connected): the placeholder is shown instead. */
  empty: boolean;
  placeholder: string;
  /** A listing arrived (before the first one the grid is not drawn). */
  listed: boolean;
  label: string;
  entries: readonly FsEntry[];
  sel: Selection;
  sort: SortState;
  onSort: (s: SortState) => void;
  focusIndex: number;
  handlers: RowHandlers;
  gridRef: RefObject<HTMLTableElement | null>;
  scrollRef: RefObject<HTMLDivElement | null>;
  onKeyDown: (e: React.KeyboardEvent) => void;
  /** A right-click on the background, viewport px. */
  onBackgroundMenu: (x: number, y: number) => void;
  /** The Permissions and Owner columns (the remote pane). */
  ownership?: boolean;
  /** Compare's marks by name (#27). */
  marks?: ReadonlyMap<string, CompareStatus>;
}

interface SortHeaderProps {
  sort: SortState;
  onSort: (s: SortState) => void;
  sortKey: SortKey;
  text: string;
  className: string;
}

function SortHeader(p: SortHeaderProps) {
  const { sort, sortKey: key, text } = p;
  return (
    <th
      className={p.className}
      aria-sort={sort.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button type="button" onClick={() => p.onSort(toggleSort(sort, key))} aria-label={`Sort by ${text}`}>
        {text} {sort.key === key ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
      </button>
    </th>
  );
}

/** The grid of one pane. */
export function PaneGrid(p: PaneGridProps) {
  const sorting = { sort: p.sort, onSort: p.onSort };
  return (
    <div
      className="grid-wrap"
      ref={p.scrollRef}
      onContextMenu={(e) => {
        if (p.empty || !p.listed) return;
        e.preventDefault();
        p.onBackgroundMenu(e.clientX, e.clientY);
      }}
    >
      {p.empty ? (
        <p className="empty">{p.placeholder}</p>
      ) : !p.listed ? null : (
        <table
          ref={p.gridRef}
          className="files"
          role="grid"
          aria-label={p.label}
          aria-multiselectable="true"
          aria-rowcount={p.entries.length + 1}
          tabIndex={0}
          onKeyDown={p.onKeyDown}
        >
          <thead>
            <tr>
              <SortHeader {...sorting} sortKey="name" text="Name" className="col-name" />
              <SortHeader {...sorting} sortKey="size" text="Size" className="col-size num" />
              <SortHeader {...sorting} sortKey="mtime" text="Modified" className="col-date" />
              {p.ownership && <SortHeader {...sorting} sortKey="mode" text="Permissions" className="col-mode" />}
              {p.ownership && <SortHeader {...sorting} sortKey="owner" text="Owner" className="col-owner" />}
            </tr>
          </thead>
          <FileRows
            entries={p.entries}
            sel={p.sel}
            scrollRef={p.scrollRef}
            focusIndex={p.focusIndex}
            handlers={p.handlers}
            ownership={p.ownership}
            marks={p.marks}
          />
        </table>
      )}
      {!p.empty && p.listed && p.entries.length === 0 && <p className="empty">This folder is empty.</p>}
    </div>
  );
}
