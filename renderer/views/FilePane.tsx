/**
 * One file pane (local or remote): breadcrumbs and actions (views/PaneHeader.tsx), sortable columns (name, size,
 * modified), hidden-files toggle, a virtualized grid (views/FileRows.tsx: a 20,000-entry folder scrolls smoothly),
 * multi-select (click, ctrl/cmd-click, shift-click, shift-arrows, ctrl-A), the keyboard of format/paneKeys.ts (arrows,
 * Page Up/Down, Home/End, Enter opens, Backspace or Alt+Up goes up and focuses the folder left, F2 renames, F4 edits
 * (remote), Delete deletes, F5 refreshes, Ctrl+U uploads / Ctrl+D downloads the selection, Shift+F10 or the
 * ContextMenu key opens the menu), a context menu (views/paneMenu.ts), new folder / rename / delete with confirmation
 * (views/PaneDialogs.tsx), and drag and drop: rows drag to the other pane, the other pane's rows and (when
 * `acceptOsFiles`) files from the OS drop here.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FsEntry, Listing } from '../../app/common/ipc/contract';
import { emptySelection, select, sortEntries, type Selection, type SortState } from '../format/entries';
import { isMacPlatform, paneCommand, paneKeyLabels } from '../format/paneKeys';
import { copyText } from './clipboard';
import { ContextMenu } from './ContextMenu';
import type { RowHandlers } from './FileRows';
import { PaneDialogs, type PaneModal } from './PaneDialogs';
import { PaneGrid } from './PaneGrid';
import { PaneError } from './PaneError';
import { PaneHeader } from './PaneHeader';
import { isEditable, paneMenuItems, type PaneTransfer } from './paneMenu';
import { runPaneCommand } from './paneCommands';
import { usePaneDragDrop } from './usePaneDragDrop';
import { usePaneEdits } from './usePaneEdits';
import { usePaneListing } from './usePaneListing';
import { usePaneNavigation } from './usePaneNavigation';
import { usePaneFilter } from './usePaneFilter';
import { usePaneFileOps } from './usePaneFileOps';
import { useDragOut } from './useDragOut';
import { usePaneReveal } from './usePaneReveal';
import { keepVisible } from '../format/paneFilter';
import { joinLocal, parentLocal } from '../../app/common/localPaths';
import { isDifference } from '../../app/common/folderCompare';
import type { PaneCompare } from './useFolderCompare';
import type { FilePaneProps } from './filePaneProps';

export { PANE_DRAG_TYPE, type PaneDrag } from './usePaneDragDrop';

export type { FilePaneProps } from './filePaneProps';

/** Where the open context menu is, viewport px. */
interface MenuAt {
  x: number;
  y: number;
}

const join = joinLocal;
const parent = parentLocal;

/**
 * Going up a folder: the folder we came from is focused once the parent's listing arrives, so Backspace and Enter
 * walk back and forth.
 */
function useGoUp(o: {
  path: string | null;
  cwd: string;
  sep: '/' | '\\';
  listing: Listing | null;
  order: readonly string[];
  indexOf: Map<string, number>;
  navigate: (p: string) => Promise<unknown>;
  setSel: (s: Selection) => void;
}) {
  const { listing, order, indexOf, setSel } = o;
  const focusAfterLoad = useRef<{ name: string; dir: string } | null>(null);
  useEffect(() => {
    const after = focusAfterLoad.current;
    if (after === null || !listing || listing.path !== after.dir) return;
    focusAfterLoad.current = null;
    if (indexOf.has(after.name)) setSel(select(emptySelection, order, after.name, 'replace'));
  }, [listing, order, indexOf, setSel]);
  return () => {
    if (o.path === null) return;
    const up = parent(o.cwd, o.sep);
    if (up === o.cwd) return;
    const name = o.cwd
      .slice(up.length)
      .replace(/^[/\\]+/, '')
      .replace(/[/\\]+$/, '');
    focusAfterLoad.current = { name, dir: up };
    void o.navigate(up);
  };
}

/**
 * The pane's sorted entries (those the filter `matches`), their order and the selection over them (cleared when the
 * folder changes, kept to the rows shown).
 */
function usePaneEntries(
  listing: Listing | null,
  cwd: string,
  sort: SortState,
  showHidden: boolean,
  matches: (name: string) => boolean,
) {
  const [sel, setSel] = useState<Selection>(emptySelection);
  useEffect(() => setSel(emptySelection), [cwd]);
  const listed = useMemo(
    () => (listing ? sortEntries(listing.entries, sort, showHidden) : []),
    [listing, sort, showHidden],
  );
  const entries = useMemo(() => listed.filter((e) => matches(e.name)), [listed, matches]);
  const order = useMemo(() => entries.map((e) => e.name), [entries]);
  // The filter hides rows: the selection keeps only the rows shown (what Delete or Download would act on).
  useEffect(() => setSel((s) => keepVisible(s, order)), [order]);
  const indexOf = useMemo(() => new Map(order.map((n, i) => [n, i])), [order]);
  const selectedEntries = useMemo(() => entries.filter((e) => sel.selected.has(e.name)), [entries, sel]);
  const focusIndex = sel.focus === null ? -1 : (indexOf.get(sel.focus) ?? -1);
  return { sel, setSel, entries, total: listed.length, order, indexOf, selectedEntries, focusIndex };
}

/** What opening, transferring and copying do in a pane. */
function usePaneOpen(o: {
  cwd: string;
  sep: '/' | '\\';
  transfer?: PaneTransfer;
  selectedEntries: readonly FsEntry[];
  navigate: (p: string) => Promise<unknown>;
  showError: (m: string) => void;
  onError: (m: string) => void;
  onInfo?: (m: string) => void;
}) {
  const { cwd, sep, transfer, selectedEntries, onError } = o;
  const transferPaths = (paths: string[]) => {
    if (!transfer || paths.length === 0) return;
    if (!transfer.run) {
      onError(`${transfer.label}: connect to a site first`);
      return;
    }
    transfer.run(paths);
  };
  /** Enter or a double-click: a folder (or a link to one) opens, a file (or a link to one) is transferred. */
  const open = (entry: FsEntry) => {
    const target = join(cwd, entry.name, sep);
    if (entry.type === 'dir') void o.navigate(target);
    else if (entry.link?.broken) {
      o.showError(`${target}: broken link, ${entry.link.target || 'its target'} does not exist`);
    } else if (entry.type === 'symlink') void o.navigate(target);
    else if (entry.type === 'file' && transfer) transferPaths([target]);
  };
  const transferSelected = () => transferPaths(selectedEntries.map((e) => join(cwd, e.name, sep)));
  const copyPath = () => {
    const text = selectedEntries.length ? selectedEntries.map((e) => join(cwd, e.name, sep)).join('\n') : cwd;
    void copyText(text).then((ok) =>
      ok
        ? o.onInfo?.(`Copied ${text.includes('\n') ? `${selectedEntries.length} paths` : text}`)
        : onError('Copying the path failed: no clipboard'),
    );
  };
  return { open, transferSelected, copyPath };
}

/** The pane's context menu: where it is open, and opening it at the focused row (keyboard). */
function usePaneMenu(gridRef: React.RefObject<HTMLTableElement | null>, focusIndex: number) {
  const [menu, setMenu] = useState<MenuAt | null>(null);
  /** Opens the menu at the focused row (keyboard), else at the grid's top left. */
  const openMenuAtFocus = () => {
    const row =
      focusIndex >= 0 ? gridRef.current?.querySelector<HTMLElement>(`tbody tr[data-index="${focusIndex}"]`) : null;
    const box = (row ?? gridRef.current)?.getBoundingClientRect();
    if (box) setMenu({ x: box.left + 24, y: row ? box.bottom : box.top + 30 });
  };
  const closeMenu = useCallback(() => {
    setMenu(null);
    gridRef.current?.focus();
  }, [gridRef]);
  return { menu, setMenu, openMenuAtFocus, closeMenu };
}

/** What the grid's rows do with the pointer: select, open, the menu, and drag and drop. */
function rowHandlers(o: {
  sel: Selection;
  order: readonly string[];
  setSel: (s: Selection) => void;
  gridRef: React.RefObject<HTMLTableElement | null>;
  open: (entry: FsEntry) => void;
  setMenu: (m: MenuAt) => void;
  dnd: ReturnType<typeof usePaneDragDrop>;
  dirPath: (name: string) => string;
  isCut?: (name: string) => boolean;
}): RowHandlers {
  const { sel, order, setSel, gridRef, dnd } = o;
  return {
    onClick: (entry, e) => {
      setSel(select(sel, order, entry.name, e.shiftKey ? 'range' : e.ctrlKey || e.metaKey ? 'toggle' : 'replace'));
      gridRef.current?.focus();
    },
    onDoubleClick: o.open,
    onContextMenu: (entry, e) => {
      e.preventDefault();
      e.stopPropagation();
      // File-manager style: a right-click on a row outside the selection selects that row alone.
      if (!sel.selected.has(entry.name)) setSel(select(sel, order, entry.name, 'replace'));
      gridRef.current?.focus();
      o.setMenu({ x: e.clientX, y: e.clientY });
    },
    onDragStart: (entry, e) => dnd.dragStart(e, entry),
    onDirDragOver: dnd.dirDragOver,
    onDirDrop: (entry, e) => dnd.drop(e, o.dirPath(entry.name), true),
    isCut: o.isCut,
  };
}

/** Everything a pane holds: its listing, sorted entries and selection, dialog, menu, drag and drop and edits. */
function useFilePane(props: FilePaneProps) {
  const { path, onError, transfer } = props;
  const { listing, loading, error, reload, navigate, showError } = usePaneListing(
    path,
    props.list,
    props.reloadToken,
    props.onNavigate,
  );
  // The engine says which separator its file system uses; the prop is only a guess until the first listing.
  const sep = listing?.sep ?? props.sep;
  const [sort, setSort] = useState<SortState>({ key: 'name', dir: 'asc' });
  const [showHidden, setShowHidden] = useState(false);
  const [modal, setModal] = useState<PaneModal>(null);
  const gridRef = useRef<HTMLTableElement>(null);
  const cwd = listing?.path ?? path ?? '';
  const focusGrid = useCallback(() => gridRef.current?.focus(), []);
  const filter = usePaneFilter(cwd, focusGrid);
  const matches = useCompareFilter(filter.matches, props.compare);
  const { onListing } = props;
  useEffect(() => onListing?.(path === null ? null : listing), [onListing, path, listing]);
  const entries = usePaneEntries(listing, cwd, sort, showHidden, matches);
  const { sel, setSel, order, indexOf, selectedEntries, focusIndex } = entries;
  const goUp = useGoUp({ path, cwd, sep, listing, order, indexOf, navigate, setSel });
  usePaneReveal(props.reveal, listing, order, setSel);
  const opening = usePaneOpen({
    cwd,
    sep,
    transfer,
    selectedEntries,
    navigate,
    showError,
    onError,
    onInfo: props.onInfo,
  });
  const menu = usePaneMenu(gridRef, focusIndex);
  const nav = usePaneNavigation(path === null ? null : (listing?.path ?? null), navigate, focusGrid);
  const files = usePaneFileOps({ ...props, ops: props.fileOps, cwd, sep, selectedEntries, reload, setModal });
  const onMove = props.fileOps && files.moveInto;
  const out = useDragOut(props.dragOut);
  const dnd = usePaneDragDrop({ ...props, cwd, sep, sel, order, setSel, onMove, onDragOutStart: out.started });
  const edits = usePaneEdits({ ...props, cwd, sep, reload, setModal, setSel, gridRef });
  return {
    listing,
    loading,
    error,
    reload,
    navigate,
    sep,
    sort,
    setSort,
    showHidden,
    setShowHidden,
    modal,
    setModal,
    gridRef,
    cwd,
    ...entries,
    goUp,
    ...opening,
    ...menu,
    dnd,
    edits,
    nav,
    filter,
    files,
  };
}

type PaneState = ReturnType<typeof useFilePane>;

/** The pane filter's test, narrowed to Compare's differences when "differences only" is on. */
function useCompareFilter(matches: (name: string) => boolean, compare: PaneCompare | undefined) {
  const differencesOnly = compare?.differencesOnly === true;
  const marks = compare?.marks;
  return useMemo(() => {
    if (!differencesOnly || !marks) return matches;
    return (name: string) => matches(name) && isDifference(marks.get(name));
  }, [matches, differencesOnly, marks]);
}

/** What the pane's keys, rows, header buttons and menu run. */
function paneActions(props: FilePaneProps, s: PaneState, mac: boolean) {
  const { transfer } = props;
  const { setModal, menu } = s;
  const keys = paneKeyLabels(mac);
  const refresh = () => void s.reload();
  const toRename = (entry: FsEntry) => setModal({ kind: 'rename', entry });
  const toDelete = (doomed: FsEntry[]) => setModal({ kind: 'delete', entries: doomed });
  const properties =
    props.properties && ((entry: FsEntry) => props.properties?.(join(s.cwd, entry.name, s.sep), entry));
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (s.modal || menu) return;
    if (properties && e.altKey && e.key === 'Enter' && s.selectedEntries.length === 1) {
      e.preventDefault();
      return properties(s.selectedEntries[0]);
    }
    const c = paneCommand(e, props.side, mac);
    if (!c) return;
    e.preventDefault();
    runPaneCommand(c, { ...s, ...s.nav, ...s.filter, reload: refresh, editSelected, ...s.files, find: props.find });
  };
  const { edit } = props;
  const editSelected =
    edit && isEditable(s.selectedEntries) ? () => edit(join(s.cwd, s.selectedEntries[0].name, s.sep)) : undefined;
  const handlers = rowHandlers({ ...s, dirPath: (n) => join(s.cwd, n, s.sep), isCut: s.files.isCut });
  const menuItems = paneMenuItems({
    selected: s.selectedEntries,
    transfer,
    open: s.open,
    transferSelected: s.transferSelected,
    keys,
    rename: toRename,
    remove: toDelete,
    mkdir: () => setModal({ kind: 'mkdir' }),
    copyPath: s.copyPath,
    refresh,
    edit: edit ? () => editSelected?.() : undefined,
    properties,
    fileOps: props.fileOps && {
      ...s.files,
      newFile: () => setModal({ kind: 'newFile' }),
      newSymlink: () => setModal({ kind: 'newSymlink' }),
    },
    find: props.find,
  });
  const backgroundMenu = (x: number, y: number) => {
    s.setSel(emptySelection);
    s.setMenu({ x, y });
  };
  return { keys, refresh, toRename, toDelete, onKeyDown, handlers, menuItems, backgroundMenu };
}

/** The pane component. */
export function FilePane(props: FilePaneProps) {
  const { side, title, path, transfer } = props;
  const s = useFilePane(props);
  const { listing, cwd, sep, entries, sel, setModal, dnd } = s;
  const a = paneActions(props, s, isMacPlatform());
  const scrollRef = useRef<HTMLDivElement>(null);
  return (
    <section
      className={`pane ${dnd.dropActive ? 'drop-target' : ''}`}
      aria-label={`${title} pane`}
      data-path={path === null ? '' : cwd}
      data-loading={s.loading ? 'true' : 'false'}
      {...dnd.paneDropProps}
    >
      <PaneHeader
        title={title}
        cwd={path === null ? null : cwd}
        sep={sep}
        keys={a.keys}
        count={listing ? entries.length : null}
        total={s.total}
        filter={s.filter}
        selected={s.selectedEntries}
        showHidden={s.showHidden}
        transfer={transfer}
        nav={s.nav}
        onNavigate={(p) => void s.navigate(p)}
        onUp={s.goUp}
        onRefresh={a.refresh}
        onTransfer={s.transferSelected}
        onMkdir={() => setModal({ kind: 'mkdir' })}
        onRename={a.toRename}
        onDelete={a.toDelete}
        onShowHidden={s.setShowHidden}
        tools={props.headerTools}
      />
      {path !== null && s.error && <PaneError title={title} listed={!!listing} error={s.error} />}
      <PaneGrid
        empty={path === null}
        placeholder={props.placeholder}
        listed={!!listing}
        label={`${title} files`}
        ownership={side === 'remote'}
        marks={props.compare?.marks}
        entries={entries}
        sel={sel}
        sort={s.sort}
        onSort={s.setSort}
        focusIndex={s.focusIndex}
        handlers={a.handlers}
        gridRef={s.gridRef}
        scrollRef={scrollRef}
        onKeyDown={a.onKeyDown}
        onBackgroundMenu={a.backgroundMenu}
      />
      {s.menu && (
        <ContextMenu
          label={`${title} files menu`}
          x={s.menu.x}
          y={s.menu.y}
          items={a.menuItems}
          onClose={s.closeMenu}
        />
      )}
      <PaneDialogs
        modal={s.modal}
        side={side}
        title={title}
        names={s.order}
        onCancel={() => setModal(null)}
        sep={sep}
        {...s.edits}
        onNewFile={s.files.onNewFile}
        onNewSymlink={s.files.onNewSymlink}
      />
    </section>
  );
}
