/**
 * One file pane (local or remote): breadcrumbs and actions (views/PaneHeader.tsx), sortable columns (name, size,
 * modified), hidden-files toggle, a virtualized grid (views/FileRows.tsx: a 20,000-entry folder scrolls smoothly),
 * multi-select (click, ctrl/cmd-click, shift-click, shift-arrows, ctrl-A), the keyboard of format/paneKeys.ts (arrows,
 * Page Up/Down, Home/End, Enter opens, Backspace or Alt+Up goes up and focuses the folder left, F2 renames, Delete
 * deletes, F5 refreshes, Ctrl+U uploads / Ctrl+D downloads the selection, Shift+F10 or the ContextMenu key opens the
 * menu), a context menu (views/paneMenu.ts), new folder / rename / delete with confirmation (views/PaneDialogs.tsx),
 * and drag and drop: rows drag to the other pane, the other pane's rows and (when `acceptOsFiles`) files from the OS
 * drop here.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FsEntry, Listing } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';
import { emptySelection, select, sortEntries, toggleSort, type Selection, type SortKey, type SortState } from '../format/entries';
import { isMacPlatform, moveTarget, paneCommand, paneKeyLabels, type PaneCommand } from '../format/paneKeys';
import { copyText } from './clipboard';
import { ContextMenu } from './ContextMenu';
import { FileRows, type RowHandlers } from './FileRows';
import { PaneDialogs, type PaneModal } from './PaneDialogs';
import { PaneHeader } from './PaneHeader';
import { paneMenuItems, type PaneTransfer } from './paneMenu';
import { usePaneListing } from './usePaneListing';
import { joinLocal, parentLocal } from '../../app/common/localPaths';

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
  /** Sets the pane's current folder: called with the resolved path once a folder was listed (never for a failure). */
  onNavigate: (path: string) => void;
  /** Items dragged from the other pane were dropped here, into `targetDir`. */
  onPaneDrop: (drag: PaneDrag, targetDir: string) => void;
  /** Files from the OS dropped here (only when `acceptOsFiles`). */
  onOsDrop?: (files: File[], targetDir: string) => void;
  acceptOsFiles?: boolean;
  /** Upload (local pane) or Download (remote pane) of the selection: button, menu item and key. */
  transfer?: PaneTransfer;
  onError: (message: string) => void;
  /** A line for the log (e.g. the path copied). */
  onInfo?: (message: string) => void;
}

/** Where the open context menu is, viewport px. */
interface MenuAt {
  x: number;
  y: number;
}

const join = joinLocal;
const parent = parentLocal;

/** The pane component. */
export function FilePane(props: FilePaneProps) {
  const { side, title, path, list, onNavigate, onError, transfer } = props;
  const { listing, loading, error, reload, navigate, showError } = usePaneListing(path, list, props.reloadToken, onNavigate);
  // The engine says which separator its file system uses; the prop is only a guess until the first listing.
  const sep = listing?.sep ?? props.sep;
  const mac = isMacPlatform();
  const keys = paneKeyLabels(mac);
  const [sort, setSort] = useState<SortState>({ key: 'name', dir: 'asc' });
  const [showHidden, setShowHidden] = useState(false);
  const [sel, setSel] = useState<Selection>(emptySelection);
  const [modal, setModal] = useState<PaneModal>(null);
  const [menu, setMenu] = useState<MenuAt | null>(null);
  const [dropActive, setDropActive] = useState(false);
  const gridRef = useRef<HTMLTableElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  /** After going up: the name of the folder we came from, focused once the parent's listing arrives. */
  const focusAfterLoad = useRef<{ name: string; dir: string } | null>(null);
  const label = `${title} files`;

  const cwd = listing?.path ?? path ?? '';
  useEffect(() => setSel(emptySelection), [cwd]);

  const entries = useMemo(() => (listing ? sortEntries(listing.entries, sort, showHidden) : []), [listing, sort, showHidden]);
  const order = useMemo(() => entries.map((e) => e.name), [entries]);
  const indexOf = useMemo(() => new Map(order.map((n, i) => [n, i])), [order]);
  const selectedEntries = useMemo(() => entries.filter((e) => sel.selected.has(e.name)), [entries, sel]);
  const focusIndex = sel.focus === null ? -1 : indexOf.get(sel.focus) ?? -1;

  useEffect(() => {
    const after = focusAfterLoad.current;
    if (after === null || !listing || listing.path !== after.dir) return;
    focusAfterLoad.current = null;
    if (indexOf.has(after.name)) setSel(select(emptySelection, order, after.name, 'replace'));
  }, [listing, order, indexOf]);

  const goUp = () => {
    if (path === null) return;
    const up = parent(cwd, sep);
    if (up === cwd) return;
    focusAfterLoad.current = { name: cwd.slice(up.length).replace(/^[/\\]+/, '').replace(/[/\\]+$/, ''), dir: up };
    void navigate(up);
  };

  /** Enter or a double-click: a folder (or a link to one) opens, a file (or a link to one) is transferred. */
  const open = (entry: FsEntry) => {
    if (entry.type === 'dir') void navigate(join(cwd, entry.name, sep));
    else if (entry.link?.broken) showError(`${join(cwd, entry.name, sep)}: broken link, ${entry.link.target || 'its target'} does not exist`);
    else if (entry.type === 'symlink') void navigate(join(cwd, entry.name, sep));
    else if (entry.type === 'file' && transfer) transferPaths([join(cwd, entry.name, sep)]);
  };

  const act = async (what: string, pending: Promise<Result<void>>) => {
    const r = await pending;
    if (!r.ok) onError(`${what}: ${r.error.message}`);
    await reload();
  };

  const transferPaths = (paths: string[]) => {
    if (!transfer || paths.length === 0) return;
    if (!transfer.run) {
      onError(`${transfer.label}: connect to a site first`);
      return;
    }
    transfer.run(paths);
  };
  const transferSelected = () => transferPaths(selectedEntries.map((e) => join(cwd, e.name, sep)));

  const copyPath = () => {
    const text = selectedEntries.length ? selectedEntries.map((e) => join(cwd, e.name, sep)).join('\n') : cwd;
    void copyText(text).then((ok) => (ok ? props.onInfo?.(`Copied ${text.includes('\n') ? `${selectedEntries.length} paths` : text}`) : onError('Copying the path failed: no clipboard')));
  };

  /** Opens the menu at the focused row (keyboard), else at the grid's top left. */
  const openMenuAtFocus = () => {
    const row = focusIndex >= 0 ? gridRef.current?.querySelector<HTMLElement>(`tbody tr[data-index="${focusIndex}"]`) : null;
    const box = (row ?? gridRef.current)?.getBoundingClientRect();
    if (box) setMenu({ x: box.left + 24, y: row ? box.bottom : box.top + 30 });
  };

  const closeMenu = useCallback(() => {
    setMenu(null);
    gridRef.current?.focus();
  }, []);

  const run = (c: PaneCommand) => {
    switch (c.kind) {
      case 'move': {
        if (order.length === 0) return;
        const next = order[moveTarget(order.length, focusIndex, c.delta)];
        setSel(select(sel, order, next, c.extend ? 'range' : 'replace'));
        return;
      }
      case 'open': {
        const entry = focusIndex >= 0 ? entries[focusIndex] : undefined;
        if (entry) open(entry);
        return;
      }
      case 'up': return goUp();
      case 'rename': if (selectedEntries.length === 1) setModal({ kind: 'rename', entry: selectedEntries[0] }); return;
      case 'delete': if (selectedEntries.length > 0) setModal({ kind: 'delete', entries: selectedEntries }); return;
      case 'refresh': return void reload();
      case 'selectAll': return setSel({ selected: new Set(order), anchor: order[0] ?? null, focus: sel.focus ?? order[0] ?? null });
      case 'toggle': if (sel.focus !== null) setSel(select(sel, order, sel.focus, 'toggle')); return;
      case 'menu': return openMenuAtFocus();
      case 'transfer': return transferSelected();
    }
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (modal || menu) return;
    const c = paneCommand(e, side, mac);
    if (!c) return;
    e.preventDefault();
    run(c);
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

  const handlers: RowHandlers = {
    onClick: (entry, e) => {
      setSel(select(sel, order, entry.name, e.shiftKey ? 'range' : e.ctrlKey || e.metaKey ? 'toggle' : 'replace'));
      gridRef.current?.focus();
    },
    onDoubleClick: open,
    onContextMenu: (entry, e) => {
      e.preventDefault();
      e.stopPropagation();
      // File-manager style: a right-click on a row outside the selection selects that row alone.
      if (!sel.selected.has(entry.name)) setSel(select(sel, order, entry.name, 'replace'));
      gridRef.current?.focus();
      setMenu({ x: e.clientX, y: e.clientY });
    },
    onDragStart: (entry, e) => dragStart(e, entry),
    onDirDragOver: (e) => {
      if (canAccept(e)) {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }
    },
    onDirDrop: (entry, e) => drop(e, join(cwd, entry.name, sep)),
  };

  const sortHeader = (key: SortKey, text: string, className: string) => (
    <th className={className} aria-sort={sort.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" onClick={() => setSort(toggleSort(sort, key))} aria-label={`Sort by ${text}`}>
        {text} {sort.key === key ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
      </button>
    </th>
  );

  const menuItems = paneMenuItems({
    selected: selectedEntries, transfer, open, transferSelected, keys,
    rename: (entry) => setModal({ kind: 'rename', entry }),
    remove: (doomed) => setModal({ kind: 'delete', entries: doomed }),
    mkdir: () => setModal({ kind: 'mkdir' }),
    copyPath,
    refresh: () => void reload(),
  });

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
      <PaneHeader
        title={title}
        cwd={path === null ? null : cwd}
        sep={sep}
        keys={keys}
        count={listing ? entries.length : null}
        selected={selectedEntries}
        showHidden={showHidden}
        transfer={transfer}
        onNavigate={(p) => void navigate(p)}
        onUp={goUp}
        onRefresh={() => void reload()}
        onTransfer={transferSelected}
        onMkdir={() => setModal({ kind: 'mkdir' })}
        onRename={(entry) => setModal({ kind: 'rename', entry })}
        onDelete={(doomed) => setModal({ kind: 'delete', entries: doomed })}
        onShowHidden={setShowHidden}
      />
      {path !== null && error && (
        <p className={listing ? 'pane-error error-text' : 'empty error-text'} role="alert" aria-label={`${title} error`}>
          {error}
        </p>
      )}
      <div
        className="grid-wrap"
        ref={scrollRef}
        onContextMenu={(e) => {
          if (path === null || !listing) return;
          e.preventDefault();
          setSel(emptySelection);
          setMenu({ x: e.clientX, y: e.clientY });
        }}
      >
        {path === null ? (
          <p className="empty">{props.placeholder}</p>
        ) : !listing ? null : (
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
            <FileRows entries={entries} sel={sel} scrollRef={scrollRef} focusIndex={focusIndex} handlers={handlers} />
          </table>
        )}
        {path !== null && listing && entries.length === 0 && <p className="empty">This folder is empty.</p>}
      </div>

      {menu && <ContextMenu label={`${title} files menu`} x={menu.x} y={menu.y} items={menuItems} onClose={closeMenu} />}
      <PaneDialogs
        modal={modal}
        side={side}
        title={title}
        names={order}
        onCancel={() => setModal(null)}
        onMkdir={(name) => {
          setModal(null);
          void act('Creating the folder failed', props.mkdir(join(cwd, name, sep)));
        }}
        onRename={(entry, name) => {
          setModal(null);
          if (name !== entry.name) void act('Renaming failed', props.rename(join(cwd, entry.name, sep), join(cwd, name, sep)));
        }}
        onDelete={(doomed) => {
          setModal(null);
          setSel(emptySelection);
          void (async () => {
            for (const entry of doomed) {
              const r = await props.remove(join(cwd, entry.name, sep), entry.type === 'dir');
              if (!r.ok) onError(`Deleting ${entry.name} failed: ${r.error.message}`);
            }
            await reload();
            gridRef.current?.focus();
          })();
        }}
      />
    </section>
  );
}
