/**
 * The file panes' keyboard, as one pure table from a key press to a command (unit-tested under node:test): arrows /
 * Home / End move (with Shift: extend the selection), Enter opens, Backspace or Alt+Up goes up, Alt+← / Alt+→ go back /
 * forward in the pane's history, Ctrl+L types a path, F2 renames, Delete deletes (after a confirmation), F4 edits a
 * remote file in a local editor, F3 or Ctrl+F (⌘F) opens the remote find, F5 refreshes, Ctrl+A selects all, Space
 * toggles, Shift+F10 or the ContextMenu key opens the context menu, a printable character types into the pane's filter
 * (Escape clears it), Ctrl+U uploads (local pane) / Ctrl+D downloads (remote pane) the selection, and Ctrl+X cuts and
 * Ctrl+V pastes (a move into the pane's folder) — FileZilla's and WinSCP's keys where they have one. On macOS the
 * Finder's: ⌘↑ goes up, ⌘↓ opens, ⌘[ / ⌘] go back / forward, ⌘L types a path, ⌘⌫ deletes, ⌘R refreshes, ⌘U / ⌘D
 * transfer, ⌘X / ⌘V cut and paste, and ⌫ alone does nothing (it is the Mac's only delete key, never "up");
 * {@link paneKeyLabels} names the keys for each.
 */

/** The keys the buttons and the context menu name, by platform. */
export interface PaneKeyLabels {
  up: string;
  delete: string;
  /** The delete key in a button's tooltip (`Del`). */
  deleteShort: string;
  refresh: string;
  upload: string;
  download: string;
  back: string;
  forward: string;
  /** Opens the typed path. */
  path: string;
  cut: string;
  paste: string;
  /** Opens the remote find. */
  find: string;
}

/** The shortcut labels for macOS (⌘ glyphs) or elsewhere (Ctrl, Backspace). */
export function paneKeyLabels(mac: boolean): PaneKeyLabels {
  return mac
    ? {
        up: '⌘↑',
        delete: '⌘⌫',
        deleteShort: '⌘⌫',
        refresh: '⌘R',
        upload: '⌘U',
        download: '⌘D',
        back: '⌘[',
        forward: '⌘]',
        path: '⌘L',
        cut: '⌘X',
        paste: '⌘V',
        find: '⌘F',
      }
    : {
        up: 'Backspace, Alt+Up',
        delete: 'Delete',
        deleteShort: 'Del',
        refresh: 'F5',
        upload: 'Ctrl+U',
        download: 'Ctrl+D',
        back: 'Alt+←',
        forward: 'Alt+→',
        path: 'Ctrl+L',
        cut: 'Ctrl+X',
        paste: 'Ctrl+V',
        find: 'F3, Ctrl+F',
      };
}

/** True on a Mac, from the renderer's navigator (`MacIntel` also on Apple silicon). */
export function isMacPlatform(
  nav: { platform?: string } | undefined = (globalThis as { navigator?: { platform?: string } }).navigator,
): boolean {
  return /^Mac/.test(nav?.platform ?? '');
}

/** The parts of a KeyboardEvent the table reads. */
export interface PaneKey {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  shiftKey?: boolean;
  altKey?: boolean;
}

/** What a key press asks the pane to do. */
export type PaneCommand =
  | { kind: 'move'; delta: number; extend: boolean }
  | { kind: 'open' }
  | { kind: 'up' }
  | { kind: 'rename' }
  | { kind: 'delete' }
  | { kind: 'refresh' }
  | { kind: 'selectAll' }
  | { kind: 'toggle' }
  | { kind: 'menu' }
  | { kind: 'transfer' }
  | { kind: 'edit' }
  | { kind: 'back' }
  | { kind: 'forward' }
  | { kind: 'editPath' }
  | { kind: 'find' }
  | { kind: 'filter'; text: string }
  | { kind: 'clearFilter' }
  | { kind: 'cut' }
  | { kind: 'paste' };

/** Rows a Page Up / Page Down moves. */
export const PAGE_ROWS = 20;

/** Moves: a row, a page, or to either end (a delta past the list is clamped by moveFocus). */
const MOVES: Readonly<Record<string, number>> = {
  ArrowDown: 1,
  ArrowUp: -1,
  PageDown: PAGE_ROWS,
  PageUp: -PAGE_ROWS,
  Home: -Infinity,
  End: Infinity,
};

/**
 * The command of a key press in a pane, or null when the pane leaves it alone.
 * @param side the pane: Ctrl+U transfers from the local pane (upload), Ctrl+D from the remote one (download)
 * @param mac macOS's keys ({@link isMacPlatform})
 */
export function paneCommand(e: PaneKey, side: 'local' | 'remote', mac = false): PaneCommand | null {
  const mod = !!(e.ctrlKey || e.metaKey);
  const k = e.key;
  if (mac) {
    const mine = macCommand(e);
    if (mine !== undefined) return mine;
  }
  if (!e.altKey && !mod && k in MOVES) return { kind: 'move', delta: MOVES[k], extend: !!e.shiftKey };
  if (e.altKey && !mod && !e.shiftKey) {
    if (k === 'ArrowUp') return { kind: 'up' };
    if (k === 'ArrowLeft') return { kind: 'back' };
    if (k === 'ArrowRight') return { kind: 'forward' };
  }
  if (e.altKey) return null;
  if (mod) {
    const letter = k.toLowerCase();
    if (letter === 'a') return { kind: 'selectAll' };
    if (letter === 'l') return { kind: 'editPath' };
    if (letter === 'x' && !e.shiftKey) return { kind: 'cut' };
    if (letter === 'v' && !e.shiftKey) return { kind: 'paste' };
    if (letter === 'f') return side === 'remote' ? { kind: 'find' } : null;
    if ((letter === 'u' && side === 'local') || (letter === 'd' && side === 'remote')) return { kind: 'transfer' };
    return null;
  }
  if (k === 'ContextMenu' || (k === 'F10' && e.shiftKey)) return { kind: 'menu' };
  // Type-to-filter: a printable character starts (or extends) the pane's filter; Space stays "toggle".
  if ([...k].length === 1 && k !== ' ') return { kind: 'filter', text: k };
  if (k === 'Escape' && !e.shiftKey) return { kind: 'clearFilter' };
  if (e.shiftKey && k !== ' ') return null;
  switch (k) {
    case 'Enter':
      return { kind: 'open' };
    case 'Backspace':
      return { kind: 'up' };
    case 'F2':
      return { kind: 'rename' };
    case 'Delete':
      return { kind: 'delete' };
    case 'F4':
      return side === 'remote' ? { kind: 'edit' } : null;
    case 'F3':
      return side === 'remote' ? { kind: 'find' } : null;
    case 'F5':
      return { kind: 'refresh' };
    case ' ':
      return { kind: 'toggle' };
    default:
      return null;
  }
}

/** The Finder's keys that differ from the table: undefined where the common table decides. */
function macCommand(e: PaneKey): PaneCommand | null | undefined {
  if (e.altKey || e.shiftKey) return undefined;
  if (e.metaKey) {
    if (e.key === 'ArrowUp') return { kind: 'up' };
    if (e.key === 'ArrowDown') return { kind: 'open' };
    if (e.key === 'Backspace') return { kind: 'delete' };
    if (e.key.toLowerCase() === 'r') return { kind: 'refresh' };
    if (e.key === '[') return { kind: 'back' };
    if (e.key === ']') return { kind: 'forward' };
    return undefined;
  }
  return e.key === 'Backspace' && !e.ctrlKey ? null : undefined;
}

/**
 * The row index a move lands on: `delta` rows from `from` (clamped to the list), the first row for -Infinity (Home),
 * the last for Infinity (End); with nothing focused (`from` < 0) a move down starts at the first row, up at the last.
 * @param length rows in the list (> 0)
 */
export function moveTarget(length: number, from: number, delta: number): number {
  if (delta === -Infinity) return 0;
  if (delta === Infinity) return length - 1;
  if (from < 0) return delta > 0 ? 0 : length - 1;
  return Math.min(length - 1, Math.max(0, from + delta));
}
