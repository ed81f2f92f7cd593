/**
 * What a file pane does for one keyboard command of format/paneKeys.ts (arrows move or extend the selection, Enter
 * opens, F2 renames, Delete deletes, …), given the pane's state and its actions.
 */
import type { FsEntry } from '../../app/common/ipc/contract';
import { select, type Selection } from '../format/entries';
import { moveTarget, type PaneCommand } from '../format/paneKeys';
import type { PaneModal } from './PaneDialogs';

/** The pane's state and actions a command may use. */
export interface PaneCommandContext {
  entries: readonly FsEntry[];
  order: readonly string[];
  sel: Selection;
  /** Index in `entries` of the focused entry, or -1. */
  focusIndex: number;
  selectedEntries: readonly FsEntry[];
  setSel: (s: Selection) => void;
  setModal: (m: PaneModal) => void;
  open: (entry: FsEntry) => void;
  goUp: () => void;
  reload: () => void;
  openMenuAtFocus: () => void;
  transferSelected: () => void;
  /** Edits the one selected file (remote pane): absent where the pane cannot edit. */
  editSelected?: () => void;
  back: () => void;
  forward: () => void;
  editPath: () => void;
  /** Opens the remote find (remote pane): absent where the pane has none. */
  find?: () => void;
  /** Types `text` at the end of the pane's filter (and puts the focus in its field). */
  typeFilter: (text: string) => void;
  clearFilter: () => void;
  /** Ctrl+X / Ctrl+V: the selection cut, pasted (moved) into the pane's folder; absent where the pane cannot move. */
  cut?: () => void;
  paste?: () => void;
}

/** Runs command `c` in the pane described by `x`. */
export function runPaneCommand(c: PaneCommand, x: PaneCommandContext): void {
  const { order, sel } = x;
  switch (c.kind) {
    case 'move': {
      if (order.length === 0) return;
      const next = order[moveTarget(order.length, x.focusIndex, c.delta)];
      x.setSel(select(sel, order, next, c.extend ? 'range' : 'replace'));
      return;
    }
    case 'open': {
      const entry = x.focusIndex >= 0 ? x.entries[x.focusIndex] : undefined;
      if (entry) x.open(entry);
      return;
    }
    case 'up':
      return x.goUp();
    case 'rename':
      if (x.selectedEntries.length === 1) x.setModal({ kind: 'rename', entry: x.selectedEntries[0] });
      return;
    case 'delete':
      if (x.selectedEntries.length > 0) x.setModal({ kind: 'delete', entries: [...x.selectedEntries] });
      return;
    case 'refresh':
      return x.reload();
    case 'selectAll':
      return x.setSel({ selected: new Set(order), anchor: order[0] ?? null, focus: sel.focus ?? order[0] ?? null });
    case 'toggle':
      if (sel.focus !== null) x.setSel(select(sel, order, sel.focus, 'toggle'));
      return;
    case 'menu':
      return x.openMenuAtFocus();
    case 'transfer':
      return x.transferSelected();
    case 'edit':
      return x.editSelected?.();
    case 'back':
      return x.back();
    case 'forward':
      return x.forward();
    case 'editPath':
      return x.editPath();
    case 'find':
      return x.find?.();
    case 'filter':
      return x.typeFilter(c.text);
    case 'clearFilter':
      return x.clearFilter();
    case 'cut':
      return x.cut?.();
    case 'paste':
      return x.paste?.();
  }
}
