/**
 * A pane's name filter (#26 item 5): what a typed filter matches, and the selection kept to the rows it shows.
 * Case-insensitive like FileZilla's and WinSCP's quick filters: a plain text matches anywhere in the name; a text with
 * `*` (any run of characters) or `?` (one character) is a glob over the whole name (`*.log`, `report-??.csv`).
 */
import { plural } from '../../app/common/plural';
import type { Selection } from './entries';

/** True when `text` is a glob (has `*` or `?`) rather than a substring. */
export function isGlob(text: string): boolean {
  return /[*?]/.test(text);
}

/** A test for names against the filter `text`; an empty (or all-blank) filter matches every name. */
export function nameMatcher(text: string): (name: string) => boolean {
  const t = text.trim().toLowerCase();
  if (t === '') return () => true;
  if (!isGlob(t)) return (name) => name.toLowerCase().includes(t);
  const source = t
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  const re = new RegExp(`^${source}$`, 's');
  return (name) => re.test(name.toLowerCase());
}

/** The selection with only the names still shown (`order`); the same object when nothing was hidden. */
export function keepVisible(sel: Selection, order: readonly string[]): Selection {
  const shown = new Set(order);
  const gone = [...sel.selected].some((n) => !shown.has(n));
  const anchorGone = sel.anchor !== null && !shown.has(sel.anchor);
  const focusGone = sel.focus !== null && !shown.has(sel.focus);
  if (!gone && !anchorGone && !focusGone) return sel;
  return {
    selected: new Set([...sel.selected].filter((n) => shown.has(n))),
    anchor: anchorGone ? null : sel.anchor,
    focus: focusGone ? null : sel.focus,
  };
}

/**
 * The pane's count: `340 items`, or with a filter `12 of 340 shown`; then `, 2 selected` when there is a selection.
 * @param shown rows shown; `total` rows listed (hidden files excluded unless shown)
 */
export function paneCountText(shown: number, total: number, selected: number, filtering: boolean): string {
  const rows = filtering ? `${shown} of ${total} shown` : plural(total, 'item');
  return selected > 0 ? `${rows}, ${selected} selected` : rows;
}
