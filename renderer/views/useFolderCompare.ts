/**
 * The window's Compare (#27): on or off, "differences only", the two panes' current listings (each pane reports its
 * own) and their comparison (app/common/folderCompare.ts, sync's rules), refreshed whenever either listing changes.
 * Ctrl+O (⌘O; FileZilla's key) toggles it, Ctrl+S (⌘S; WinSCP's) opens Synchronize….
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Listing } from '../../app/common/ipc/contract';
import { compareFolders, type CompareStatus, type FolderComparison } from '../../app/common/folderCompare';

/** What a pane shows of the comparison. */
export interface PaneCompare {
  /** Each entry's status by name (links and special files have none). */
  marks: ReadonlyMap<string, CompareStatus>;
  /** Only the entries with a difference are shown. */
  differencesOnly: boolean;
}

/** SFTP v3 keeps whole seconds (draft-ietf-secsh-filexfer-02 §5); a local disk keeps milliseconds. */
const REMOTE_PRECISION_MS = 1000;

/** The shortcut's modifier held alone (Ctrl, or ⌘ on a Mac). */
function modOnly(e: KeyboardEvent, mac: boolean): boolean {
  return (mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey) && !e.altKey && !e.shiftKey;
}

/**
 * The comparison's state and the shortcuts.
 * @param mac macOS's ⌘ instead of Ctrl
 * @param onSynchronize opens the Synchronize… dialog (Ctrl+S); absent: the key does nothing
 */
export function useFolderCompare(mac: boolean, onSynchronize?: () => void) {
  const [on, setOn] = useState(false);
  const [differencesOnly, setDifferencesOnly] = useState(false);
  const [local, setLocal] = useState<Listing | null>(null);
  const [remote, setRemote] = useState<Listing | null>(null);
  const toggle = useCallback(() => setOn((v) => !v), []);
  const result: FolderComparison | null = useMemo(
    () =>
      on && local && remote
        ? compareFolders(
            { entries: local.entries, timePrecisionMs: 1 },
            { entries: remote.entries, timePrecisionMs: REMOTE_PRECISION_MS },
          )
        : null,
    [on, local, remote],
  );
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!modOnly(e, mac)) return;
      const k = e.key.toLowerCase();
      if (k === 'o') toggle();
      else if (k === 's' && onSynchronize) onSynchronize();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [mac, toggle, onSynchronize]);
  const pane = (marks: ReadonlyMap<string, CompareStatus> | undefined): PaneCompare | undefined =>
    marks && { marks, differencesOnly };
  return {
    on,
    toggle,
    differencesOnly,
    setDifferencesOnly,
    result,
    /** Both panes show a folder (Compare has something to compare). */
    ready: local !== null && remote !== null,
    localPane: pane(result?.left),
    remotePane: pane(result?.right),
    onLocalListing: setLocal,
    onRemoteListing: setRemote,
  };
}

export type FolderCompareState = ReturnType<typeof useFolderCompare>;
