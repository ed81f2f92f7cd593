/**
 * The items of a file pane's context menu, FileZilla's order: Open (a folder), Upload or Download, Edit (remote: one
 * file), Open with default application (local: one file), Rename, Delete, Cut, Paste, Duplicate, New folder, New
 * file, New symlink, Copy path, Refresh. Each is disabled where it cannot act (nothing selected, the other side not
 * connected, a folder or several files to edit, nothing cut), and shows its key.
 */
import type { FsEntry } from '../../app/common/ipc/contract';
import { paneKeyLabels, type PaneKeyLabels } from '../format/paneKeys';
import type { MenuItem } from './ContextMenu';

/** A pane's transfer: its label and key, and the run (undefined while the other side cannot take it). */
export interface PaneTransfer {
  label: 'Upload' | 'Download';
  /** Its key as the platform names it (paneKeyLabels: `Ctrl+U`, `⌘U`). */
  shortcut: string;
  run?: (paths: string[]) => void;
}

/** What the menu acts on and how. */
export interface PaneMenuInput {
  /** The selected entries (a right-clicked row is selected first); empty for the folder's empty area. */
  selected: readonly FsEntry[];
  transfer?: PaneTransfer;
  open: (entry: FsEntry) => void;
  transferSelected: () => void;
  rename: (entry: FsEntry) => void;
  remove: (entries: FsEntry[]) => void;
  mkdir: () => void;
  copyPath: () => void;
  refresh: () => void;
  /** Edits the one selected file in a local editor (remote pane only; F4). */
  edit?: () => void;
  /** The keys shown (default: not macOS's). */
  keys?: PaneKeyLabels;
  /** The remote pane's Properties dialog of one entry (#26 item 2); absent: no such item. */
  properties?: (entry: FsEntry) => void;
  /** The remote find from this folder (#26 item 5); absent: no such item. */
  find?: () => void;
  /** Cut, paste, duplicate, new file, new symlink, open with (#26 item 6); absent: no such items. */
  fileOps?: PaneMenuFileOps;
}

/** The file operations' menu entries. */
export interface PaneMenuFileOps {
  cut: () => void;
  /** Undefined while nothing is cut. */
  paste?: () => void;
  duplicate: () => void;
  newFile: () => void;
  newSymlink: () => void;
  /** The local pane's "Open with default application" of one file. */
  openWith?: (entry: FsEntry) => void;
}

/** Cut, Paste and Duplicate after Delete. */
function editItems(m: PaneMenuInput, f: PaneMenuFileOps, keys: PaneKeyLabels): MenuItem[] {
  const none = m.selected.length === 0;
  return [
    { id: 'cut', label: 'Cut', shortcut: keys.cut, disabled: none, run: f.cut },
    { id: 'paste', label: 'Paste', shortcut: keys.paste, disabled: !f.paste, run: () => f.paste?.() },
    { id: 'duplicate', label: 'Duplicate', disabled: none, run: f.duplicate },
  ];
}

/** The menu's items for the current selection. */
export function paneMenuItems(m: PaneMenuInput): MenuItem[] {
  const one = m.selected.length === 1 ? m.selected[0] : undefined;
  const items: MenuItem[] = [];
  const keys = m.keys ?? paneKeyLabels(false);
  if (one && (one.type === 'dir' || one.type === 'symlink'))
    items.push({ id: 'open', label: 'Open', shortcut: 'Enter', run: () => m.open(one) });
  if (m.transfer) {
    items.push({
      id: 'transfer',
      label: m.transfer.label,
      shortcut: m.transfer.shortcut,
      disabled: m.selected.length === 0 || !m.transfer.run,
      run: m.transferSelected,
    });
  }
  if (m.edit) items.push({ id: 'edit', label: 'Edit', shortcut: 'F4', disabled: !isEditable(m.selected), run: m.edit });
  const f = m.fileOps;
  const openWith = f?.openWith;
  if (openWith) {
    items.push({
      id: 'openWith',
      label: 'Open with default application',
      disabled: !isEditable(m.selected),
      run: () => one && openWith(one),
    });
  }
  items.push(
    {
      id: 'rename',
      label: 'Rename',
      shortcut: 'F2',
      disabled: !one,
      run: () => one && m.rename(one),
      separator: items.length > 0,
    },
    {
      id: 'delete',
      label: 'Delete',
      shortcut: keys.delete,
      disabled: m.selected.length === 0,
      run: () => m.remove([...m.selected]),
    },
    ...(f ? editItems(m, f, keys) : []),
    { id: 'mkdir', label: 'New folder', run: m.mkdir, separator: true },
    ...(f
      ? [
          { id: 'newFile', label: 'New file', run: f.newFile },
          { id: 'newSymlink', label: 'New symlink…', run: f.newSymlink },
        ]
      : []),
    { id: 'copy', label: 'Copy path', run: m.copyPath },
    { id: 'refresh', label: 'Refresh', shortcut: keys.refresh, run: m.refresh },
  );
  if (m.find) items.push({ id: 'find', label: 'Find…', shortcut: keys.find, run: m.find });
  const { properties } = m;
  if (properties) {
    items.push({
      id: 'properties',
      label: 'Properties…',
      shortcut: 'Alt+Enter',
      disabled: !one,
      run: () => one && properties(one),
      separator: true,
    });
  }
  return items;
}

/** Edit acts on exactly one file (a link to a file is edited through its target); a folder or several: disabled. */
export function isEditable(selected: readonly FsEntry[]): boolean {
  return selected.length === 1 && selected[0].type === 'file';
}
