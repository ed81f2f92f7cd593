/**
 * A file pane's Back/Forward history (a browser's: going somewhere new drops what was ahead), as pure functions over
 * an immutable value. It holds only folders that were listed; a travel moves the pointer once its folder is listed.
 */

/** The folders visited, oldest first, and the one shown. */
export interface PaneHistory {
  readonly entries: readonly string[];
  /** Index in `entries` of the folder shown, -1 while there is none. */
  readonly index: number;
}

/** Folders kept; the oldest are dropped past it (bounded like every list a pane holds). */
export const HISTORY_LIMIT = 100;

export const emptyHistory: PaneHistory = { entries: [], index: -1 };

/**
 * The pane now shows `path`: the history after a visit. Travelling to an entry (`arrivedAt`, from {@link travel})
 * moves the pointer there; any other folder drops the entries ahead and is appended. Showing the current folder again
 * (a refresh) changes nothing.
 */
export function recordVisit(h: PaneHistory, path: string, arrivedAt: number | null = null): PaneHistory {
  if (arrivedAt !== null && h.entries[arrivedAt] === path) return { entries: h.entries, index: arrivedAt };
  if (h.entries[h.index] === path) return h;
  const entries = [...h.entries.slice(0, h.index + 1), path].slice(-HISTORY_LIMIT);
  return { entries, index: entries.length - 1 };
}

/** The index Back (`delta` -1) or Forward (+1) goes to, or null when there is nothing that way. */
export function travel(h: PaneHistory, delta: -1 | 1): number | null {
  const i = h.index + delta;
  return h.index >= 0 && i >= 0 && i < h.entries.length ? i : null;
}
