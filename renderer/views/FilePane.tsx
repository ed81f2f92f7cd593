/**
 * One file pane (local or remote): breadcrumbs, sortable columns (name, size, modified), hidden-files toggle,
 * multi-select (click, ctrl/cmd-click, shift-click, shift-arrows, ctrl-A), keyboard navigation
 * (arrows, Home/End, Enter opens, Backspace or Alt+Up goes up and focuses the folder left, F2 renames, Delete deletes), new folder / rename /
 * delete with confirmation, and drag and drop: rows drag to the other pane, the other pane's rows and
 * (when `acceptOsFiles`) files from the OS drop here.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FsEntry, Listing } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';
import { breadcrumbs, formatBytes, formatDate, plural } from '../format/format';
import { emptySelection, moveFocus, select, sortEntries, toggleSort, validateName, type Selection, type SortKey, type SortState } from '../format/entries';
import { ConfirmDialog, PromptDialog } from './Dialog';
import { Icon } from './Icon';

/** MIME type of pane-to-pane drags. */
export const PANE_DRAG_TYPE = 'application/x-sluice-paths';

/** Payload of a pane-to-pane drag. */
export interface PaneDrag {
  side: 'local' | 'remote';
  paths: string[];
}

export interface FilePaneProps {
  side: 'local' | 'remote';
  title: string;
  /** Current folder, or null when the pane has nothing to show (remote not connected). */
  path: string | null;
  placeholder: string;
  sep: '/' | '\\';
  /** Changes whenever the pane should reload (e.g. a transfer into this folder finished). */
  reloadToken: string;
  list: (path: string) => Promise<Result<Listing>>;
  mkdir: (path: string) => Promise<Result<void>>;
  rename: (from: string, to: string) => Promise<Result<void>>;
  remove: (path: string, recursive: boolean) => Promise<Result<void>>;
  onNavigate: (path: string) => void;
  /** Items dragged from the other pane were dropped here, into `targetDir`. */
  onPaneDrop: (drag: PaneDrag, targetDir: string) => void;
  /** Files from the OS dropped here (only when `acceptOsFiles`). */
  onOsDrop?: (files: File[], targetDir: string) => void;
  acceptOsFiles?: boolean;
  onError: (message: string) => void;
}

type Modal = { kind: 'mkdir' } | { kind: 'rename'; entry: FsEntry } | { kind: 'delete'; entries: FsEntry[] } | null;

function join(dir: string, name: string, sep: '/' | '\\'): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

function parent(path: string, sep: '/' | '\\'): string {
  const trimmed = path.length > 1 && path.endsWith(sep) ? path.slice(0, -1) : path;
  const i = trimmed.lastIndexOf(sep);
  if (sep === '/') return i <= 0 ? '/' : trimmed.slice(0, i);
  return i < 0 ? trimmed : i === 2 ? trimmed.slice(0, 3) : trimmed.slice(0, i);
}

/** The pane component. */
export function FilePane(props: FilePaneProps) {
  const { side, title, path, sep, list, onNavigate, onError } = props;
  const [listing, setListing] = useState<Listing | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sort, setSort] = useState<SortState>({ key: 'name', dir: 'asc' });
  const [showHidden, setShowHidden] = useState(false);
  const [sel, setSel] = useState<Selection>(emptySelection);
  const [modal, setModal] = useState<Modal>(null);
  const [dropActive, setDropActive] = useState(false);
  const gridRef = useRef<HTMLTableElement>(null);
  /** After going up: the name of the folder we came from, focused once the parent's listing arrives. */
  const focusAfterLoad = useRef<string | null>(null);
  const label = `${title} files`;

  const reload = useCallback(async () => {
    if (path === null) {
      setListing(null);
      return;
    }
    setLoading(true);
    const r = await list(path);
    setLoading(false);
    if (r.ok) {
      setListing(r.value);
      setError(null);
    } else {
      setError(r.error.message);
    }
  }, [path, list]);

  useEffect(() => {
    void reload();
  }, [reload, props.reloadToken]);

  useEffect(() => setSel(emptySelection), [path]);

  const entries = useMemo(() => (listing ? sortEntries(listing.entries, sort, showHidden) : []), [listing, sort, showHidden]);
  const order = useMemo(() => entries.map((e) => e.name), [entries]);
  const cwd = listing?.path ?? path ?? '';
  const selectedEntries = entries.filter((e) => sel.selected.has(e.name));

  useEffect(() => {
    const name = focusAfterLoad.current;
    if (name === null || !listing || listing.path !== path) return;
    focusAfterLoad.current = null;
    if (order.includes(name)) setSel(select(emptySelection, order, name, 'replace'));
  }, [listing, path, order]);

  const goUp = () => {
    if (path === null) return;
    const up = parent(cwd, sep);
    if (up === cwd) return;
    focusAfterLoad.current = cwd.slice(up.length).replace(/^[/\\]+/, '').replace(/[/\\]+$/, '');
    onNavigate(up);
  };

  const open = (entry: FsEntry) => {
    if (entry.type === 'dir' || entry.type === 'symlink') onNavigate(join(cwd, entry.name, sep));
  };

  const act = async (what: string, pending: Promise<Result<void>>) => {
    const r = await pending;
    if (!r.ok) onError(`${what}: ${r.error.message}`);
    await reload();
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (modal) return;
    const k = e.key;
    if (!e.altKey && (k === 'ArrowDown' || k === 'ArrowUp' || k === 'Home' || k === 'End')) {
      e.preventDefault();
      const delta = k === 'ArrowDown' ? 1 : k === 'ArrowUp' ? -1 : k === 'Home' ? -order.length : order.length;
      const next = moveFocus(order, sel.focus, delta);
      if (next !== null) setSel(select(sel, order, next, e.shiftKey ? 'range' : 'replace'));
    } else if (k === 'Enter') {
      const entry = entries.find((x) => x.name === sel.focus);
      if (entry) open(entry);
    } else if (k === 'Backspace' || (k === 'ArrowUp' && e.altKey)) {
      e.preventDefault();
      goUp();
    } else if (k === 'Delete' && selectedEntries.length > 0) {
      setModal({ kind: 'delete', entries: selectedEntries });
    } else if (k === 'F2' && selectedEntries.length === 1) {
      setModal({ kind: 'rename', entry: selectedEntries[0] });
    } else if ((e.ctrlKey || e.metaKey) && k.toLowerCase() === 'a') {
      e.preventDefault();
      setSel({ selected: new Set(order), anchor: order[0] ?? null, focus: sel.focus ?? order[0] ?? null });
    } else if (k === ' ' && sel.focus !== null) {
      e.preventDefault();
      setSel(select(sel, order, sel.focus, 'toggle'));
    }
  };

  const dragStart = (e: React.DragEvent, entry: FsEntry) => {
    const names = sel.selected.has(entry.name) ? order.filter((n) => sel.selected.has(n)) : [entry.name];
    if (!sel.selected.has(entry.name)) setSel(select(sel, order, entry.name, 'replace'));
    const drag: PaneDrag = { side, paths: names.map((n) => join(cwd, n, sep)) };
    e.dataTransfer.setData(PANE_DRAG_TYPE, JSON.stringify(drag));
    e.dataTransfer.setData('text/plain', drag.paths.join('\n'));
    e.dataTransfer.effectAllowed = 'copy';
  };

  const canAccept = (e: React.DragEvent) =>
    path !== null && (e.dataTransfer.types.includes(PANE_DRAG_TYPE) || (!!props.acceptOsFiles && e.dataTransfer.types.includes('Files')));

  const drop = (e: React.DragEvent, targetDir: string) => {
    setDropActive(false);
    if (!canAccept(e)) return;
    e.preventDefault();
    e.stopPropagation();
    const raw = e.dataTransfer.getData(PANE_DRAG_TYPE);
    if (raw) {
      const drag = JSON.parse(raw) as PaneDrag;
      if (drag.side !== side) props.onPaneDrop(drag, targetDir);
      return;
    }
    if (props.acceptOsFiles && e.dataTransfer.files.length > 0 && props.onOsDrop) props.onOsDrop([...e.dataTransfer.files], targetDir);
  };

  const sortHeader = (key: SortKey, text: string, className: string) => (
    <th className={className} aria-sort={sort.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" onClick={() => setSort(toggleSort(sort, key))} aria-label={`Sort by ${text}`}>
        {text} {sort.key === key ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
      </button>
    </th>
  );

  const crumbs = path === null ? [] : breadcrumbs(cwd, sep);
  return (
    <section
      className={`pane ${dropActive ? 'drop-target' : ''}`}
      aria-label={`${title} pane`}
      data-path={path === null ? '' : cwd}
      data-loading={loading ? 'true' : 'false'}
      onDragOver={(e) => {
        if (canAccept(e)) {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
          setDropActive(true);
        }
      }}
      onDragLeave={() => setDropActive(false)}
      onDrop={(e) => drop(e, cwd)}
    >
      <header>
        <div className="pane-title">
          <h2>{title}</h2>
          <nav className="crumbs" aria-label={`${title} path`}>
            <ol>
              {crumbs.map((c, i) => (
                <li key={c.path}>
                  <button type="button" onClick={() => onNavigate(c.path)} aria-current={i === crumbs.length - 1 ? 'location' : undefined}>
                    {c.label}
                  </button>
                </li>
              ))}
            </ol>
          </nav>
        </div>
        <div className="pane-actions" role="toolbar" aria-label={`${title} actions`}>
          <button type="button" aria-label={`${title}: up one folder`} title="Up one folder (Backspace, Alt+Up)" disabled={path === null} onClick={goUp}>
            <Icon name="up" />
          </button>
          <button type="button" aria-label={`${title}: refresh`} title="Refresh" disabled={path === null} onClick={() => void reload()}>
            ⟳
          </button>
          <button type="button" aria-label={`${title}: new folder`} disabled={path === null} onClick={() => setModal({ kind: 'mkdir' })}>
            New folder
          </button>
          <button
            type="button"
            aria-label={`${title}: rename`}
            title="Rename (F2)"
            disabled={selectedEntries.length !== 1}
            onClick={() => setModal({ kind: 'rename', entry: selectedEntries[0] })}
          >
            Rename
          </button>
          <button
            type="button"
            aria-label={`${title}: delete`}
            title="Delete (Del)"
            disabled={selectedEntries.length === 0}
            onClick={() => setModal({ kind: 'delete', entries: selectedEntries })}
          >
            Delete
          </button>
          <span className="spacer" />
          <span className="muted" aria-live="polite">
            {listing ? `${plural(entries.length, 'item')}${selectedEntries.length ? `, ${selectedEntries.length} selected` : ''}` : ''}
          </span>
          <label>
            <input type="checkbox" checked={showHidden} onChange={(e) => setShowHidden(e.target.checked)} aria-label={`${title}: show hidden files`} /> Hidden
          </label>
        </div>
      </header>
      <div className="grid-wrap">
        {path === null ? (
          <p className="empty">{props.placeholder}</p>
        ) : error ? (
          <p className="empty error-text" role="alert">
            {error}
          </p>
        ) : (
          <table
            ref={gridRef}
            className="files"
            role="grid"
            aria-label={label}
            aria-multiselectable="true"
            aria-rowcount={entries.length + 1}
            tabIndex={0}
            onKeyDown={onKeyDown}
          >
            <thead>
              <tr>
                {sortHeader('name', 'Name', 'col-name')}
                {sortHeader('size', 'Size', 'col-size num')}
                {sortHeader('mtime', 'Modified', 'col-date')}
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => {
                const selected = sel.selected.has(entry.name);
                const isDir = entry.type === 'dir';
                return (
                  <tr
                    key={entry.name}
                    aria-selected={selected}
                    aria-label={entry.name}
                    data-type={entry.type}
                    className={sel.focus === entry.name ? 'focused' : undefined}
                    draggable
                    onDragStart={(e) => dragStart(e, entry)}
                    onDragOver={(e) => {
                      if (isDir && canAccept(e)) {
                        e.preventDefault();
                        e.dataTransfer.dropEffect = 'copy';
                      }
                    }}
                    onDrop={isDir ? (e) => drop(e, join(cwd, entry.name, sep)) : undefined}
                    onClick={(e) => {
                      setSel(select(sel, order, entry.name, e.shiftKey ? 'range' : e.ctrlKey || e.metaKey ? 'toggle' : 'replace'));
                      gridRef.current?.focus();
                    }}
                    onDoubleClick={() => open(entry)}
                  >
                    <td role="gridcell">
                      <Icon name={isDir ? 'folder' : entry.type === 'symlink' ? 'link' : 'file'} />
                      {entry.name}
                    </td>
                    <td role="gridcell" className="num">
                      {isDir ? '' : formatBytes(entry.size)}
                    </td>
                    <td role="gridcell">{formatDate(entry.mtimeMs)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {path !== null && !error && listing && entries.length === 0 && <p className="empty">This folder is empty.</p>}
      </div>

      {modal?.kind === 'mkdir' && (
        <PromptDialog
          title={`New ${side} folder`}
          label="Folder name"
          submitLabel="Create"
          validate={validateName}
          onCancel={() => setModal(null)}
          onSubmit={(name) => {
            setModal(null);
            void act('Creating the folder failed', props.mkdir(join(cwd, name, sep)));
          }}
        />
      )}
      {modal?.kind === 'rename' && (
        <PromptDialog
          title={`Rename ${modal.entry.name}`}
          label="New name"
          initial={modal.entry.name}
          submitLabel="Rename"
          validate={(v) => validateName(v) ?? (v !== modal.entry.name && order.includes(v) ? 'A file with this name exists' : null)}
          onCancel={() => setModal(null)}
          onSubmit={(name) => {
            const from = join(cwd, modal.entry.name, sep);
            setModal(null);
            if (name !== modal.entry.name) void act('Renaming failed', props.rename(from, join(cwd, name, sep)));
          }}
        />
      )}
      {modal?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete from ${title.toLowerCase()}`}
          message={
            modal.entries.length === 1
              ? `Delete "${modal.entries[0].name}"${modal.entries[0].type === 'dir' ? ' and everything inside it' : ''}? This cannot be undone.`
              : `Delete ${modal.entries.length} items? Folders are deleted with everything inside. This cannot be undone.`
          }
          confirmLabel="Delete"
          danger
          onCancel={() => setModal(null)}
          onConfirm={() => {
            const doomed = modal.entries;
            setModal(null);
            setSel(emptySelection);
            void (async () => {
              for (const entry of doomed) {
                const r = await props.remove(join(cwd, entry.name, sep), entry.type === 'dir');
                if (!r.ok) onError(`Deleting ${entry.name} failed: ${r.error.message}`);
              }
              await reload();
            })();
          }}
        />
      )}
    </section>
  );
}
