/**
 * A file pane's navigation beyond the grid: Back/Forward through the folders it listed (state/paneHistory.ts; Alt+←,
 * Alt+→ and the header's buttons) and the typed path (Ctrl+L or a click on the breadcrumbs opens the field; Enter
 * goes, and closes the field once the folder is listed; a failure keeps the field and the folder, the pane shows the
 * server's message; Escape closes it).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { emptyHistory, recordVisit, travel, type PaneHistory } from '../state/paneHistory';

/** What the header and the keys use. */
export interface PaneNavigation {
  canBack: boolean;
  canForward: boolean;
  back: () => void;
  forward: () => void;
  /** The path field is open. */
  editingPath: boolean;
  /** Opens the path field. */
  editPath: () => void;
  /** Closes the path field without going anywhere (the grid gets the focus). */
  cancelPath: () => void;
  /** Goes to a typed path. */
  submitPath: (text: string) => void;
}

/**
 * @param shown the folder listed and shown, or null (nothing shown: the history starts again)
 * @param navigate lists a folder and makes it current (usePaneListing), true when it was listed
 * @param focusGrid gives the grid the focus back (the path field closed)
 */
export function usePaneNavigation(
  shown: string | null,
  navigate: (path: string) => Promise<boolean>,
  focusGrid: () => void,
): PaneNavigation {
  const [history, setHistory] = useState<PaneHistory>(emptyHistory);
  const [editingPath, setEditingPath] = useState(false);
  /** The history entry a Back/Forward is going to (its folder is being listed). */
  const travelling = useRef<number | null>(null);
  useEffect(() => {
    const arrivedAt = travelling.current;
    travelling.current = null;
    setHistory((h) => (shown === null ? emptyHistory : recordVisit(h, shown, arrivedAt)));
  }, [shown]);
  const go = (delta: -1 | 1) => {
    const to = travel(history, delta);
    if (to === null) return;
    travelling.current = to;
    void navigate(history.entries[to]);
  };
  const cancelPath = useCallback(() => {
    setEditingPath(false);
    focusGrid();
  }, [focusGrid]);
  const submitPath = (text: string) => {
    const target = text.trim();
    if (target === '') return cancelPath();
    void navigate(target).then((ok) => ok && cancelPath());
  };
  return {
    canBack: travel(history, -1) !== null,
    canForward: travel(history, 1) !== null,
    back: () => go(-1),
    forward: () => go(1),
    editingPath,
    editPath: () => setEditingPath(true),
    cancelPath,
    submitPath,
  };
}
