/**
 * Pure listing logic for the file panes: sorting, hidden-file filtering, range selection.
 * Works on any entry with a name, a kind, a size and a modification time, so both panes share it.
 */

/** The minimal shape of a listed file or folder. */
export interface ListedEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
  mtimeMs: number;
  /** Hidden by a flag rather than a leading dot (Windows, macOS local entries). */
  hidden?: boolean;
  /** Permission bits, owner and group where the listing has them (the remote pane's Permissions and Owner columns). */
  mode?: number;
  owner?: string;
  group?: string;
}

/** Column a pane is sorted by. */
export type SortKey = 'name' | 'size' | 'mtime' | 'mode' | 'owner';

/** Sort order of a pane. */
export interface SortState {
  key: SortKey;
  dir: 'asc' | 'desc';
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * Returns a new array sorted folders first, then by `sort.key`; ties break by name so the order is stable.
 * Hidden entries (dot-files, and entries flagged hidden: Windows hidden/system, macOS UF_HIDDEN) are dropped unless
 * `showHidden`.
 */
export function sortEntries<E extends ListedEntry>(entries: readonly E[], sort: SortState, showHidden: boolean): E[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  const visible = showHidden ? entries.slice() : entries.filter((e) => !e.name.startsWith('.') && !e.hidden);
  return visible.sort((a, b) => {
    const da = a.type === 'dir' ? 0 : 1;
    const db = b.type === 'dir' ? 0 : 1;
    if (da !== db) return da - db;
    let c = 0;
    if (sort.key === 'size') c = a.size - b.size;
    else if (sort.key === 'mtime') c = a.mtimeMs - b.mtimeMs;
    else if (sort.key === 'mode') c = (a.mode ?? -1) - (b.mode ?? -1);
    else if (sort.key === 'owner') c = collator.compare(ownerText(a), ownerText(b));
    if (c === 0) c = collator.compare(a.name, b.name);
    return c * sign;
  });
}

/** The Owner column's text: `owner group` (empty where the listing has neither). */
export function ownerText(e: Pick<ListedEntry, 'owner' | 'group'>): string {
  return [e.owner, e.group].filter((x) => x !== undefined).join(' ');
}

/** Toggles a column: the same key flips the direction, a new key starts ascending. */
export function toggleSort(current: SortState, key: SortKey): SortState {
  return current.key === key ? { key, dir: current.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: 'asc' };
}

/** Selection of a pane: the selected names and the anchor used by shift-click and shift-arrows. */
export interface Selection {
  selected: ReadonlySet<string>;
  anchor: string | null;
  focus: string | null;
}

/** An empty selection. */
export const emptySelection: Selection = { selected: new Set(), anchor: null, focus: null };

/**
 * Applies a click (or keyboard move) on `name` to a selection, file-manager style.
 * @param order the visible names in display order
 * @param mode `replace` (plain click), `toggle` (ctrl/cmd-click), `range` (shift-click from the anchor)
 */
export function select(
  sel: Selection,
  order: readonly string[],
  name: string,
  mode: 'replace' | 'toggle' | 'range',
): Selection {
  if (mode === 'toggle') {
    const next = new Set(sel.selected);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    return { selected: next, anchor: name, focus: name };
  }
  if (mode === 'range' && sel.anchor !== null) {
    const a = order.indexOf(sel.anchor);
    const b = order.indexOf(name);
    if (a >= 0 && b >= 0) {
      const [lo, hi] = a < b ? [a, b] : [b, a];
      return { selected: new Set(order.slice(lo, hi + 1)), anchor: sel.anchor, focus: name };
    }
  }
  return { selected: new Set([name]), anchor: name, focus: name };
}

/** The name `delta` rows away from the focused one (clamped), or the first row when nothing is focused. */
export function moveFocus(order: readonly string[], focus: string | null, delta: number): string | null {
  if (order.length === 0) return null;
  const i = focus === null ? -1 : order.indexOf(focus);
  if (i < 0) return order[delta < 0 ? order.length - 1 : 0];
  return order[Math.min(order.length - 1, Math.max(0, i + delta))];
}

/**
 * Validates a single file or folder name typed by the user (new folder, rename).
 * @returns an error message, or null when the name is acceptable
 */
export function validateName(name: string): string | null {
  if (name.trim() === '') return 'Name is required';
  if (name === '.' || name === '..') return 'Name cannot be . or ..';
  if (/[/\\\0]/.test(name)) return 'Name cannot contain / or \\';
  if (name.length > 255) return 'Name is too long (255 characters at most)';
  return null;
}
